/**
 * The gateway's request pipeline, framework-free: plain input in, plain output out, never throws.
 * Order (../shared/reference/infura.md §10): network → key → secret and JWT → network enabled → allowlists → body → credits and
 * limits → method policy → upstream → settle the charge, record usage, metrics, one log line.
 */
import type { KeyEntry, KeySnapshot } from '../api-keys/snapshot.ts'
import type { CostTable } from '../credits/costs.ts'
import type { LimitRejection, LimitStore } from '../credits/limits.ts'
import type { UsageLedger } from '../credits/usage-ledger.ts'
import { ChaingateError } from '../errors/index.ts'
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
} from '../jsonrpc/envelope.ts'
import type { Network, NetworkRegistry } from '../networks/registry.ts'
import type { Metrics } from '../observability/metrics.ts'
import { decide } from '../rpc-methods/policy.ts'
import type { UpstreamPool } from '../upstreams/pool.ts'
import { authErrors, limitBody } from './responses.ts'
import type { AccessCheck } from './access.ts'

export interface Clock {
  now(): number
}

export interface GatewayDeps {
  networks: NetworkRegistry
  keys: KeySnapshot
  pools: Map<string, UpstreamPool>
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  maxBatchSize: number
  /** Key security (secret, JWT, allowlists); absent = no key has any. */
  checkAccess?: AccessCheck
  /** Told when an account's daily balance runs out, so its WebSockets can be closed. */
  onDailyExhausted?: (accountId: string) => void
}

export interface HttpRpcRequest {
  /** Undefined when neither the Host nor the path named a known network. */
  network: Network | undefined
  /** What the client asked for (host or path name), for the 404 message. */
  networkLabel: string
  /** The key from the path; undefined when missing (or followed by more path). */
  key: string | undefined
  body: Buffer | undefined
  authorization?: string | undefined
  origin?: string | undefined
  userAgent?: string | undefined
}

/** Always built by `respond` (one object shape, so the code reading it stays monomorphic). */
export interface GatewayResponse {
  status: number
  contentType: string
  /** Undefined for 204 (only notifications were sent). A node's answer to a single call stays bytes. */
  body: string | Buffer | undefined
  headers: Record<string, string> | undefined
  /** Credits this request cost. */
  credits: number
  /** For the log line. */
  keyId: string | undefined
  method: string
  calls: number
  /** Set when a limit refused the request (402/429). */
  rejected: LimitRejection | undefined
}

export function respond(
  status: number,
  contentType: string,
  body: string | Buffer | undefined,
  credits: number,
  keyId: string | undefined,
  method: string,
  calls: number,
  headers?: Record<string, string>,
  rejected?: LimitRejection,
): GatewayResponse {
  return { status, contentType, body, headers, credits, keyId, method, calls, rejected }
}

/** Answers a call in place of the node (e.g. eth_subscribe in a WebSocket session); throws when the node is unreachable. */
export type LocalMethod = (call: RpcCall) => Promise<string | undefined>

/** Per-request context once the key and network are known. */
export interface CallContext {
  entry: KeyEntry
  network: Network
  pool: UpstreamPool
  transport: 'http' | 'ws'
  /** Methods the caller answers itself, admitted, charged and recorded like forwarded calls. */
  local?: ReadonlyMap<string, LocalMethod>
}

/** Why a call the node should have answered got no answer: free (5xx, I§1.4). */
const unavailable = (err: unknown, network: string) =>
  err instanceof ChaingateError ? err : new ChaingateError('UPSTREAM_UNAVAILABLE', `network ${network} is unavailable`, { httpStatus: 503 })

export interface ExecutedCalls {
  /** Serialized answers in call order; undefined for notifications. */
  answers: (string | undefined)[]
  /** Credits finally charged for these calls. */
  credits: number
  /** Every forwarded call failed because the node was unreachable. */
  allUnavailable: boolean
  unavailableError?: ChaingateError
  /** Set when limits refused the whole request. */
  rejected?: LimitRejection
  /** Set when the request was a single, invalid call (HTTP 400). */
  invalidSingle?: boolean
}

const JSON_TYPE = 'application/json'

