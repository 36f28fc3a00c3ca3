/**
 * The nodes behind one network, as a pool even when it holds one node. A call goes to the next node in rotation
 * (src/upstreams/member.ts sends it and judges the answer):
 * - a node that fails to connect or answers 5xx is skipped for `cooldownMs` and the call is tried on another one
 *   (a cooling-down node is still a last resort);
 * - a provider refusal (rate limit, quota, credentials; src/upstreams/classify.ts) takes the node out of rotation
 *   for a back-off, and the call is tried on another one;
 * - a node whose `eth_chainId` is not the network's never serves; one not yet confirmed (unreachable at start-up)
 *   serves once a check confirms it (docs/config.md, `onChainIdMismatch`).
 * When none answers, the caller gets the gateway error naming the network and why — never a hang (every request
 * has a deadline).
 *
 * A node is reached over HTTP (undici, keep-alive) or, when its `url` is ws(s), over one WebSocket
 * (src/upstreams/ws-connection.ts) for every call.
 */
import { Pool } from 'undici'
import { ChaingateError, errors } from '../errors/index.ts'
import { chainIdOf, mismatchText } from './chain-id.ts'
import { refusalError } from './classify.ts'
import { post, tooLarge, type Member, type SendSettings, type UpstreamAnswer } from './member.ts'
import { createWsRpcConnection } from './ws-connection.ts'

import { createHeadTracker, type HeadView } from './heads.ts'

export type { UpstreamAnswer } from './member.ts'
export type { HeadView } from './heads.ts'

export interface SendOptions {
  timeoutMs?: number
  /** The JSON-RPC method of a single call (undefined for a batch): drives retry/hedge policy. */
  method?: string
  /** Consistent heads: only upstreams whose latest head is >= this block number (undefined: any). */
  minBlock?: number
  signal?: AbortSignal
}

/** One node as /healthz shows it. */
export interface UpstreamStatus {
  /** The URL without credentials. */
  upstream: string
  state: 'up' | 'cooling-down' | 'rate-limited' | 'auth-failed' | 'wrong-chain-id' | 'unverified'
  reason?: string
}

export interface UpstreamPool {
  readonly network: string
  /** Sends one JSON-RPC body (single or batch) and returns the node's answer text. */
  send(body: string | Buffer, opts?: SendOptions): Promise<UpstreamAnswer>
  /** The network's served tip and finalized block (src/upstreams/heads.ts). */
  readonly heads: HeadView
  /**
   * Start-up check: one `eth_chainId` per node, in parallel. Rejects (UPSTREAM_WRONG_CHAIN) when a node with
   * `onChainIdMismatch: 'fail'` answers another id; an unreachable node stays out of rotation until confirmed.
   */
  verifyChainId(): Promise<void>
  status(): UpstreamStatus[]
  /** WebSocket URLs of the nodes, for subscriptions (those on a wrong chain id last). */
  readonly wsUrls: string[]
  close(): Promise<void>
}

/** anvil refuses request bodies over 2 MiB (answering -32600 with `id: null`, or closing the connection: EPIPE). */
export const EMBEDDED_MAX_REQUEST_BYTES = 2 * 1024 * 1024

export interface UpstreamEndpoint {
  url: string
  wsUrl?: string
  /** What a node answering another chain id does to start-up: stop it (default), or stay out of rotation. */
  onChainIdMismatch?: 'fail' | 'exclude'
}

/** Where the pool reports what an operator should see (a pino logger fits). */
export interface PoolLog {
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}

const isWebSocketUrl = (url: string) => /^wss?:/i.test(url)

/** http://user:pass@host/path?x → host/path: node URLs often embed provider keys, never show them. */
export const redactUrl = (u: URL) => `${u.protocol}//${u.host}${u.pathname === '/' ? '' : '/…'}`

const CHAIN_ID_PROBE = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'

