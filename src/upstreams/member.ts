/**
 * One node of a pool and the one way to send it a body (src/upstreams/pool.ts chooses which node). Sending also
 * judges the answer: a failure to connect or a 5xx cools the node down for a moment; a provider refusal (HTTP
 * 429/401/402/403, or a quota/credential JSON-RPC error: src/upstreams/classify.ts) takes it out of rotation for a
 * back-off; a body refused for its size is the client's error (BODY_TOO_LARGE) and leaves the node alone.
 */
import { errors as undiciErrors } from 'undici'
import { ChaingateError, errors } from '../errors/index.ts'
import { isErrorAnswer } from '../jsonrpc/envelope.ts'
import { refusalError, refusalOfAnswer, refusalOfError, refusalOfStatus, type ProviderRefusal } from './classify.ts'
import type { Member, RequestControl, UpstreamAnswer } from './member-types.ts'

export type { Member, RequestControl, UpstreamAnswer } from './member-types.ts'

/** The gateway gave up on the request itself (hedge lost, client gone): says nothing about the node. */
export class CancelledError extends Error {}

/**
 * A failed call's error says how many upstream requests it made (`attempts`, as on an answer): the usage record
 * counts them. One here; the pool sets the total when it tried several nodes.
 */
export function counted<E extends Error>(err: E, attempts = 1): E {
  ;(err as E & { attempts?: number }).attempts = attempts
  return err
}

/** Failures where the node surely never got the request (a refused connection): safe to retry any method. */
export const notDelivered = new WeakSet<Error>()

export interface SendSettings {
  network: string
  cooldownMs: number
}

/** A provider refusing the gateway's credentials is not retried sooner than this (the config must change). */
export const AUTH_BACKOFF_MS = 30_000
const MIN_RATE_BACKOFF_MS = 1000
const MAX_BACKOFF_MS = 60_000

/**
 * A body at least this large that the node stops reading (EPIPE / ECONNRESET while sending) was most likely
 * refused for its size; a smaller one means the node is in trouble.
 */
const LARGE_BODY_BYTES = 1024 * 1024

/** One call (or batch) to one node; settles with its answer, or with the gateway error saying why there is none. */
export function post(m: Member, body: string | Buffer, timeoutMs: number, s: SendSettings, ctl?: RequestControl): Promise<UpstreamAnswer> {
  if (m.pool === undefined) return overWebSocket(m, body, timeoutMs, s)
  const pool = m.pool
  return new Promise((resolve, reject) => {
    pool.dispatch(
      { method: 'POST', path: m.path, headers: m.headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      new ForwardHandler(m, timeoutMs, s, body.length, resolve, reject, ctl),
    )
  })
}

/** Takes a node out of rotation after a provider refusal; returns the error the call fails with. */
export function block(m: Member, refusal: ProviderRefusal, detail: string, s: SendSettings, retryAfterMs?: number): ChaingateError {
  const ms =
    refusal === 'auth-failed'
      ? AUTH_BACKOFF_MS
      : Math.min(MAX_BACKOFF_MS, retryAfterMs ?? (m.backoffMs = Math.min(MAX_BACKOFF_MS, m.backoffMs === 0 ? MIN_RATE_BACKOFF_MS : m.backoffMs * 2)))
  m.refusal = refusal
  m.refusalDetail = detail
  m.blockedUntil = Date.now() + ms
  m.usable = false
  return refusalError(s.network, refusal, detail, ms)
}

/**
 * undici's dispatcher handler, in its native (v1) form so undici does not wrap it in an adapter that parses the
 * answer's headers: the chunks are collected straight into a Buffer, without the Readable stream and promises of
 * `request()` (measurable on the per-call path). Deadlines are undici's own: time to the answer's headers, then
 * between body chunks.
 */
class ForwardHandler {
  private status = 0
  private retryAfterMs: number | undefined
  private chunks: Buffer[] = []
  private readonly started = performance.now()
  private readonly m: Member
  private readonly timeoutMs: number
  private readonly s: SendSettings
  /** Size of the request (characters for a string body: a lower bound of its bytes). */
  private readonly requestSize: number
  private readonly resolve: (answer: UpstreamAnswer) => void
  private readonly reject: (err: Error) => void
  private readonly ctl: RequestControl | undefined
  constructor(
    m: Member,
    timeoutMs: number,
    s: SendSettings,
    requestSize: number,
    resolve: (answer: UpstreamAnswer) => void,
    reject: (err: Error) => void,
    ctl: RequestControl | undefined,
  ) {
    this.m = m
    this.timeoutMs = timeoutMs
    this.s = s
    this.requestSize = requestSize
    this.resolve = resolve
    this.reject = reject
    this.ctl = ctl
  }
  onConnect(abort: (err: Error) => void) {
    const ctl = this.ctl
    if (ctl === undefined) return
    if (ctl.cancelled) abort(new CancelledError('cancelled'))
    else ctl.abort = abort
  }
  onHeaders(statusCode: number, rawHeaders: Buffer[]) {
    this.status = statusCode
    if (statusCode === 429) this.retryAfterMs = retryAfter(rawHeaders)
    return true
  }
  onData(chunk: Buffer) {
    this.chunks.push(chunk)
    return true
  }
  onComplete() {
    const answer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    const status = this.status
    const first = answer[0]
    const byStatus = refusalOfStatus(status)
    if (byStatus !== undefined) {
      this.reject(counted(block(this.m, byStatus, `HTTP ${status}`, this.s, this.retryAfterMs)))
      return
    }
    // No content is the node's answer to notifications only (anvil: 204): a healthy node, nothing to pass on.
    const noContent = answer.length === 0 && status >= 200 && status < 300
    // 0x7b '{', 0x5b '[': anything else (an HTML error page, an empty 5xx) is not a JSON-RPC answer.
    if (status >= 500 || status === 413 || (!noContent && first !== 0x7b && first !== 0x5b)) {
      this.onError(new UpstreamHttpError(status, answer.subarray(0, 200).toString()))
      return
    }
    // Only error answers are read further (the allocation-free first-key test); a batch only if it holds one.
    const isError = first === 0x7b && isErrorAnswer(answer)
    if (isError || (first === 0x5b && answer.includes('"error"'))) {
      const refused = refusalOfAnswer(answer)
      if (refused !== undefined) {
        this.m.stats.recordFailure()
        this.reject(counted(block(this.m, refused.refusal, `JSON-RPC error ${refused.code}`, this.s)))
        return
      }
    }
    const m = this.m
    m.downUntil = 0
    m.backoffMs = 0
    m.breaker.success()
    const latencyMs = performance.now() - this.started
    m.stats.recordLatency(latencyMs)
    this.resolve({ body: answer, latencyMs, upstream: m.label, attempts: 1, isError })
  }
  onError(err: Error) {
    if (refusedForSize(err, this.status, this.requestSize)) {
      this.reject(tooLarge(this.s.network, undefined))
      return
    }
    if (this.ctl?.cancelled) {
      this.reject(err instanceof CancelledError ? err : new CancelledError('cancelled'))
      return
    }
    const now = Date.now()
    this.m.downUntil = now + this.s.cooldownMs
    this.m.stats.recordFailure()
    this.m.breaker.failure(now)
    const e = toGatewayError(this.s.network, err, this.timeoutMs)
    if ((err as { code?: string }).code === 'ECONNREFUSED') notDelivered.add(e)
    this.reject(counted(e))
  }
}

/** Retry-After in seconds (the HTTP-date form is rare from RPC providers: left to the back-off). */
function retryAfter(raw: Buffer[]): number | undefined {
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.length === 11 && raw[i]!.toString().toLowerCase() === 'retry-after') {
      const seconds = Number(raw[i + 1]!.toString())
      return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : undefined
    }
  }
  return undefined
}

