/**
 * The nodes behind one network, as a pool even when it holds one node (failover and health are a later issue;
 * the seam is here). A call goes to the next healthy node; a node that fails to connect or answers 5xx is
 * skipped for `cooldownMs` and the call is tried on another one. When none answers, the caller gets an
 * UPSTREAM_UNAVAILABLE error naming the network — never a hang (every request has a deadline).
 *
 * A node is reached over HTTP (undici, keep-alive) or, when its `url` is ws(s), over one WebSocket
 * (src/upstreams/ws-connection.ts) for every call.
 *
 * A failure the request itself caused (a body larger than the node accepts) is the client's error: it answers
 * BODY_TOO_LARGE (413) and never puts the node into cooldown, so client input cannot look like an outage.
 */
import { Pool, errors as undiciErrors } from 'undici'
import { ChaingateError, errors } from '../errors/index.ts'
import { createWsRpcConnection, type WsRpcConnection } from './ws-connection.ts'

export interface UpstreamAnswer {
  /** The node's JSON-RPC answer, verbatim (bytes: a single call's answer goes back to the client untouched). */
  body: Buffer
  /** Milliseconds from sending to the full body. */
  latencyMs: number
  upstream: string
}

export interface UpstreamPool {
  readonly network: string
  /** Sends one JSON-RPC body (single or batch) and returns the node's answer text. */
  send(body: string | Buffer, opts?: { timeoutMs?: number }): Promise<UpstreamAnswer>
  /** WebSocket URLs of the nodes, for subscriptions. */
  readonly wsUrls: string[]
  close(): Promise<void>
}

/** anvil refuses request bodies over 2 MiB (answering -32600 with `id: null`, or closing the connection: EPIPE). */
export const EMBEDDED_MAX_REQUEST_BYTES = 2 * 1024 * 1024

/**
 * A body at least this large that the node stops reading (EPIPE / ECONNRESET while sending) was most likely
 * refused for its size; a smaller one means the node is in trouble.
 */
const LARGE_BODY_BYTES = 1024 * 1024

export interface UpstreamEndpoint {
  url: string
  wsUrl?: string
}

interface Member {
  url: URL
  path: string
  /** Built once: the same object goes with every request. */
  headers: Record<string, string>
  label: string
  /** HTTP(S) nodes. */
  pool: Pool | undefined
  /** ws(s) nodes. */
  socket: WsRpcConnection | undefined
  downUntil: number
}

const isWebSocketUrl = (url: string) => /^wss?:/i.test(url)

/** http://user:pass@host/path?x → host/path: node URLs often embed provider keys, never show them. */
export const redactUrl = (u: URL) => `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`

export function createUpstreamPool(
  network: string,
  endpoints: UpstreamEndpoint[],
  opts: {
    timeoutMs: number
    connections?: number
    cooldownMs?: number
    /** Largest body sent to the node (config `networks[].maxRequestBytes`); larger ones answer 413 without contacting it. */
    maxRequestBytes?: number | undefined
  },
): UpstreamPool {
  const cooldownMs = opts.cooldownMs ?? 2000
  const maxRequestBytes = opts.maxRequestBytes ?? Infinity
  const members: Member[] = endpoints.map((e) => {
    const url = new URL(e.url)
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (url.username)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    return {
      url,
      path: `${url.pathname}${url.search}`,
      headers,
      label: redactUrl(url),
      pool: isWebSocketUrl(e.url)
        ? undefined
        : new Pool(url.origin, {
            connections: opts.connections ?? 128,
            keepAliveTimeout: 30_000,
            headersTimeout: opts.timeoutMs,
            bodyTimeout: opts.timeoutMs,
            connectTimeout: Math.min(opts.timeoutMs, 5000),
          }),
      socket: isWebSocketUrl(e.url) ? createWsRpcConnection(e.url, { network, timeoutMs: opts.timeoutMs }) : undefined,
      downUntil: 0,
    }
  })
  let next = 0

  return {
    network,
    wsUrls: endpoints.map((e) => e.wsUrl ?? e.url.replace(/^http/i, 'ws')),
    send(body, sendOpts) {
      const timeoutMs = sendOpts?.timeoutMs ?? opts.timeoutMs
      // body.length counts UTF-16 units for a string: a cheap lower bound; only a candidate pays for the byte count.
      if (body.length * 3 > maxRequestBytes && (typeof body === 'string' ? Buffer.byteLength(body) : body.length) > maxRequestBytes)
        return Promise.reject(tooLarge(network, maxRequestBytes))
      // One node (the common case): no rotation to compute, one promise per call.
      if (members.length === 1) return post(members[0]!, body, timeoutMs, cooldownMs, network)
      return sendRotating(body, timeoutMs)
    },
    async close() {
      for (const m of members) m.socket?.close()
      await Promise.all(members.map((m) => m.pool?.close().catch(() => undefined)))
    },
  }

  async function sendRotating(body: string | Buffer, timeoutMs: number): Promise<UpstreamAnswer> {
    const now = Date.now()
    let lastError: unknown
    // Healthy members first, in rotation; then the cooling-down ones as a last resort.
    const order: Member[] = []
    for (let i = 0; i < members.length; i++) {
      const m = members[(next + i) % members.length]!
      if (m.downUntil <= now) order.push(m)
    }
    for (const m of members) if (m.downUntil > now) order.push(m)
    next = (next + 1) % members.length
    for (const m of order) {
      try {
        return await post(m, body, timeoutMs, cooldownMs, network)
      } catch (err) {
        // Refused for the request itself: another node would refuse it too.
        if (err instanceof ChaingateError && err.code === 'BODY_TOO_LARGE') throw err
        lastError = err
      }
    }
    throw lastError
  }
}