export function createUpstreamPool(
  network: string,
  endpoints: UpstreamEndpoint[],
  opts: {
    timeoutMs: number
    connections?: number
    cooldownMs?: number
    /** Largest body sent to the node (config `networks[].maxRequestBytes`); larger ones answer 413 without contacting it. */
    maxRequestBytes?: number | undefined
    /** The network's chain id, checked against every node; undefined: trusted (an embedded chain chaingate started). */
    chainId?: number | undefined
    /** Deadline of one chain id check (default: the smaller of timeoutMs and 3 s). */
    verifyTimeoutMs?: number
    log?: PoolLog | undefined
  },
): UpstreamPool {
  const cooldownMs = opts.cooldownMs ?? 2000
  const maxRequestBytes = opts.maxRequestBytes ?? Infinity
  const expected = opts.chainId
  const verifyTimeoutMs = opts.verifyTimeoutMs ?? Math.min(opts.timeoutMs, 3000)
  const settings: SendSettings = { network, cooldownMs }
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
      usable: expected === undefined,
      chain: expected === undefined ? 'confirmed' : 'unknown',
      chainNote: expected === undefined ? undefined : 'not checked yet',
      verifyError: undefined,
      verifying: undefined,
      lastVerifyAt: 0,
      onChainIdMismatch: e.onChainIdMismatch ?? 'fail',
      refusal: undefined,
      refusalDetail: '',
      blockedUntil: 0,
      backoffMs: 0,
    }
  })
  let next = 0
  /** Set once start-up's own check is done: later mismatches are logged here (start-up reports its own). */
  let started = false

  /** One `eth_chainId` to a node not yet confirmed; never rejects. */
  const verify = (m: Member): Promise<void> =>
    (m.verifying ??= (async () => {
      m.lastVerifyAt = Date.now()
      m.verifyError = undefined
      try {
        const actual = chainIdOf((await post(m, CHAIN_ID_PROBE, verifyTimeoutMs, settings)).body)
        if (actual === undefined) m.chainNote = 'its eth_chainId answer holds no chain id'
        else if (actual === expected) {
          m.chain = 'confirmed'
          m.chainNote = undefined
          m.usable = m.blockedUntil <= Date.now()
        } else {
          m.chain = 'wrong'
          m.usable = false
          m.chainNote = mismatchText(network, m.label, actual, expected!)
          if (started) opts.log?.error({ network, upstream: m.label }, `${m.chainNote}; kept out of rotation`)
        }
      } catch (err) {
        m.verifyError = err as Error
        m.chainNote = `not reachable: ${(err as Error).message}`
      } finally {
        m.verifying = undefined
      }
    })())
  /**
   * Checks the unconfirmed nodes: all now (`force`), or those not tried within the cooldown, in the background.
   * A node whose provider refused the check waits out its back-off, so calls do not hammer it.
   */
  const verifyUnknown = (force: boolean): Promise<unknown> => {
    const now = Date.now()
    const due = (m: Member) => m.chain === 'unknown' && m.blockedUntil <= now && (force || (m.verifying === undefined && now - m.lastVerifyAt >= cooldownMs))
    return Promise.all(members.filter(due).map(verify))
  }

  /** The nodes to try, in order: healthy ones in rotation, then the cooling-down ones as a last resort. */
  const candidates = (now: number): Member[] => {
    const order: Member[] = []
    for (const m of members)
      if (!m.usable && m.chain === 'confirmed' && m.blockedUntil <= now) {
        m.usable = true // the provider back-off is over
        m.refusal = undefined
      }
    for (let i = 0; i < members.length; i++) {
      const m = members[(next + i) % members.length]!
      if (m.usable && m.downUntil <= now) order.push(m)
    }
    for (const m of members) if (m.usable && m.downUntil > now) order.push(m)
    next = (next + 1) % members.length
    return order
  }

  /** Why no node can take a call: a provider back-off first, then unconfirmed, then wrong chain ids. */
  const noneUsable = (now: number): ChaingateError => {
    const blocked = members.filter((m) => m.chain === 'confirmed' && m.refusal !== undefined).sort((a, b) => a.blockedUntil - b.blockedUntil)[0]
    if (blocked) return refusalError(network, blocked.refusal!, blocked.refusalDetail, blocked.blockedUntil - now)
    const unknown = members.filter((m) => m.chain === 'unknown')
    if (unknown.length > 0) {
      // Its own failure (timeout, refused connection, …) says more than "unconfirmed".
      const failed = unknown.find((m) => m.verifyError instanceof ChaingateError)?.verifyError
      return (failed as ChaingateError | undefined) ?? errors.upstreamUnavailable(network, `no node has confirmed chain id ${expected} yet`)
    }
    return new ChaingateError('UPSTREAM_WRONG_CHAIN', `network ${network} is unavailable: every node answers a chain id other than ${expected}`)
  }

  async function sendSlow(body: string | Buffer, timeoutMs: number): Promise<UpstreamAnswer> {
    let order = candidates(Date.now())
    if (order.length === 0 && members.some((m) => m.chain === 'unknown')) {
      await verifyUnknown(true) // nobody to serve: confirm a node now rather than fail the call
      order = candidates(Date.now())
    } else if (members.some((m) => m.chain === 'unknown')) void verifyUnknown(false)
    if (order.length === 0) throw noneUsable(Date.now())
    let lastError: unknown
    for (const m of order) {
      try {
        return await post(m, body, timeoutMs, settings)
      } catch (err) {
        // Refused for the request itself: another node would refuse it too.
        if (err instanceof ChaingateError && err.code === 'BODY_TOO_LARGE') throw err
        lastError = err
      }
    }
    throw lastError
  }

  const heads = createHeadTracker()

  return {
    network,
    heads,
    // Nodes on a wrong chain last: a subscription must not follow another chain.
    get wsUrls() {
      const urls = endpoints.map((e) => e.wsUrl ?? e.url.replace(/^http/i, 'ws'))
      return [...urls.filter((_, i) => members[i]!.chain !== 'wrong'), ...urls.filter((_, i) => members[i]!.chain === 'wrong')]
    },
    send(body, sendOpts) {
      const timeoutMs = sendOpts?.timeoutMs ?? opts.timeoutMs
      // body.length counts UTF-16 units for a string: a cheap lower bound; only a candidate pays for the byte count.
      if (body.length * 3 > maxRequestBytes && (typeof body === 'string' ? Buffer.byteLength(body) : body.length) > maxRequestBytes)
        return Promise.reject(tooLarge(network, maxRequestBytes))
      // One usable node (the common case): no rotation to compute, no clock read, one promise per call.
      if (members.length === 1 && members[0]!.usable) return post(members[0]!, body, timeoutMs, settings)
      return sendSlow(body, timeoutMs)
    },
    async verifyChainId() {
      if (expected === undefined) return
      await verifyUnknown(true)
      started = true
      const fatal = members.filter((m) => m.chain === 'wrong' && m.onChainIdMismatch === 'fail')
      if (fatal.length > 0)
        throw new ChaingateError('UPSTREAM_WRONG_CHAIN', `${fatal.map((m) => m.chainNote).join('; ')}; fix networks[].chainId or the upstream URL, or set the upstream's onChainIdMismatch: exclude`)
      for (const m of members) {
        if (m.chain === 'wrong') opts.log?.warn({ network, upstream: m.label }, `${m.chainNote}; excluded from rotation (onChainIdMismatch: exclude)`)
        else if (m.chain === 'unknown')
          opts.log?.warn({ network, upstream: m.label, reason: m.chainNote }, 'upstream not reachable at start-up: out of rotation until its chain id is confirmed (checked again when needed)')
      }
    },
    status() {
      const now = Date.now()
      return members.map((m): UpstreamStatus => {
        const upstream = m.label
        if (m.chain === 'wrong') return { upstream, state: 'wrong-chain-id', reason: m.chainNote! }
        if (m.chain === 'unknown') return { upstream, state: 'unverified', reason: m.chainNote ?? 'not checked yet' }
        if (m.refusal !== undefined && m.blockedUntil > now)
          return { upstream, state: m.refusal, reason: `${m.refusalDetail}; out of rotation for ${Math.ceil((m.blockedUntil - now) / 1000)} s` }
        if (m.downUntil > now) return { upstream, state: 'cooling-down', reason: 'failed to answer; tried again shortly' }
        return { upstream, state: 'up' }
      })
    },
    async close() {
      for (const m of members) m.socket?.close()
      await Promise.all(members.map((m) => m.pool?.close().catch(() => undefined)))
    },
  }
}
