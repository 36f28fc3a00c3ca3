/**
 * The gateway's request pipeline: framework- and transport-free, never throws. Every request — an HTTP body, a
 * WebSocket message, an in-process call from the wallet — runs the same named steps (docs/architecture.md):
 *
 *   authorize (steps/authorize.ts) → parse → price (steps/price.ts) → admit (steps/admit.ts)
 *   → forward (steps/forward.ts) → deliver (WebSocket) → settle (steps/settle.ts)
 *
 * and ends as an Outcome (codes, credits, answer bytes) that src/gateway/http turns into a status, headers and body.
 */
import type { MaybePromise } from '../../shared/types.ts'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import { parseBody, serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { ParsedBody, ParsedEntry, RpcCall } from '../../jsonrpc/types.ts'
import { createAdmit } from './steps/admit.ts'
import { createAuthorize } from './steps/authorize.ts'
import { createRunEntries } from './run-entries.ts'
import { createRunSingle, type Refusal } from './run-single.ts'
import { createSettle } from './steps/settle.ts'
import { traced } from './trace-call.ts'
import { TRACING_OFF, type TraceSpan } from '../../observability/tracing.ts'
import {
  outcome,
  type Authorized,
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
  const { metrics } = deps
  const settle = createSettle(deps)
  const authorize = createAuthorize({ ...deps, settle })
  const admit = createAdmit(deps)
  const tracing = deps.tracing ?? TRACING_OFF

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

  const limited = (ctx: CallContext, { code, entries, batch, method, now }: Refusal): Outcome => {
    if (deps.requests !== undefined) {
      const status = `http:${ERROR_REGISTRY[code].httpStatus}`
      for (const e of entries) deps.requests.push(ctx, e.ok ? e.call.method : '(invalid)', status, 0, undefined, now)
    }
    settle.limited({
      entry: ctx.entry,
      network: ctx.network.name,
      code,
      method,
      methods: entries.map((e) => (e.ok ? e.call.method : '(invalid)')),
      now,
    })
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

  const runEntries = createRunEntries({ ...deps, settle, admit, limited, delivered })

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
    span: TraceSpan | undefined,
  ): MaybePromise<Outcome> => {
    const ctx = auth.ctx
    if (ctx !== undefined) {
      ctx.client = req.client
      ctx.arrivedAt = req.arrivedAt
    }
    if (span !== undefined) {
      span.event('authorize', auth.code === undefined ? { result: 'ok' } : { result: auth.code })
      if (ctx !== undefined) {
        ctx.span = span
        span.set('chaingate.network', ctx.network.name)
      }
    }
    if (ctx === undefined) {
      const n = calls.length
      return refusedOutcome(auth, n === 1 ? calls[0]!.method : n > 1 ? 'batch' : '(none)', n)
    }
    if (parsed.kind === 'invalid') return invalidBody(ctx, parsed, true)
    if (parsed.kind === 'single')
      return parsed.entry.ok ? runSingle(ctx, parsed.entry.call, req.body!) : runEntries(ctx, [parsed.entry], false)
    return runEntries(ctx, parsed.entries, true)
  }

  /**
   * The span starts once the key is looked up, timed from the call's arrival: only a call whose key is valid may
   * have the client's sampled `traceparent` force a trace; one refused before (no key, an unknown one) is traced
   * only when the ratio picks it, so keyless calls cannot fill the collector (docs/deploy.md, "Traces").
   */
  const tracedHttp = (req: HttpRpcRequest, parsed: ParsedBody, calls: RpcCall[]): MaybePromise<Outcome> => {
    const startedAt = performance.now()
    const name = parsed.kind === 'batch' ? 'rpc batch' : 'rpc call'
    const begin = (a: Authorized): MaybePromise<Outcome> => {
      const span = tracing.start(
        name,
        req.traceparent,
        { 'chaingate.transport': 'http' },
        startedAt,
        a.ctx !== undefined,
      )
      const out = afterAuthorize(req, parsed, calls, a, span)
      return span === undefined ? out : traced(span, out)
    }
    const auth = authorize(req, calls, 'http')
    return auth instanceof Promise ? auth.then(begin) : begin(auth)
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
        if (tracing.on) return tracedHttp(req, parsed, calls)
        const auth = authorize(req, calls, 'http')
        return auth instanceof Promise
          ? auth.then((a) => afterAuthorize(req, parsed, calls, a, undefined))
          : afterAuthorize(req, parsed, calls, auth, undefined)
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
      if (!tracing.on) return runAny(ctx, entries, batch, batch ? undefined : text)
      const span = tracing.start(batch ? 'ws batch' : 'ws message', headers.traceparent, {
        'chaingate.transport': 'ws',
      })
      if (span === undefined) return runAny(ctx, entries, batch, batch ? undefined : text)
      span.set('chaingate.network', ctx.network.name)
      // The socket's context serves every message, several at once: a traced message gets its own copy.
      return traced(span, runAny({ ...ctx, span }, entries, batch, batch ? undefined : text))
    },
  }
}
