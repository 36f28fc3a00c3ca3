/**
 * The gateway's request pipeline: framework- and transport-free, never throws. Every request — an HTTP body, a
 * WebSocket message, an in-process call from the wallet — runs the same named steps (docs/architecture.md):
 *
 *   authorize (steps/authorize.ts) → parse → price (steps/price.ts) → admit (steps/admit.ts)
 *   → forward (steps/forward.ts) → deliver (WebSocket) → settle (steps/settle.ts)
 *
 * and ends as an Outcome (codes, credits, answer bytes) that src/gateway/http turns into a status, headers and body.
 */
import type { MaybePromise } from '../../credits/limits/memory.ts'
import { NO_UPSTREAM } from '../../usage/upstream-usage.ts'
import type { ChaingateError } from '../../errors/index.ts'
import type { LimitCode } from '../../errors/registry.ts'
import {
  errorCodeOf,
  isErrorAnswer,
  parseBody,
  serializeError,
  serializeResult,
  toErrorObject,
  type ParsedBody,
  type ParsedEntry,
  type RpcCall,
} from '../../jsonrpc/envelope.ts'
import type { UpstreamAnswer } from '../../upstreams/pool/pool.ts'
import { createAdmit } from './steps/admit.ts'
import { forwardAlone, sentAlone } from './filter-calls.ts'
import { createAuthorize, type Authorized } from './steps/authorize.ts'
import { attemptsOf, forwardLocal, forwardMany, nodeDown } from './steps/forward.ts'
import { decision, priceOf } from './steps/price.ts'
import { createRunSingle } from './run-single.ts'
import { createSettle } from './steps/settle.ts'
import {
  outcome,
  type CallContext,
  type Gateway,
  type GatewayDeps,
  type HttpRpcRequest,
  type Outcome,
} from './types.ts'

export type { Gateway, GatewayDeps } from './types.ts'

const callsOf = (parsed: ParsedBody): RpcCall[] =>
  parsed.kind === 'single'
    ? parsed.entry.ok
      ? [parsed.entry.call]
      : []
    : parsed.kind === 'batch'
      ? parsed.entries.flatMap((e) => (e.ok ? [e.call] : []))
      : []