/** One call (or batch) to one node; settles with its answer, or with the gateway error saying why there is none. */
function post(m: Member, body: string | Buffer, timeoutMs: number, cooldownMs: number, network: string): Promise<UpstreamAnswer> {
  if (m.pool === undefined) return overWebSocket(m, body, timeoutMs, cooldownMs)
  const pool = m.pool
  return new Promise((resolve, reject) => {
    pool.dispatch(
      { method: 'POST', path: m.path, headers: m.headers, body, headersTimeout: timeoutMs, bodyTimeout: timeoutMs },
      new ForwardHandler(m, timeoutMs, cooldownMs, network, body.length, resolve, reject),
    )
  })
}

/**
 * undici's dispatcher handler, in its native (v1) form so undici does not wrap it in an adapter that parses the
 * answer's headers: the chunks are collected straight into a Buffer, without the Readable stream and promises of
 * `request()` (measurable on the per-call path). Deadlines are undici's own: time to the answer's headers, then
 * between body chunks.
 */
class ForwardHandler {
  private status = 0
  private chunks: Buffer[] = []
  private readonly started = performance.now()
  private readonly m: Member
  private readonly timeoutMs: number
  private readonly cooldownMs: number
  private readonly network: string
  /** Size of the request (characters for a string body: a lower bound of its bytes). */
  private readonly requestSize: number
  private readonly resolve: (answer: UpstreamAnswer) => void
  private readonly reject: (err: Error) => void
  constructor(
    m: Member,
    timeoutMs: number,
    cooldownMs: number,
    network: string,
    requestSize: number,
    resolve: (answer: UpstreamAnswer) => void,
    reject: (err: Error) => void,
  ) {
    this.m = m
    this.timeoutMs = timeoutMs
    this.cooldownMs = cooldownMs
    this.network = network
    this.requestSize = requestSize
    this.resolve = resolve
    this.reject = reject
  }
  onConnect() {}
  onHeaders(statusCode: number) {
    this.status = statusCode
    return true
  }
  onData(chunk: Buffer) {
    this.chunks.push(chunk)
    return true
  }
  onComplete() {
    const answer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    const first = answer[0]
    // No content is the node's answer to notifications only (anvil: 204): a healthy node, nothing to pass on.
    const noContent = answer.length === 0 && this.status >= 200 && this.status < 300
    // 0x7b '{', 0x5b '[': anything else (an HTML error page, an empty 5xx) is not a JSON-RPC answer.
    if (this.status >= 500 || this.status === 413 || (!noContent && first !== 0x7b && first !== 0x5b)) {
      this.onError(new UpstreamHttpError(this.status, answer.subarray(0, 200).toString()))
      return
    }
    this.m.downUntil = 0
    this.resolve({ body: answer, latencyMs: performance.now() - this.started, upstream: this.m.label })
  }
  onError(err: Error) {
    const clientCaused = refusedForSize(err, this.status, this.requestSize)
    if (clientCaused) {
      this.reject(tooLarge(this.network, undefined))
      return
    }
    this.m.downUntil = Date.now() + this.cooldownMs
    this.reject(toGatewayError(this.network, err, this.timeoutMs))
  }
}

/** A node reached only by ws(s): the body is parsed to give the call the connection's own id, and serialized back. */
async function overWebSocket(m: Member, body: string | Buffer, timeoutMs: number, cooldownMs: number): Promise<UpstreamAnswer> {
  const started = performance.now()
  try {
    const answer = await m.socket!.request(JSON.parse(body.toString()), timeoutMs)
    m.downUntil = 0
    return { body: Buffer.from(JSON.stringify(answer)), latencyMs: performance.now() - started, upstream: m.label }
  } catch (err) {
    m.downUntil = Date.now() + cooldownMs
    throw err // already a gateway error naming the network
  }
}

/** Whether the node refused the request for its size: HTTP 413, or it stopped reading a large body. */
function refusedForSize(err: Error, status: number, requestSize: number): boolean {
  if (err instanceof UpstreamHttpError) return err.status === 413
  const code = (err as { code?: string }).code
  return status === 0 && requestSize >= LARGE_BODY_BYTES && (code === 'EPIPE' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
}

function tooLarge(network: string, maxBytes: number | undefined) {
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
