/**
 * Filter calls inside a batch (docs/upstreams.md, "Filters"). Each filter lives on
 * one node and the pool sends a filter call only to that node (src/upstreams/pool/filters.ts), so such a call does not
 * go with the rest of the batch: it is sent on its own, as a single call (the batch's filter calls one after another,
 * in order, while the rest of the batch goes as one body). Its answer takes its place in the batch (the client's id,
 * the client's order); when its node cannot be reached it gets
 * `-32000 filter not found` (FILTER_NOT_FOUND, free) and the rest of the batch is answered as usual.
 */
import { isFilterMethod } from '../../upstreams/pool/filters.ts'
import type { ChaingateError } from '../../errors/index.ts'
import { serializeError, serializeResult, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { RpcCall } from '../../jsonrpc/types.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { UpstreamAnswer } from '../../upstreams/pool/pool.ts'
import { unavailable } from './steps/forward.ts'
import type { CallContext } from './types.ts'

/**
 * Whether a call of a batch must be sent on its own: a filter call on a network whose pool pins filters (its node
 * and the key that owns it, src/upstreams/pool/filters.ts).
 */
export const sentAlone = (ctx: CallContext, call: RpcCall): boolean =>
  ctx.pool.pinsFilters === true && isFilterMethod(call.method)

/** The filter calls of a batch, their indexes in it, and the slots `forwardAlone` fills (by those indexes). */
export interface FilterCalls {
  calls: readonly RpcCall[]
  at: readonly number[]
  answers: (string | undefined)[]
  failures: (ChaingateError | undefined)[]
  served: (UpstreamAnswer | undefined)[]
}

/**
 * The filter calls of a batch, one after another in the batch's order (a node runs a batch's calls in order: a poll
 * before an uninstall of the same filter must see it). Fills `answers[i]` (undefined for a notification),
 * `failures[i]` (the error when nobody answered) and `served[i]` (the node's answer, for upstream usage) for each
 * index `i` of `at`; never rejects.
 */
export async function forwardAlone(
  ctx: CallContext,
  metrics: Metrics,
  { calls, at, answers, failures, served }: FilterCalls,
): Promise<void> {
  const network = ctx.network.name
  for (const [j, i] of at.entries()) {
    const call = calls[j]!
    // The gateway's own id (a notification has none, and the node must answer so the call is known to have run).
    const body = JSON.stringify({ jsonrpc: '2.0', id: 0, method: call.method, params: call.params ?? [] })
    try {
      const answer = await ctx.pool.send(body, { method: call.method, owner: ctx.entry.id }, undefined, undefined, ctx)
      served[i] = answer
      metrics.upstreamLatency(network, answer.latencyMs / 1000)
      if (!call.hasId) continue
      const a = JSON.parse(answer.body.toString()) as Record<string, unknown> | null
      answers[i] =
        a !== null && typeof a === 'object' && 'error' in a
          ? serializeError(call.id, a.error as never)
          : a !== null && typeof a === 'object' && 'result' in a
            ? serializeResult(call.id, a.result)
            : serializeError(call.id, {
                code: -32603,
                message: `network ${network}: the node gave no answer for this call`,
              })
    } catch (err) {
      failures[i] = unavailable(err, network)
      answers[i] = call.hasId ? serializeError(call.id, toErrorObject(failures[i]!)) : undefined
    }
  }
}
