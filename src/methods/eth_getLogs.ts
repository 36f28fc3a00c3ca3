/**
 * eth_getLogs `[filter]` limits, as Infura has them
 * (https://docs.metamask.io/services/reference/ethereum/json-rpc-methods/eth_getlogs/):
 * a block range of at most 10,000 blocks, answered `-32602 range N exceeds limit of 10000` otherwise, and at most
 * 10,000 results, answered `-32005 query returned more than 10000 results. Try with this block range [0x…, 0x…].`
 * with the narrower range in `data` (the form ethers and viem clients parse, ethers-io/ethers.js#4703). A filter
 * with `blockHash` names one block and has no range. Pure: the gateway's cache layer (src/gateway/layers/layers.ts)
 * runs the plan against the pool.
 */
import { ChaingateError } from '../errors/index.ts'
import { afterValue, skipSpace } from '../jsonrpc/scan.ts'

export interface GetLogsLimits {
  maxBlockRange: number
  maxResults: number
  /** The nodes' own range limit: wider calls are split in sub-ranges of this many blocks; null: never split. */
  upstreamMaxBlockRange: number | null
  splitConcurrency: number
  maxSplits: number
}

/** What to do with one eth_getLogs call. */
export type LogsPlan =
  /**
   * Send as the client wrote it (a blockHash filter, a tag the gateway cannot resolve, an invalid filter: the node
   * judges).
   */
  | { kind: 'pass'; from: number | undefined }
  /** A numeric range: `filter` holds it as hex (tags resolved against the served tip when `rewritten`). */
  | { kind: 'range'; from: number; to: number; filter: Record<string, unknown>; rewritten: boolean }

// Regex, not viem's isHex (src/shared/hex.ts): checked on every call, on the measured per-request path.
const QUANTITY = /^0x(0|[1-9a-f][0-9a-f]*)$/i
const hex = (n: number) => `0x${n.toString(16)}`

/**
 * Resolves the range of a filter. `tip` and `finalized` are the served heads (undefined: unknown); with
 * `resolveTags` false (one trusted node: its head may be ahead of the announced one) tags stay in the call and
 * are only estimated for the range check.
 */
export function planGetLogs(
  params: unknown,
  heads: { tip: number | undefined; finalized: number | undefined },
  limits: GetLogsLimits,
  resolveTags: boolean,
): LogsPlan | ChaingateError {
  const filter = Array.isArray(params) && params.length === 1 ? params[0] : undefined
  if (filter === null || typeof filter !== 'object' || Array.isArray(filter)) return { kind: 'pass', from: undefined }
  const f = filter as Record<string, unknown>
  if (f.blockHash !== undefined) return { kind: 'pass', from: undefined }
  const resolve = (v: unknown): number | undefined => {
    if (v === undefined || v === 'latest' || v === 'pending') return heads.tip
    if (v === 'earliest') return 0
    if (v === 'finalized') return heads.finalized
    if (typeof v === 'string' && QUANTITY.test(v)) return Number.parseInt(v, 16)
    return undefined // safe, or not a block: the node answers
  }
  const from = resolve(f.fromBlock)
  const to = resolve(f.toBlock)
  if (from === undefined || to === undefined || from > to) return { kind: 'pass', from }
  const range = to - from + 1
  if (range > limits.maxBlockRange) return rangeTooLarge(range, limits.maxBlockRange)
  const numeric =
    typeof f.fromBlock === 'string' &&
    QUANTITY.test(f.fromBlock) &&
    typeof f.toBlock === 'string' &&
    QUANTITY.test(f.toBlock)
  if (numeric) return { kind: 'range', from, to, filter: f, rewritten: false }
  if (!resolveTags) return { kind: 'pass', from }
  return { kind: 'range', from, to, filter: { ...f, fromBlock: hex(from), toBlock: hex(to) }, rewritten: true }
}

/** Infura's answer to a range wider than the limit (INFURA/infura#237). */
export const rangeTooLarge = (range: number, limit: number) =>
  new ChaingateError('LOGS_RANGE_TOO_LARGE', `range ${range} exceeds limit of ${limit}`, {
    rpcCode: -32602,
    httpStatus: 200,
  })

/** Infura's answer to more results than the limit, with the range that would have fit when the gateway knows it. */
export const tooManyResults = (limit: number, from: number | undefined, fitsTo: number | undefined) =>
  from === undefined || fitsTo === undefined
    ? new ChaingateError('LOGS_TOO_MANY_RESULTS', `query returned more than ${limit} results`, {
        rpcCode: -32005,
        httpStatus: 200,
      })
    : new ChaingateError(
        'LOGS_TOO_MANY_RESULTS',
        `query returned more than ${limit} results. Try with this block range [${hex(from)}, ${hex(fitsTo)}].`,
        {
          rpcCode: -32005,
          httpStatus: 200,
          data: { from: hex(from), limit, to: hex(fitsTo) },
        },
      )

/** Consecutive sub-ranges of at most `size` blocks covering [from, to]. */
export function splitRange(from: number, to: number, size: number): [number, number][] {
  const out: [number, number][] = []
  for (let a = from; a <= to; a += size) out.push([a, Math.min(to, a + size - 1)])
  return out
}

/**
 * Counts the logs of a result array (`b[start]` is `[`) up to `limit + 1`, without parsing them. When there are
 * more than `limit`, `overAt` is the offset of the first log beyond the limit (its block bounds the range that fits).
 */
export function countLogs(b: Buffer, start: number, limit: number): { count: number; overAt: number | undefined } {
  let i = skipSpace(b, start + 1)
  if (b[start] !== 0x5b || b[i] === 0x5d) return { count: 0, overAt: undefined }
  let count = 0
  for (;;) {
    if (count === limit) return { count: count + 1, overAt: i }
    const end = afterValue(b, i)
    if (end < 0) return { count, overAt: undefined }
    count++
    i = skipSpace(b, end)
    if (b[i] !== 0x2c) return { count, overAt: undefined }
    i = skipSpace(b, i + 1)
  }
}

const BLOCK_NUMBER = /"blockNumber"\s*:\s*"0x([0-9a-fA-F]+)"/

/** The last block whose logs all fit: the one before the block of the first log beyond the limit (at least `from`). */
export function fitsTo(b: Buffer, overAt: number, from: number): number | undefined {
  const m = BLOCK_NUMBER.exec(b.toString('latin1', overAt, Math.min(b.length, overAt + 4096)))
  if (!m) return undefined
  return Math.max(from, Number.parseInt(m[1]!, 16) - 1)
}
