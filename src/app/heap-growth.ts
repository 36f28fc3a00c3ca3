/**
 * How far V8 lets the old generation grow past what survived the last full collection before collecting again
 * (config `gateway.heapGrowingPercent`, docs/config.md). V8 picks the factor itself, up to 4× when collections are
 * fast next to the program (https://v8.dev/blog/trash-talk): a gateway's live heap is small (~35 MiB) and its
 * garbage promoted steadily (calls in flight at a scavenge), so under load a worker's heap grew to ~95 MiB of
 * mostly garbage before a mark-compact freed it, ~60 MiB of RSS per process. A fixed factor keeps that to a few
 * MiB for a mark-compact every few seconds (docs/benchmarks.md, "Memory, third pass").
 */
import { setFlagsFromString } from 'node:v8'

const FLAG = /--heap[-_]growing[-_]percent/

/** The V8 flag to set, or undefined: 0 (V8's own choice) or the operator already passed the flag to node. */
export function heapGrowingFlag(
  percent: number,
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string | undefined {
  if (percent <= 0 || execArgv.some((a) => FLAG.test(a)) || FLAG.test(nodeOptions)) return undefined
  return `--heap-growing-percent=${Math.round(percent)}`
}

/**
 * The factor of `--workers` processes (the workers and their primary, which writes every worker's request records)
 * when the config leaves it to chaingate: the workers are what runs N times. A single process keeps V8's own: its
 * larger heap (wallet, dashboard, chains) would run a mark-compact about every second under load at 20 %, ~2 µs per
 * call, for memory that is not multiplied.
 */
export const CLUSTER_HEAP_GROWING_PERCENT = 20

/** The factor for this process: the config's, or CLUSTER_HEAP_GROWING_PERCENT with `--workers` and V8's own else. */
export function heapGrowingPercent(configured: number | null, inCluster: boolean): number {
  return configured ?? (inCluster ? CLUSTER_HEAP_GROWING_PERCENT : 0)
}

/** Sets the factor for this process (a flag V8 reads at each collection, so setting it after start works). */
export function applyHeapGrowing(percent: number): void {
  const flag = heapGrowingFlag(percent)
  if (flag !== undefined) setFlagsFromString(flag)
}
