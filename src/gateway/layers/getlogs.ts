/**
 * The eth_getLogs hook of the call layers (rules in src/methods/eth_getLogs.ts): range cap, tags resolved
 * against the served tip (several upstreams), splitting for the nodes' own range limit, result cap; a finalized
 * range is cached.
 */
import type { ChaingateError } from '../../errors/index.ts'
import type { RpcCall } from '../../jsonrpc/types.ts'
import { skipSpace } from '../../jsonrpc/scan.ts'
import { countLogs, fitsTo, planGetLogs, rangeTooLarge, splitRange, tooManyResults } from '../../methods/eth_getLogs.ts'
import { answerSpans, resultAnswer, withId } from './cached-answer.ts'
import { IMMUTABLE, type CachedSend } from './cached-reads.ts'
import type { SharedSend } from './dedup.ts'
import type { CallOrigin } from '../../upstreams/pool/pool.ts'
import { atLeast, paramsKey, type LayerAnswer, type LayerState } from './state.ts'

export interface GetLogsHook {
  /** eth_getLogs: range cap, tags resolved against the served tip (several upstreams), splitting, result cap. */
  logs(call: RpcCall, raw: Buffer | string, origin: CallOrigin | undefined): Promise<LayerAnswer>
  /** CallLayers.batchLogsRefusal. */
  batchLogsRefusal(call: RpcCall): ChaingateError | undefined
  /** CallLayers.batchLogsOverCap. */
  batchLogsOverCap(call: RpcCall, result: unknown): ChaingateError | undefined
}

