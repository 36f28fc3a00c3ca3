/**
 * The pipeline's common case, one valid call (run-entries.ts runs batches and invalid calls): the same steps as a
 * batch — price, admit, forward, deliver, settle — without arrays or per-call maps, and the node's answer goes
 * back as the bytes it sent. Nothing waits when nothing has to: an answer the in-process cache holds, a local answer
 * and a refusal are settled and returned as they are, without a promise or a microtask (docs/benchmarks.md).
 */
import type { MaybePromise } from '../../shared/types.ts'
import { NO_UPSTREAM } from '../../usage/upstream-usage.ts'
import type { ChaingateError } from '../../errors/index.ts'
import type { LimitCode } from '../../errors/registry.ts'
import { errorCodeOf, isErrorAnswer, serializeError, serializeResult, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { ParsedEntry, RpcCall } from '../../jsonrpc/types.ts'
import type { MethodDecision } from '../../methods/policy.ts'
import type { UpstreamAnswer } from '../../upstreams/pool/pool.ts'
import type { Admit } from './steps/admit.ts'
import { attemptsOf, forwardOne, nodeDown, unavailable } from './steps/forward.ts'
import { decision, overBudget, priceOf } from './steps/price.ts'
import type { CallOutcome, Settle } from './steps/settle.ts'
import { outcome, type CallContext, type GatewayDeps, type Outcome } from './types.ts'

/** A request a limit refused: its calls, whether it was a batch, the method it is recorded under, when. */
export interface Refusal {
  code: LimitCode
  entries: readonly ParsedEntry[]
  batch: boolean
  method: string
  now: number
}

export interface RunSingleDeps extends Pick<GatewayDeps, 'costs' | 'metrics' | 'clock' | 'layers' | 'requests'> {
  settle: Settle
  admit: Admit
  /** A call refused by a limit (execute.ts: the same answer as for a batch). */
  limited(ctx: CallContext, refusal: Refusal): Outcome
  /** Over WebSocket the answer is written before settling: false when it could not be (then it costs nothing). */
  delivered(ctx: CallContext, body: string | Buffer | undefined): boolean
}

/** One call as it runs: what every step after pricing needs. */
interface SingleRun {
  ctx: CallContext
  call: RpcCall
  /** The credits reserved at admission. */
  price: number
  /** When it was admitted (settled at this time when the charge is the reservation). */
  now: number
}

/** How a single call ended, for settleSingle. */
interface SingleEnd {
  body: string | Buffer | undefined
  charged: number
  result: CallOutcome
  /** e.g. `rpc:-32000`, `http:503`; undefined for a success. */
  errorKind?: string | undefined
  /** Why no node answered (its code becomes the outcome's). */
  failure?: ChaingateError | undefined
  /** The node's (or the cache's) answer, for the upstream usage. */
  served?: UpstreamAnswer | undefined
  /** A forwarded call no node answered: its upstream requests (recorded as failed). */
  failedAttempts?: number | undefined
}

export function createRunSingle(
  deps: RunSingleDeps,
): (ctx: CallContext, call: RpcCall, raw: Buffer | string) => MaybePromise<Outcome> {
  const { costs, metrics, clock, settle, admit, limited, delivered, requests } = deps

  const runSingle = (ctx: CallContext, call: RpcCall, raw: Buffer | string): MaybePromise<Outcome> => {
    const d = decision(ctx, call)
    const price = priceOf(costs, ctx, call, d)
    const now = clock.now()
    // A promise only when the limit store asks Redis (docs/scale-out.md): awaited only then.
    const admitted = overBudget(ctx, price, call) ?? admit.request(ctx, price, now)
    if (ctx.span !== undefined) ctx.span.event('price', { credits: price })
    if (admitted === null) return forwardSingle({ ctx, call, price, now }, raw, d)
    if (typeof admitted === 'string')
      return limited(ctx, { code: admitted, entries: [{ ok: true, call }], batch: false, method: call.method, now })
    return admitted.then((code) =>
      code === null
        ? forwardSingle({ ctx, call, price, now }, raw, d)
        : limited(ctx, { code, entries: [{ ok: true, call }], batch: false, method: call.method, now }),
    )
  }

  const forwardSingle = (run: SingleRun, raw: Buffer | string, d: MethodDecision): MaybePromise<Outcome> => {
    const { call, price } = run
    if (d.kind === 'result')
      return settleSingle(run, { body: serializeResult(call.id, d.result), charged: price, result: 'ok' })
    if (d.kind === 'error')
      return settleSingle(run, {
        body: serializeError(call.id, toErrorObject(d.error)),
        charged: price,
        result: 'error',
        errorKind: `rpc:${d.error.rpcCode}`,
      })
    let answer: MaybePromise<UpstreamAnswer | string | undefined>
    try {
      answer = forwardOne(run.ctx, call, raw, deps.layers)
    } catch (err) {
      return unanswered(run, err)
    }
    if (answer instanceof Promise)
      return answer.then(
        (a) => answered(run, a),
        (err: unknown) => unanswered(run, err),
      )
    return answered(run, answer)
  }

  /** The answer of a forwarded call: the node's (or the cache's) bytes, or a local method's text. */
  const answered = (run: SingleRun, answer: UpstreamAnswer | string | undefined): Outcome => {
    const network = run.ctx.network.name
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
      return settleSingle(run, {
        body,
        charged: run.price,
        result: 'error',
        errorKind: `rpc:${errorCodeOf(body) ?? 'unknown'}`,
        served,
      })
    return settleSingle(run, { body, charged: run.price, result: 'ok', served })
  }

  /** The node could not be reached: free (5xx). */
  const unanswered = (run: SingleRun, err: unknown): Outcome => {
    const { ctx, call } = run
    const failure = unavailable(err, ctx.network.name)
    return settleSingle(run, {
      body: serializeError(call.id, toErrorObject(failure)),
      charged: 0,
      result: nodeDown(failure) ? 'unavailable' : 'error',
      errorKind: `http:${failure.httpStatus}`,
      failure,
      // A local method (the wallet's own) asked no node.
      failedAttempts: ctx.local?.has(call.method) !== true ? attemptsOf(err) : undefined,
    })
  }

  /** Delivery (WebSocket), then the usage, upstream usage, refund and metrics of one call. */
  const settleSingle = (run: SingleRun, end: SingleEnd): Outcome => {
    const { ctx, call, price, now } = run
    const { entry, network } = ctx
    const { failure, served } = end
    let { body, charged, result, errorKind } = end
    if (!call.hasId) body = undefined
    if (!delivered(ctx, body)) {
      charged = 0
      result = 'undelivered'
      errorKind = ctx.transport === 'ws' ? 'ws:undelivered' : 'http:undelivered'
    }
    const t = charged === price ? now : clock.now()
    settle.call({
      entry,
      network: network.name,
      method: call.method,
      credits: charged,
      outcome: result,
      errorKind,
      now: t,
    })
    if (requests !== undefined) requests.push(ctx, call.method, errorKind, charged, served, now)
    if (served !== undefined)
      settle.upstream({
        network: network.name,
        method: call.method,
        upstream: served.upstream,
        attempts: served.attempts,
        source: served.source,
        credits: charged,
        failed: false,
        now: t,
      })
    else if (end.failedAttempts !== undefined)
      settle.upstream({
        network: network.name,
        method: call.method,
        upstream: NO_UPSTREAM,
        attempts: end.failedAttempts,
        source: undefined,
        credits: 0,
        failed: true,
        now: t,
      })
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