/** A node reached only by ws(s): the body is parsed to give the call the connection's own id, and serialized back. */
async function overWebSocket(m: Member, body: string | Buffer, timeoutMs: number, s: SendSettings): Promise<UpstreamAnswer> {
  const started = performance.now()
  let answer: unknown
  try {
    answer = await m.socket!.request(JSON.parse(body.toString()), timeoutMs)
  } catch (err) {
    const now = Date.now()
    m.downUntil = now + s.cooldownMs
    m.stats.recordFailure()
    m.breaker.failure(now)
    throw counted(err as Error) // already a gateway error naming the network
  }
  const error = (answer as { error?: { code?: unknown; message?: unknown } } | null)?.error
  const refusal = error ? refusalOfError(error.code, error.message) : undefined
  if (refusal !== undefined) {
    m.stats.recordFailure()
    throw counted(block(m, refusal, `JSON-RPC error ${String(error!.code)}`, s))
  }
  m.downUntil = 0
  m.backoffMs = 0
  m.breaker.success()
  const latencyMs = performance.now() - started
  m.stats.recordLatency(latencyMs)
  return { body: Buffer.from(JSON.stringify(answer)), latencyMs, upstream: m.label, attempts: 1, isError: error !== undefined && !Array.isArray(answer) }
}

/** Whether the node refused the request for its size: HTTP 413, or it stopped reading a large body. */
function refusedForSize(err: Error, status: number, requestSize: number): boolean {
  if (err instanceof UpstreamHttpError) return err.status === 413
  const code = (err as { code?: string }).code
  return status === 0 && requestSize >= LARGE_BODY_BYTES && (code === 'EPIPE' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
}

export function tooLarge(network: string, maxBytes: number | undefined) {
  const limit = maxBytes === undefined ? '' : `: at most ${maxBytes} bytes`
  return new ChaingateError('BODY_TOO_LARGE', `request too large for network ${network}${limit}`, { rpcCode: -32600, httpStatus: 413 })
}

class UpstreamHttpError extends Error {
  readonly status: number
  readonly snippet: string
  constructor(status: number, snippet: string) {
    super(`node answered HTTP ${status}`)
    this.status = status
    this.snippet = snippet
  }
}

function toGatewayError(network: string, err: unknown, timeoutMs: number) {
  if (err instanceof UpstreamHttpError) return errors.upstreamUnavailable(network, err.message)
  const e = err as { name?: string; code?: string; message?: string }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || err instanceof undiciErrors.HeadersTimeoutError || err instanceof undiciErrors.BodyTimeoutError)
    return errors.upstreamTimeout(network, timeoutMs)
  return errors.upstreamUnavailable(network, e?.code === 'ECONNREFUSED' ? 'the node refused the connection' : (e?.code ?? e?.message ?? 'unknown error'))
}