export function createGateway(deps: GatewayDeps): Gateway {
  const { costs, metrics, clock } = deps
  const settle = createSettle(deps)
  const authorize = createAuthorize({ ...deps, settle })
  const admit = createAdmit(deps)

  const refusedOutcome = (a: Authorized, method: string, calls: number): Outcome =>
    outcome({
      code: a.code,
      body: undefined,
      ids: undefined,
      batch: false,
      detail: a.detail,
      credits: a.credits,
      keyId: a.keyId,
      method,
      calls,
    })

  const limited = (
    ctx: CallContext,
    code: LimitCode,
    entries: readonly ParsedEntry[],
    batch: boolean,
    method: string,
    now: number,
  ): Outcome => {
    settle.limited(
      ctx.entry,
      ctx.network.name,
      code,
      method,
      entries.map((e) => (e.ok ? e.call.method : '(invalid)')),
      now,
    )
    const ids = entries.map((e) => (e.ok ? e.call.id : e.id))
    return outcome({
      code,
      body: undefined,
      ids,
      batch,
      detail: undefined,
      credits: 0,
      keyId: ctx.entry.id,
      method,
      calls: entries.length,
    })
  }

  /** A whole body the envelope parser refused (not JSON, empty batch, ...): the input-error fee. */
  const invalidBody = (
    ctx: CallContext,
    parsed: ParsedBody & { kind: 'invalid' },
    charge: boolean,
  ): Outcome | Promise<Outcome> => {
    const code = parsed.error.code
    const fee = charge ? settle.inputError(ctx.entry, ctx.network.name, code) : 0
    const answer = (credits: number) => {
      metrics.call(ctx.network.name, '(invalid)', 'error')
      const body = serializeError(null, toErrorObject(parsed.error))
      delivered(ctx, body)
      return outcome({
        code,
        body,
        ids: undefined,
        batch: false,
        detail: undefined,
        credits,
        keyId: ctx.entry.id,
        method: '(invalid)',
        calls: 0,
      })
    }
    return typeof fee === 'number' ? answer(fee) : fee.then(answer)
  }

  /**
   * Over WebSocket the answer is written before settling: one that could not be delivered costs nothing. Over HTTP
   * it is written after, so what is checked is that the client is still connected.
   */
  const delivered = (ctx: CallContext, body: string | Buffer | undefined): boolean =>
    body === undefined ||
    (ctx.deliver === undefined
      ? ctx.client?.destroyed !== true
      : ctx.deliver(typeof body === 'string' ? body : body.toString()))

  const runSingle = createRunSingle({ ...deps, settle, admit, limited, delivered })

  const runEntries = async (ctx: CallContext, entries: ParsedEntry[], batch: boolean): Promise<Outcome> => {
    const { entry, network } = ctx
    const now = clock.now()
    const method = batch ? 'batch' : entries[0]!.ok ? entries[0]!.call.method : '(invalid)'
    // Price every call up front and reserve it all.
    const decisions = entries.map((e) => (e.ok ? decision(ctx, e.call) : undefined))
    let reserved = batch ? costs.batchEnvelope : 0
    const prices = entries.map((e, i) => {
      const d = decisions[i]
      const price = !e.ok || d!.kind === 'error' ? costs.inputError : priceOf(costs, ctx, e.call, d!)
      reserved += price
      return price
    })
    const admitted = admit.request(ctx, reserved, now)
    const code = admitted === null || typeof admitted === 'string' ? admitted : await admitted
    if (code !== null) return limited(ctx, code, entries, batch, method, now)

    const answers: (string | undefined)[] = new Array(entries.length).fill(undefined)
    const failures: (ChaingateError | undefined)[] = new Array(entries.length).fill(undefined)
    const forwardAt: number[] = []
    /** Calls answered from the cache (charged like the others). */
    const cachedAt: number[] = []
    /** Filter calls on a network of several nodes, each sent on its own to its filter's node (filter-calls.ts). */
    const aloneAt: number[] = []
    const alone: (UpstreamAnswer | undefined)[] = []
    const layers = deps.layers?.get(network.name)
    const pending: Promise<void>[] = []
    entries.forEach((e, i) => {
      if (!e.ok) answers[i] = serializeError(e.id, toErrorObject(e.error))
      else if (decisions[i]!.kind === 'forward') {
        if (ctx.local?.has(e.call.method)) pending.push(forwardLocal(ctx, e.call, i, answers, failures))
        else if (sentAlone(ctx, e.call)) aloneAt.push(i)
        else {
          // Finalized and by-hash answers the cache holds need not go with the batch (docs/caching.md).
          const hit = layers?.batchHit(e.call)
          if (hit === undefined) forwardAt.push(i)
          else {
            answers[i] = e.call.hasId ? hit.toString() : undefined
            cachedAt.push(i)
          }
        }
      } else {
        const d = decisions[i]!
        answers[i] = !e.call.hasId
          ? undefined
          : d.kind === 'result'
            ? serializeResult(e.call.id, d.result)
            : serializeError(e.call.id, toErrorObject((d as { error: ChaingateError }).error))
      }
    })
    if (aloneAt.length > 0)
      pending.push(
        forwardAlone(
          ctx,
          metrics,
          aloneAt.map((i) => (entries[i] as { call: RpcCall }).call),
          aloneAt,
          answers,
          failures,
          alone,
        ),
      )
    let batchAnswer: UpstreamAnswer | undefined
    if (forwardAt.length > 0)
      pending.push(
        forwardMany(
          ctx,
          metrics,
          forwardAt.map((i) => (entries[i] as { call: RpcCall }).call),
          forwardAt,
          answers,
          failures,
          deps.layers,
        ).then((a) => {
          batchAnswer = a
        }),
      )
    await Promise.all(pending)

    const present = answers.filter((a): a is string => a !== undefined)
    const body = present.length === 0 ? undefined : batch ? `[${present.join(',')}]` : present[0]!
    const ok = delivered(ctx, body)
    let total = batch && ok ? costs.batchEnvelope : 0
    const t = clock.now()
    entries.forEach((e, i) => {
      const failure = failures[i]
      const credits = ok && failure === undefined ? prices[i]! : 0
      total += credits
      const answer = answers[i]
      const failed = !e.ok || failure !== undefined || (answer !== undefined && isErrorAnswer(answer))
      const errorKind = !ok
        ? `${ctx.transport}:undelivered`
        : !failed
          ? undefined
          : failure !== undefined
            ? `http:${failure.httpStatus}`
            : `rpc:${answer === undefined ? 'unknown' : (errorCodeOf(answer) ?? 'unknown')}`
      const result = !ok
        ? 'undelivered'
        : !failed
          ? 'ok'
          : failure !== undefined && nodeDown(failure)
            ? 'unavailable'
            : 'error'
      settle.call(entry, network.name, e.ok ? e.call.method : '(invalid)', credits, result, errorKind, t)
    })
    // Sent as one body: each call in it cost the batch's upstream requests (providers bill per call).
    for (const i of forwardAt) {
      const m = (entries[i] as { call: RpcCall }).call.method
      if (batchAnswer !== undefined)
        settle.upstream(
          network.name,
          m,
          batchAnswer.upstream,
          batchAnswer.attempts,
          batchAnswer.source,
          ok && failures[i] === undefined ? prices[i]! : 0,
          false,
          t,
        )
      else settle.upstream(network.name, m, NO_UPSTREAM, attemptsOf(failures[i]), undefined, 0, true, t)
    }
    for (const i of aloneAt) {
      const a = alone[i]
      const m = (entries[i] as { call: RpcCall }).call.method
      settle.upstream(
        network.name,
        m,
        a?.upstream ?? NO_UPSTREAM,
        a?.attempts ?? attemptsOf(failures[i]),
        undefined,
        ok && failures[i] === undefined ? prices[i]! : 0,
        a === undefined,
        t,
      )
    }
    for (const i of cachedAt) {
      metrics.served(network.name, 'cache')
      settle.upstream(
        network.name,
        (entries[i] as { call: RpcCall }).call.method,
        'cache',
        0,
        'cache',
        ok ? prices[i]! : 0,
        false,
        t,
      )
    }
    if (batch && ok && costs.batchEnvelope > 0) settle.envelope(entry, network.name, costs.batchEnvelope, t)
    settle.finish(entry, network.name, reserved, total, t)
    // A single call's status: 400 for an invalid envelope, 503/504 when the node was not reached.
    const first = entries[0]!
    const single = batch ? undefined : !first.ok ? first.error.code : failures[0]?.code
    return outcome({
      code: single,
      body,
      ids: undefined,
      batch,
      detail: undefined,
      credits: total,
      keyId: entry.id,
      method,
      calls: entries.length,
    })
  }

  const runAny = (
    ctx: CallContext,
    entries: ParsedEntry[],
    batch: boolean,
    raw: Buffer | string | undefined,
  ): MaybePromise<Outcome> => {
    const first = entries[0]
    if (!batch && entries.length === 1 && first!.ok && raw !== undefined) return runSingle(ctx, first.call, raw)
    return runEntries(ctx, entries, batch)
  }
  const run: Gateway['run'] = (ctx, entries, batch, raw) => {
    const out = runAny(ctx, entries, batch, raw)
    return out instanceof Promise ? out : Promise.resolve(out)
  }

  const afterAuthorize = (
    req: HttpRpcRequest,
    parsed: ParsedBody,
    calls: RpcCall[],
    auth: Authorized,
  ): MaybePromise<Outcome> => {
    const ctx = auth.ctx
    if (ctx !== undefined) ctx.client = req.client
    if (ctx === undefined) {
      const n = calls.length
      return refusedOutcome(auth, n === 1 ? calls[0]!.method : n > 1 ? 'batch' : '(none)', n)
    }
    if (parsed.kind === 'invalid') return invalidBody(ctx, parsed, true)
    if (parsed.kind === 'single')
      return parsed.entry.ok ? runSingle(ctx, parsed.entry.call, req.body!) : runEntries(ctx, [parsed.entry], false)
    return runEntries(ctx, parsed.entries, true)
  }

  return {
    run,
    handleHttp(req) {
      // Not an async function: a cached answer comes back without any promise, and one that waits for the node
      // as runSingle's own promise, without another wrapped around it (measurable per call). It still never
      // throws: a bug surfaces as a rejection.
      try {
        const parsed = parseBody(req.body, deps.maxBatchSize)
        const calls = callsOf(parsed)
        const auth = authorize(req, calls, 'http')
        return auth instanceof Promise
          ? auth.then((a) => afterAuthorize(req, parsed, calls, a))
          : afterAuthorize(req, parsed, calls, auth)
      } catch (err) {
        return Promise.reject(err)
      }
    },
    async connect(req) {
      const auth = await authorize(req, [], 'ws')
      if (auth.ctx === undefined) return auth
      // Sockets are closed when the daily balance runs out; a new one is refused until 00:00 UTC.
      const code = admit.connection(auth.ctx)
      if (code === null) return auth
      settle.refused(auth.ctx.network.name, code)
      return { ctx: undefined, code, credits: 0, keyId: auth.keyId, detail: undefined }
    },
    async handleMessage(ctx, text, headers) {
      const parsed = parseBody(text, deps.maxBatchSize)
      // An unparseable message is answered but not charged over WebSocket (docs/errors.md).
      if (parsed.kind === 'invalid') return invalidBody(ctx, parsed, false)
      const batch = parsed.kind === 'batch'
      const entries: ParsedEntry[] = batch ? parsed.entries : [parsed.entry]
      const security = ctx.entry.security
      if (security) {
        // Settings may change while the socket is open: checked per message with the upgrade's headers.
        const calls = callsOf(parsed).map((c) => ({ method: c.method, params: c.params }))
        const denied = await deps.checkAccess(security, { ...headers, calls })
        if (denied) {
          settle.refused(ctx.network.name, denied.code)
          const ids = entries.map((e) => (e.ok ? e.call.id : e.id))
          return outcome({
            code: denied.code,
            body: undefined,
            ids,
            batch,
            detail: undefined,
            credits: 0,
            keyId: ctx.entry.id,
            method: batch ? 'batch' : '(refused)',
            calls: entries.length,
          })
        }
      }
      return runAny(ctx, entries, batch, batch ? undefined : text)
    },
  }
}