export interface Gateway {
  handleHttp(req: HttpRpcRequest): Promise<GatewayResponse>
  /** Runs parsed calls for a known key and network: used by HTTP, WebSocket sessions and the wallet. */
  execute(ctx: CallContext, entries: ParsedEntry[], opts: { batch: boolean; rawSingle?: Buffer | string }): Promise<ExecutedCalls>
  /** Resolves a key for a network as the HTTP path does; returns the refusal otherwise. */
  authorize(req: Omit<HttpRpcRequest, 'body'>, calls: RpcCall[]): Promise<{ ctx: CallContext } | { refusal: GatewayResponse }>
}

export function createGateway(deps: GatewayDeps): Gateway {
  const { costs, limits, ledger, metrics, clock } = deps

  const TEXT = 'text/plain; charset=utf-8'

  /** Charges the 5-credit input-error fee to a known key for a refused HTTP request (I§1.4). */
  const chargeInputError = (entry: KeyEntry, network: string, status: number): number => {
    const fee = costs.inputError
    const now = clock.now()
    limits.adjust(entry.accountId, entry.id, fee, now)
    ledger.record({ accountId: entry.accountId, keyId: entry.id, network, method: '(invalid)', calls: 1, credits: fee, errors: 1, errorKind: `http:${status}` }, now)
    metrics.credits(network, fee)
    return fee
  }

  type Authorized = { ctx: CallContext } | { refusal: GatewayResponse }

  /** Synchronous unless the key has security settings to check (then a promise): most requests never await. */
  const authorizeFast = (req: Omit<HttpRpcRequest, 'body'>, calls: RpcCall[]): Authorized | Promise<Authorized> => {
    const n = calls.length
    const method = n === 1 ? calls[0]!.method : n > 1 ? 'batch' : '(none)'
    const network = req.network
    if (!network) {
      const body = `unknown network "${req.networkLabel}": known networks are ${deps.networks.describe()}\n`
      return { refusal: respond(404, TEXT, body, 0, undefined, method, n) }
    }
    if (req.key === undefined) return { refusal: respond(401, TEXT, authErrors.keyRequired, 0, undefined, method, n) }
    const entry = deps.keys.get(req.key) // any string: what is not a key is simply not found
    if (!entry)
      return { refusal: respond(401, TEXT, authErrors.invalidKey, 0, undefined, method, n, { 'www-authenticate': 'Basic realm="Auth failure, invalid project id"' }) }
    if (!entry.security || !deps.checkAccess) return networkCheck(entry, network, method, n)
    return deps
      .checkAccess(entry.security, {
        authorization: req.authorization,
        origin: req.origin,
        userAgent: req.userAgent,
        calls: calls.map((c) => ({ method: c.method, params: c.params })),
      })
      .then((denied): Authorized => {
        // Infura's order (I§10): secret and JWT (401), then the network (401), then the allowlists (403).
        if (!denied || denied.status === 403) {
          const checked = networkCheck(entry, network, method, n)
          if (!denied || 'refusal' in checked) return checked
        }
        const credits = chargeInputError(entry, network.name, denied.status)
        return { refusal: respond(denied.status, denied.contentType, denied.body, credits, entry.id, method, n) }
      })
  }
  const networkCheck = (entry: KeyEntry, network: Network, method: string, calls: number): Authorized => {
    if (!entry.networks.has(network.name)) {
      const credits = chargeInputError(entry, network.name, 401)
      return { refusal: respond(401, TEXT, authErrors.networkNotEnabled, credits, entry.id, method, calls) }
    }
    return { ctx: { entry, network, pool: deps.pools.get(network.name)!, transport: 'http' } }
  }
  const authorize: Gateway['authorize'] = async (req, calls) => authorizeFast(req, calls)

  const execute: Gateway['execute'] = async (ctx, entries, opts) => {
    const first = entries[0]
    if (!opts.batch && entries.length === 1 && first?.ok && opts.rawSingle !== undefined) {
      // One call (WebSocket, in-process): the same rules as an HTTP single call, in one place.
      const out = await executeSingle(ctx, first.call, opts.rawSingle)
      return {
        answers: [out.body === undefined ? undefined : out.body.toString()],
        credits: out.credits,
        allUnavailable: out.status >= 500,
        ...(out.rejected ? { rejected: out.rejected } : {}),
      }
    }
    const { entry, network, pool } = ctx
    const now = clock.now()
    // Price every call up front and reserve it all, so concurrent requests cannot overshoot a limit.
    const decisions = entries.map((e) => (e.ok ? decide(e.call, ctx.transport, ctx.network.methods) : undefined))
    let reserved = opts.batch ? costs.batchEnvelope : 0
    const prices = entries.map((e, i) => {
      const d = decisions[i]
      const price = !e.ok || d?.kind === 'error' ? costs.inputError : costs.method(network.name, e.call.method)
      reserved += price
      return price
    })
    const rejection = limits.admit(entry.limits, reserved, now)
    if (rejection) {
      // Over WebSocket the session answers first, then closes; over HTTP the account's sockets close now.
      if (rejection === 'DAILY_CREDITS_EXHAUSTED' && ctx.transport === 'http') deps.onDailyExhausted?.(entry.accountId)
      ledger.record(
        { accountId: entry.accountId, keyId: entry.id, network: network.name, method: opts.batch ? 'batch' : entries[0]!.ok ? entries[0]!.call.method : '(invalid)', calls: entries.length, credits: 0, errors: entries.length, errorKind: `http:${rejection === 'DAILY_CREDITS_EXHAUSTED' ? 402 : 429}` },
        now,
      )
      return {
        answers: entries.map((e) => limitBody(rejection, e.ok ? e.call.id : e.id)),
        credits: 0,
        allUnavailable: false,
        rejected: rejection,
      }
    }

    const answers: (string | undefined)[] = new Array(entries.length)
    const charged: number[] = new Array(entries.length).fill(0)
    /** Per call, the error that left it unanswered (node unreachable). */
    const failures: (ChaingateError | undefined)[] = new Array(entries.length).fill(undefined)
    const forwardIdx: number[] = []
    const localIdx: number[] = []
    entries.forEach((e, i) => {
      if (!e.ok) {
        answers[i] = serializeError(e.id, toErrorObject(e.error))
        charged[i] = prices[i]!
        return
      }
      const d = decisions[i]!
      if (d.kind === 'forward') (ctx.local?.has(e.call.method) ? localIdx : forwardIdx).push(i)
      else {
        answers[i] = !e.call.hasId
          ? undefined
          : d.kind === 'result'
            ? serializeResult(e.call.id, d.result)
            : serializeError(e.call.id, toErrorObject(d.error))
        charged[i] = prices[i]!
      }
    })

    const local = localIdx.map(async (i) => {
      const call = (entries[i] as { call: RpcCall }).call
      try {
        answers[i] = await ctx.local!.get(call.method)!(call)
        charged[i] = prices[i]!
      } catch (err) {
        failures[i] = unavailable(err, network.name)
        answers[i] = call.hasId ? serializeError(call.id, toErrorObject(failures[i]!)) : undefined
      }
    })
    if (forwardIdx.length > 0) {
      const started = performance.now()
      try {
        // Several calls: one batch to the node with our own ids, mapped back (clients may repeat ids).
        const calls = forwardIdx.map((i) => (entries[i] as { call: RpcCall }).call)
        const body = `[${calls.map((c, j) => JSON.stringify({ jsonrpc: '2.0', id: j, method: c.method, params: c.params ?? [] })).join(',')}]`
        const answer = await pool.send(body)
        metrics.upstreamLatency(network.name, answer.latencyMs / 1000)
        const parsed = JSON.parse(answer.body.toString()) as unknown
        const byId = new Map<number, Record<string, unknown>>()
        if (Array.isArray(parsed)) for (const a of parsed) if (a && typeof a === 'object' && typeof a.id === 'number') byId.set(a.id, a)
        forwardIdx.forEach((i, j) => {
          const call = calls[j]!
          const a = byId.get(j)
          charged[i] = prices[i]!
          if (!call.hasId) return
          if (!a) answers[i] = serializeError(call.id, { code: -32603, message: `network ${network.name}: the node gave no answer for this call` })
          else if ('error' in a) answers[i] = serializeError(call.id, a.error as never)
          else answers[i] = serializeResult(call.id, a.result)
        })
      } catch (err) {
        // The node could not be reached: these calls are free (5xx, I§1.4).
        const e = unavailable(err, network.name)
        for (const i of forwardIdx) {
          const call = (entries[i] as { call: RpcCall }).call
          failures[i] = e
          answers[i] = call.hasId ? serializeError(call.id, toErrorObject(e)) : undefined
          charged[i] = 0
        }
        metrics.upstreamLatency(network.name, (performance.now() - started) / 1000)
      }
    }
    await Promise.all(local)

    // Settle: what was reserved minus what the answers actually cost.
    let total = opts.batch ? costs.batchEnvelope : 0
    const t = clock.now()
    entries.forEach((e, i) => {
      total += charged[i]!
      const method = e.ok ? e.call.method : '(invalid)'
      const answer = answers[i]
      const failure = failures[i]
      const failed = !e.ok || failure !== undefined || (answer !== undefined && isErrorAnswer(answer))
      const errorKind = !failed
        ? undefined
        : failure !== undefined
          ? `http:${failure.httpStatus}`
          : `rpc:${answer === undefined ? 'unknown' : (errorCodeOf(answer) ?? 'unknown')}`
      ledger.record({ accountId: entry.accountId, keyId: entry.id, network: network.name, method, calls: 1, credits: charged[i]!, errors: failed ? 1 : 0, errorKind }, t)
      metrics.call(network.name, method, failed ? (failure !== undefined ? 'unavailable' : 'error') : 'ok')
    })
    if (opts.batch && costs.batchEnvelope > 0)
      ledger.record({ accountId: entry.accountId, keyId: entry.id, network: network.name, method: 'batch', calls: 0, credits: costs.batchEnvelope, errors: 0 }, t)
    limits.adjust(entry.accountId, entry.id, total - reserved, t)
    metrics.credits(network.name, total)
    const firstFailure = failures.find((f) => f !== undefined)
    return {
      answers,
      credits: total,
      allUnavailable: failures.every((f) => f !== undefined),
      ...(firstFailure ? { unavailableError: firstFailure } : {}),
      invalidSingle: !opts.batch && !entries[0]!.ok,
    }
  }

  /**
   * The common case, one valid call over HTTP, without the batch bookkeeping: same rules as `execute`, and the
   * node's answer goes back as the bytes it sent.
   */
  const executeSingle = async (ctx: CallContext, call: RpcCall, raw: Buffer | string): Promise<GatewayResponse> => {
    const { entry, network } = ctx
    const decision = decide(call, ctx.transport, ctx.network.methods)
    const price = decision.kind === 'error' ? costs.inputError : costs.method(network.name, call.method)
    const now = clock.now()
    const rejection = limits.admit(entry.limits, price, now)
    if (rejection) {
      const status = rejection === 'DAILY_CREDITS_EXHAUSTED' ? 402 : 429
      // Over WebSocket the session answers first, then closes; over HTTP the account's sockets close now.
      if (status === 402 && ctx.transport === 'http') deps.onDailyExhausted?.(entry.accountId)
      ledger.record({ accountId: entry.accountId, keyId: entry.id, network: network.name, method: call.method, calls: 1, credits: 0, errors: 1, errorKind: `http:${status}` }, now)
      metrics.call(network.name, call.method, `http_${status}`)
      return respond(status, JSON_TYPE, limitBody(rejection, call.id), 0, entry.id, call.method, 1, undefined, rejection)
    }
    let status = 200
    let body: string | Buffer | undefined
    let charged = price
    let errorKind: string | undefined
    let outcome = 'ok'
    if (decision.kind === 'forward') {
      try {
        const local = ctx.local?.get(call.method)
        if (local === undefined) {
          const answer = await ctx.pool.send(raw)
          metrics.upstreamLatency(network.name, answer.latencyMs / 1000)
          body = answer.body
        } else body = await local(call)
        if (body !== undefined && isErrorAnswer(body)) {
          outcome = 'error'
          errorKind = `rpc:${errorCodeOf(body) ?? 'unknown'}`
        }
      } catch (err) {
        // The node could not be reached: free (5xx, I§1.4).
        const e = unavailable(err, network.name)
        status = e.httpStatus
        body = serializeError(call.id, toErrorObject(e))
        charged = 0
        outcome = 'unavailable'
        errorKind = `http:${status}`
      }
    } else if (decision.kind === 'result') body = serializeResult(call.id, decision.result)
    else {
      body = serializeError(call.id, toErrorObject(decision.error))
      outcome = 'error'
      errorKind = `rpc:${decision.error.rpcCode}`
    }
    const t = charged === price ? now : clock.now()
    if (charged !== price) limits.adjust(entry.accountId, entry.id, charged - price, t)
    ledger.record({ accountId: entry.accountId, keyId: entry.id, network: network.name, method: call.method, calls: 1, credits: charged, errors: outcome === 'ok' ? 0 : 1, errorKind }, t)
    metrics.call(network.name, call.method, outcome)
    metrics.credits(network.name, charged)
    if (!call.hasId) return respond(204, JSON_TYPE, undefined, charged, entry.id, call.method, 1)
    return respond(status, JSON_TYPE, body, charged, entry.id, call.method, 1)
  }

  return {
    authorize,
    execute,
    handleHttp(req) {
      // Not an async function: the common case hands back executeSingle's own promise, without another promise
      // wrapped around it (measurable per call). It still never throws: a bug surfaces as a rejection.
      try {
        const parsed = parseBody(req.body, deps.maxBatchSize)
        const calls: RpcCall[] =
          parsed.kind === 'single' ? (parsed.entry.ok ? [parsed.entry.call] : []) : parsed.kind === 'batch' ? parsed.entries.flatMap((e) => (e.ok ? [e.call] : [])) : []
        const auth = authorizeFast(req, calls)
        return auth instanceof Promise ? auth.then((a) => afterAuthorize(req, parsed, a)) : afterAuthorize(req, parsed, auth)
      } catch (err) {
        return Promise.reject(err)
      }
    },
  }

  function afterAuthorize(req: HttpRpcRequest, parsed: ParsedBody, auth: Authorized): Promise<GatewayResponse> {
    if ('refusal' in auth) {
      if (auth.refusal.status === 404 || auth.refusal.status === 401) metrics.call(req.network?.name ?? 'unknown', '(refused)', `http_${auth.refusal.status}`)
      return Promise.resolve(auth.refusal)
    }
    const { ctx } = auth
    if (parsed.kind === 'invalid') {
      const status = parsed.error.httpStatus
      const credits = chargeInputError(ctx.entry, ctx.network.name, status)
      metrics.call(ctx.network.name, '(invalid)', 'error')
      return Promise.resolve(respond(status, JSON_TYPE, serializeError(null, toErrorObject(parsed.error)), credits, ctx.entry.id, '(invalid)', 0))
    }
    if (parsed.kind === 'single' && parsed.entry.ok) return executeSingle(ctx, parsed.entry.call, req.body!)
    return executeEntries(req, ctx, parsed)
  }

  async function executeEntries(req: HttpRpcRequest, ctx: CallContext, parsed: ParsedBody & { kind: 'single' | 'batch' }): Promise<GatewayResponse> {
    const batch = parsed.kind === 'batch'
    const entries = batch ? parsed.entries : [parsed.entry]
    const result = await execute(ctx, entries, { batch, rawSingle: batch ? undefined : req.body })
    const method = batch ? 'batch' : parsed.entry.ok ? parsed.entry.call.method : '(invalid)'
    const answer = (status: number, body: string | undefined) => respond(status, JSON_TYPE, body, result.credits, ctx.entry.id, method, entries.length, undefined, result.rejected)
    if (result.rejected) return answer(result.rejected === 'DAILY_CREDITS_EXHAUSTED' ? 402 : 429, batch ? `[${result.answers.join(',')}]` : result.answers[0]!)
    const present = result.answers.filter((a): a is string => a !== undefined)
    if (present.length === 0) return answer(204, undefined)
    if (!batch) return answer(result.invalidSingle ? 400 : result.allUnavailable ? result.unavailableError!.httpStatus : 200, present[0]!)
    return answer(200, `[${present.join(',')}]`)
  }
}
