/**
 * The pipeline's common case, one valid call (src/gateway/pipeline/execute.ts runs everything else): the same steps as
 * a
 * batch — price, admit, forward, deliver, settle — without arrays or per-call maps, and the node's answer goes back
 * as the bytes it sent. Nothing waits when nothing has to: an answer the in-process cache holds, a local answer
 * and a refusal are settled and returned as they are, without a promise or a microtask (docs/benchmarks.md).
 */
import type { MaybePromise } from '../../credits/limits/memory.ts'
import { NO_UPSTREAM } from '../../usage/upstream-usage.ts'
import type { ChaingateError } from '../../errors/index.ts'
import type { LimitCode } from '../../errors/registry.ts'
import {
  errorCodeOf,
  isErrorAnswer,
  serializeError,
  serializeResult,
  toErrorObject,
  type ParsedEntry,
  type RpcCall,
} from '../../jsonrpc/envelope.ts'
import type { MethodDecision } from '../../methods/policy.ts'
import type { UpstreamAnswer } from '../../upstreams/pool/pool.ts'
import type { Admit } from './steps/admit.ts'
import { attemptsOf, forwardOne, nodeDown, unavailable } from './steps/forward.ts'
import { decision, priceOf } from './steps/price.ts'
import type { Settle } from './steps/settle.ts'
import { outcome, type CallContext, type GatewayDeps, type Outcome } from './types.ts'

export interface RunSingleDeps extends Pick<GatewayDeps, 'costs' | 'metrics' | 'clock' | 'layers'> {
  settle: Settle
  admit: Admit
  /** A call refused by a limit (execute.ts: the same answer as for a batch). */
  limited(
    ctx: CallContext,
    code: LimitCode,
    entries: readonly ParsedEntry[],
    batch: boolean,
    method: string,
    now: number,
  ): Outcome
  /** Over WebSocket the answer is written before settling: false when it could not be (then it costs nothing). */
  delivered(ctx: CallContext, body: string | Buffer | undefined): boolean
}

export function createRunSingle(
  deps: RunSingleDeps,
): (ctx: CallContext, call: RpcCall, raw: Buffer | string) => MaybePromise<Outcome> {
  const { costs, metrics, clock, settle, admit, limited, delivered } = deps

  const runSingle = (ctx: CallContext, call: RpcCall, raw: Buffer | string): MaybePromise<Outcome> => {
    const d = decision(ctx, call)
    const price = priceOf(costs, ctx, call, d)
    const now = clock.now()
    // A promise only when the limit store asks Redis (docs/scale-out.md): awaited only then.
    const admitted = admit.request(ctx, price, now)
    if (admitted === null) return forwardSingle(ctx, call, raw, d, price, now)
    if (typeof admitted === 'string') return limited(ctx, admitted, [{ ok: true, call }], false, call.method, now)
    return admitted.then((code) =>
      code === null
        ? forwardSingle(ctx, call, raw, d, price, now)
        : limited(ctx, code, [{ ok: true, call }], false, call.method, now),
    )
  }

  const forwardSingle = (
    ctx: CallContext,
    call: RpcCall,
    raw: Buffer | string,
    d: MethodDecision,
    price: number,
    now: number,
  ): MaybePromise<Outcome> => {
    if (d.kind === 'result')
      return settleSingle(
        ctx,
        call,
        price,
        now,
        serializeResult(call.id, d.result),
        price,
        'ok',
        undefined,
        undefined,
        undefined,
        -1,
      )
    if (d.kind === 'error')
      return settleSingle(
        ctx,
        call,
        price,
        now,
        serializeError(call.id, toErrorObject(d.error)),
        price,
        'error',
        `rpc:${d.error.rpcCode}`,
        undefined,
        undefined,
        -1,
      )
    let answer: MaybePromise<UpstreamAnswer | string | undefined>
    try {
      answer = forwardOne(ctx, call, raw, deps.layers)
    } catch (err) {
      return unanswered(ctx, call, price, now, err)
    }
    if (answer instanceof Promise)
      return answer.then(
        (a) => answered(ctx, call, price, now, a),
        (err: unknown) => unanswered(ctx, call, price, now, err),
      )
    return answered(ctx, call, price, now, answer)
  }

  /** The answer of a forwarded call: the node's (or the cache's) bytes, or a local method's text. */
  const answered = (
    ctx: CallContext,
    call: RpcCall,
    price: number,
    now: number,
    answer: UpstreamAnswer | string | undefined,
  ): Outcome => {
    const network = ctx.network.name
    let served: UpstreamAnswer | undefined
    let body: string | Buffer | undefined
    if (typeof answer === 'object') {
      served = answer
      if (answer.source === undefined) metrics.upstreamLatency(network, answer.latencyMs / 1000)
      else metrics.served(network, answer.source)
      body = answer.body
    } else body = answer
    // The pool already judged a node's answer (src/upstreams/pool/member.ts): no second scan of its bytes.
    if (body !== undefined && (served?.isError ?? isErrorAnswer(body)))
      return settleSingle(
        ctx,
        call,
        price,
        now,
        body,
        price,
        'error',
        `rpc:${errorCodeOf(body) ?? 'unknown'}`,
        undefined,
        served,
        -1,
      )
    return settleSingle(ctx, call, price, now, body, price, 'ok', undefined, undefined, served, -1)
  }

  /** The node could not be reached: free (5xx). */
  const unanswered = (ctx: CallContext, call: RpcCall, price: number, now: number, err: unknown): Outcome => {
    const failure = unavailable(err, ctx.network.name)
    const failedAttempts = ctx.local?.has(call.method) !== true ? attemptsOf(err) : -1
    const body = serializeError(call.id, toErrorObject(failure))
    return settleSingle(
      ctx,
      call,
      price,
      now,
      body,
      0,
      nodeDown(failure) ? 'unavailable' : 'error',
      `http:${failure.httpStatus}`,
      failure,
      undefined,
      failedAttempts,
    )
  }

  /** Delivery (WebSocket), then the usage, upstream usage, refund and metrics of one call. */
  const settleSingle = (
    ctx: CallContext,
    call: RpcCall,
    price: number,
    now: number,
    body: string | Buffer | undefined,
    charged: number,
    result: string,
    errorKind: string | undefined,
    failure: ChaingateError | undefined,
    served: UpstreamAnswer | undefined,
    failedAttempts: number,
  ): Outcome => {
    const { entry, network } = ctx
    if (!call.hasId) body = undefined
    if (!delivered(ctx, body)) {
      charged = 0
      result = 'undelivered'
      errorKind = ctx.transport === 'ws' ? 'ws:undelivered' : 'http:undelivered'
    }
    const t = charged === price ? now : clock.now()
    settle.call(entry, network.name, call.method, charged, result, errorKind, t)
    if (served !== undefined)
      settle.upstream(network.name, call.method, served.upstream, served.attempts, served.source, charged, false, t)
    else if (failedAttempts >= 0)
      settle.upstream(network.name, call.method, NO_UPSTREAM, failedAttempts, undefined, 0, true, t)
    settle.finish(entry, network.name, price, charged, t)
    // A notification gets no answer, so no error status either (204).
    return outcome({
      code: call.hasId ? failure?.code : undefined,
      body,
      ids: undefined,
      batch: false,
      detail: undefined,
      credits: charged,
      keyId: entry.id,
      method: call.method,
      calls: 1,
      source: served?.source,
    })
  }

  return runSingle
}
