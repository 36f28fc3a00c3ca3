/**
 * How far V8 lets the old generation grow past what survived the last full collection before collecting again
 * (config `gateway.heapGrowingPercent`, docs/config.md). V8 picks the factor itself, up to 4× when collections are
 * fast next to the program (https://v8.dev/blog/trash-talk): a gateway's live heap is small (~35 MiB) and some
 * garbage is promoted under load, so a worker's heap grew to ~95 MiB of mostly garbage before a mark-compact freed
 * it, ~60 MiB of RSS per process. A fixed factor keeps that to a few MiB (docs/benchmarks.md, "Memory, third pass").
 * Also here: the young generation of `--workers` workers.
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

const SEMI_SPACE_FLAG = /--(max|min)[-_]semi[-_]space[-_]size/

/**
 * V8's young generation is two semi-spaces of 16 MiB each by default on 64-bit, 32 MiB of every process. A
 * `--workers` worker gets 8 MiB ones: 16 MiB less RSS each, for ~0.4 µs per call in more frequent scavenges (what a
 * call leaves alive is little; docs/benchmarks.md, "Memory, fourth pass"). Not when the operator gave node a
 * semi-space flag; the primary and a single process keep V8's default.
 */
export const WORKER_SEMI_SPACE_MB = 8

/** The node flags `--workers` workers start with: the primary's own, and the young generation's size. */
export function workerExecArgv(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  if (execArgv.some((a) => SEMI_SPACE_FLAG.test(a)) || SEMI_SPACE_FLAG.test(nodeOptions)) return [...execArgv]
  return [...execArgv, `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`]
}