/** The network's eth_getLogs hook, built once per network. */
export function createGetLogsHook(s: LayerState, shared: SharedSend, cached: CachedSend): GetLogsHook {
  const { o, prefix } = s
  const { pool, heads, store } = o
  const limits = o.getLogs

  /** More logs than the cap: the call fails with Infura's error and the range that would have fit. */
  const capped = (a: LayerAnswer, from: number | undefined): LayerAnswer => {
    const spans = answerSpans(a.body)
    if (spans === undefined || spans.resultStart < 0) return a
    const { count, overAt } = countLogs(a.body, spans.resultStart, limits.maxResults)
    if (count <= limits.maxResults) return a
    throw tooManyResults(
      limits.maxResults,
      from,
      from === undefined || overAt === undefined ? undefined : fitsTo(a.body, overAt, from),
    )
  }

  const logs = (call: RpcCall, raw: Buffer | string, origin: CallOrigin | undefined): Promise<LayerAnswer> => {
    // Tags are rewritten to the tip only while heads are polled (after an idle spell the tip is old).
    const plan = planGetLogs(
      call.params,
      { tip: heads?.latest(), finalized: heads?.finalized() },
      limits,
      o.multiUpstream && performance.now() - s.lastHeadAt < o.headIdleMs,
    )
    if (!('kind' in plan)) return Promise.reject(plan as ChaingateError)
    if (plan.kind === 'pass')
      return shared(paramsKey(prefix, call), raw, call, origin).then((a) => capped(a, plan.from))
    const { from, to, filter } = plan
    const size = limits.upstreamMaxBlockRange
    if (size !== null && to - from + 1 > size) {
      const parts = splitRange(from, to, size)
      if (parts.length > limits.maxSplits) return Promise.reject(rangeTooLarge(to - from + 1, size * limits.maxSplits))
      return splitLogs(call, filter, parts, origin)
    }
    const key = plan.rewritten ? `${prefix}eth_getLogs\0${JSON.stringify([filter])}` : paramsKey(prefix, call)
    const body = plan.rewritten
      ? JSON.stringify({ jsonrpc: '2.0', id: call.id, method: 'eth_getLogs', params: [filter] })
      : raw
    const finalized = heads?.finalized()
    // A range that ends at or below the finalized block has its final logs (an empty list included): kept, when
    // within the result cap.
    if (o.cache && !o.uncached.has('eth_getLogs') && finalized !== undefined && to <= finalized)
      return Promise.resolve(
        cached({
          key,
          call,
          raw: body,
          keep: (result) =>
            countLogs(result, 0, limits.maxResults).count <= limits.maxResults && store.set(key, result, IMMUTABLE),
          origin,
          counts: s.lookups.logs,
        }),
      ).then((a) => capped(a, from))
    return shared(key, body, call, origin, atLeast('eth_getLogs', to)).then((a) => capped(a, from))
  }

  /**
   * A range wider than the nodes' own limit, as consecutive sub-requests (at most `splitConcurrency` in flight),
   * merged in order. All or nothing: a sub-request that fails fails the call (its error, with the client's id).
   */
  const splitLogs = async (
    call: RpcCall,
    filter: Record<string, unknown>,
    parts: [number, number][],
    origin: CallOrigin | undefined,
  ): Promise<LayerAnswer> => {
    const results: (Buffer | undefined)[] = new Array(parts.length).fill(undefined)
    const counts: number[] = new Array(parts.length).fill(0)
    let next = 0
    let total = 0
    let attempts = 0
    let stop = false
    let failure: LayerAnswer | undefined
    let first: LayerAnswer | undefined
    const started = performance.now()
    const worker = async () => {
      while (!stop && next < parts.length) {
        const i = next++
        const [a, b] = parts[i]!
        const body = JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'eth_getLogs',
          params: [{ ...filter, fromBlock: `0x${a.toString(16)}`, toBlock: `0x${b.toString(16)}` }],
        })
        let answer: LayerAnswer
        try {
          answer = await pool.send(body, atLeast('eth_getLogs', b), undefined, undefined, origin)
        } catch (err) {
          stop = true
          throw err
        }
        attempts += answer.attempts
        first ??= answer
        const spans = answerSpans(answer.body)
        if (spans === undefined || spans.resultStart < 0 || answer.body[spans.resultStart] !== 0x5b) {
          stop = true
          failure ??= { ...answer, body: spans === undefined ? answer.body : withId(answer.body, spans, call.id) }
          return
        }
        results[i] = answer.body.subarray(spans.resultStart, spans.resultEnd)
        counts[i] = countLogs(answer.body, spans.resultStart, limits.maxResults).count
        total += counts[i]!
        if (total > limits.maxResults) stop = true
      }
    }
    await Promise.all(Array.from({ length: Math.min(limits.splitConcurrency, parts.length) }, worker))
    if (failure !== undefined) return failure
    const from = parts[0]![0]
    if (total > limits.maxResults) {
      // The range that fits: counted over the sub-ranges answered in order from the start.
      let before = 0
      let fits: number | undefined
      for (let i = 0; i < parts.length && results[i] !== undefined; i++) {
        if (before + counts[i]! > limits.maxResults) {
          const r = results[i]!
          const over = countLogs(r, 0, limits.maxResults - before).overAt
          fits = over === undefined ? undefined : fitsTo(r, over, from)
          break
        }
        before += counts[i]!
        fits = parts[i]![1]
      }
      throw tooManyResults(limits.maxResults, from, fits)
    }
    const inner: Buffer[] = []
    for (const r of results) {
      // Between the brackets; an empty sub-range adds nothing.
      const open = skipSpace(r!, 1)
      if (r![open] === 0x5d) continue
      if (inner.length > 0) inner.push(COMMA)
      inner.push(r!.subarray(1, r!.length - 1))
    }
    const merged = Buffer.concat([OPEN, ...inner, CLOSE])
    return {
      body: resultAnswer(call.id, merged),
      latencyMs: performance.now() - started,
      upstream: first?.upstream ?? 'split',
      attempts,
      isError: false,
    }
  }

  return {
    logs,
    batchLogsRefusal(call) {
      const plan = planGetLogs(call.params, { tip: heads?.latest(), finalized: heads?.finalized() }, limits, false)
      return 'kind' in plan ? undefined : plan
    },
    batchLogsOverCap(call, result) {
      if (!Array.isArray(result) || result.length <= limits.maxResults) return undefined
      const plan = planGetLogs(call.params, { tip: heads?.latest(), finalized: heads?.finalized() }, limits, false)
      const from = 'kind' in plan ? plan.from : undefined
      const over = (result[limits.maxResults] as { blockNumber?: unknown } | undefined)?.blockNumber
      const overBlock = typeof over === 'string' ? Number.parseInt(over, 16) : Number.NaN
      return tooManyResults(
        limits.maxResults,
        from,
        from === undefined || !Number.isSafeInteger(overBlock) ? undefined : Math.max(from, overBlock - 1),
      )
    },
  }
}

const OPEN = Buffer.from('[')
const CLOSE = Buffer.from(']')
const COMMA = Buffer.from(',')
