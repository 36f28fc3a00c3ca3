/**
 * The nodes behind one network, as a pool even when it holds one node (docs/upstreams.md). Sending one node a
 * body and judging its answer is src/upstreams/member.ts; this file chooses the nodes and runs the call's attempts:
 * - selection: nodes that are down (no answer, 5xx, open breaker), lagging (more than `maxLagBlocks` behind the
 *   served tip), over their rate budget or below the call's `minBlock` take no calls while others can; primaries
 *   before fallbacks; among the best-scored nodes (latency × error rate, with hysteresis) a weighted rotation;
 * - retries: a read (and eth_sendRawTransaction) is retried on another node after a refusal, reset, timeout, 5xx,
 *   provider refusal, or a "missing data" answer (src/upstreams/retry-policy.ts), within `maxAttempts` and the
 *   network's total deadline; node-local methods only when the node surely never got the request;
 * - hedging: a read not answered after the hedge delay (a latency quantile, or fixed) also goes to a second node;
 *   the first useful answer wins, the other request is aborted; null/empty answers do not win while a request runs;
 * - a breaker per node (src/upstreams/breaker.ts): consecutive failures, hedges lost while hanging included,
 *   take it out; one probe call after a while brings it back;
 * - heads: each node's latest (and finalized) block is polled while calls flow, never when the gateway is idle;
 *   the served tip is src/upstreams/heads.ts;
 * - a node whose `eth_chainId` is not the network's never serves; one not yet confirmed (unreachable at start-up)
 *   serves once a check confirms it (docs/config.md, `onChainIdMismatch`).
 * When none answers, the caller gets the gateway error naming the network and why — never a hang.
 *
 * One usable node (an embedded chain): the call goes straight to it — no selection, no clock read.
 * A node is reached over HTTP (undici, keep-alive) or, when its `url` is ws(s), over one WebSocket
 * (src/upstreams/ws-connection.ts) for every call.
 */
import { Pool } from 'undici'
import { ChaingateError, errors } from '../errors/index.ts'
import { Breaker, type BreakerSettings } from './breaker.ts'
import { chainIdOf, mismatchText } from './chain-id.ts'
import { refusalError } from './classify.ts'
import { createHeadTracker, type HeadView } from './heads.ts'
import { quantileOf, RollingStats } from './latency.ts'
import { CancelledError, counted, notDelivered, post, tooLarge, type Member, type RequestControl, type SendSettings, type UpstreamAnswer } from './member.ts'
import { callKind, isAlreadySent, rawTransactionOf, RelayedTransactions, weakAnswer, type CallKind } from './retry-policy.ts'
import { createWsRpcConnection, type WsRpcConnection } from './ws-connection.ts'

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

/** One node as /healthz and `chaingate upstreams` show it. */
export interface UpstreamStatus {
  /** The URL without credentials. */
  upstream: string
  /**
   * healthy: takes calls; lagging: behind the served tip by more than maxLagBlocks; down: not answering (breaker
   * open or cooling down after a failure, or unreachable since start-up); cordoned: kept out by the gateway
   * (provider refusal back-off, wrong chain id).
   */
  state: 'healthy' | 'lagging' | 'down' | 'cordoned'
  cause?: 'failing' | 'breaker-open' | 'unverified' | 'rate-limited' | 'auth-failed' | 'wrong-chain-id'
  reason?: string
  role: 'primary' | 'fallback'
  labels: string[]
  /** Latest and finalized block the node reported, and how far behind the served tip it is. */
  head?: number
  finalized?: number
  lagBlocks?: number
  /** Over the last 10–20 s: share of failed requests, answers, latency quantiles (ms). */
  errorRate: number
  answers: number
  p50Ms?: number
  p99Ms?: number
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
  role?: 'primary' | 'fallback'
  weight?: number
  /** This node's deadline for one request (default: the pool's timeoutMs). */
  timeoutMs?: number | undefined
  /** Most requests per second sent to this node; null/undefined: no limit. */
  maxRequestsPerSecond?: number | null | undefined
  labels?: string[]
}

/** The network's policy over its nodes (config `networks[].upstreamPolicy`, docs/config.md). */
export interface UpstreamPolicy {
  maxLagBlocks: number
  /** All attempts of one call end within this (default: the pool's timeoutMs). */
  totalTimeoutMs?: number | undefined
  maxAttempts: number
  headPollMs: number
  headIdleMs: number
  hedge: { enabled: boolean; delayMs: number | null; quantile: number; minDelayMs: number; maxDelayMs: number }
  breaker: BreakerSettings
}

export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = {
  maxLagBlocks: 5,
  maxAttempts: 3,
  headPollMs: 2000,
  headIdleMs: 60_000,
  hedge: { enabled: true, delayMs: null, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 },
  breaker: { failureThreshold: 5, openMs: 5000, maxOpenMs: 60_000 },
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
const HEAD_PROBE = '{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]}'
const HEAD_AND_FINALIZED_PROBE =
  '[{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest",false]},{"jsonrpc":"2.0","id":2,"method":"eth_getBlockByNumber","params":["finalized",false]}]'
/** The finalized block moves slowly: asked on every FINALIZED_EVERY-th head poll only. */
const FINALIZED_EVERY = 5
/** Rolling statistics windows last this many bookkeeping ticks (1 s each). */
const WINDOW_TICKS = 10
/** Below this, latencies count as equal when scoring nodes (local nodes answer in well under a millisecond). */
const SCORE_FLOOR_MS = 5
/** How long close() waits for requests in flight before dropping them. */
const CLOSE_GRACE_MS = 1000
/** Answers needed before the hedge delay follows the latency quantile (the maximum delay until then). */
const HEDGE_MIN_SAMPLES = 20

const noop = () => undefined
const fireHedge = (run: { hedge(): void }) => run.hedge()

/** The answer to the client's eth_sendRawTransaction when the node already has the transaction. */
const txHashAnswer = (id: unknown, hash: string) => Buffer.from(`{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"result":"${hash}"}`)

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
    policy?: UpstreamPolicy | undefined
    log?: PoolLog | undefined
  },
): UpstreamPool {
  const cooldownMs = opts.cooldownMs ?? 2000
  const maxRequestBytes = opts.maxRequestBytes ?? Infinity
  const expected = opts.chainId
  const verifyTimeoutMs = opts.verifyTimeoutMs ?? Math.min(opts.timeoutMs, 3000)
  const policy = opts.policy ?? DEFAULT_UPSTREAM_POLICY
  const totalTimeoutMs = policy.totalTimeoutMs ?? opts.timeoutMs
  const settings: SendSettings = { network, cooldownMs }
  const members: Member[] = endpoints.map((e) => {
    const url = new URL(e.url)
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (url.username)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}`
    const timeoutMs = e.timeoutMs ?? opts.timeoutMs
    const rate = e.maxRequestsPerSecond ?? Infinity
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
            headersTimeout: timeoutMs,
            bodyTimeout: timeoutMs,
            connectTimeout: Math.min(timeoutMs, 5000),
          }),
      socket: isWebSocketUrl(e.url) ? createWsRpcConnection(e.url, { network, timeoutMs }) : undefined,
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
      role: e.role ?? 'primary',
      weight: e.weight ?? 1,
      timeoutMs,
      labels: e.labels ?? [],
      stats: new RollingStats(),
      breaker: new Breaker(policy.breaker),
      head: undefined,
      finalized: undefined,
      headPolling: false,
      ratePerSecond: rate,
      tokens: Number.isFinite(rate) ? rate : 0,
      tokensAt: 0,
      score: 0,
      inBand: true,
      rrCurrent: 0,
    }
  })
  /** Set once start-up's own check is done: later mismatches are logged here (start-up reports its own). */
  let started = false
  let closed = false
  const heads = createHeadTracker({ onListenerError: (err) => opts.log?.error({ network, err }, 'a head listener failed') })
  const relayed = new RelayedTransactions()

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

  // ---- heads: polled while calls flow ----------------------------------------------------------------------
  /** Calls since start (the one-node path counts too: one increment), and when the count last moved. */
  let calls = 0
  let callsSeen = 0
  let activeAt = Date.now()
  let polls = 0
  let headsIdle = true

  const lagOf = (m: Member): number | undefined => {
    const tip = heads.latest()
    return tip === undefined || m.head === undefined ? undefined : Math.max(0, tip - m.head)
  }
  const isLagging = (m: Member): boolean => {
    const lag = lagOf(m)
    return lag !== undefined && lag > policy.maxLagBlocks
  }
  const blockOf = (b: unknown): { number: number; hash: string; parentHash?: string } | undefined => {
    const r = (b as { result?: { number?: unknown; hash?: unknown; parentHash?: unknown } } | undefined)?.result
    if (!r || typeof r.number !== 'string' || typeof r.hash !== 'string') return undefined
    const number = Number.parseInt(r.number, 16)
    return Number.isSafeInteger(number) ? { number, hash: r.hash, ...(typeof r.parentHash === 'string' ? { parentHash: r.parentHash } : {}) } : undefined
  }
  const pollHead = async (m: Member, withFinalized: boolean): Promise<void> => {
    if (m.headPolling) return
    m.headPolling = true
    try {
      const answer = await post(m, withFinalized ? HEAD_AND_FINALIZED_PROBE : HEAD_PROBE, Math.min(m.timeoutMs, 5000), settings)
      const parsed = JSON.parse(answer.body.toString()) as unknown
      const [latest, finalized] = Array.isArray(parsed) ? [parsed.find((a) => a?.id === 1), parsed.find((a) => a?.id === 2)] : [parsed, undefined]
      const head = blockOf(latest)
      if (head !== undefined) {
        m.head = head.number
        // Only a node in service sets the served tip; a node cooling down may be stale or on its own fork.
        if (m.usable && m.downUntil <= Date.now() && !m.breaker.isOpen) heads.report(head)
      }
      const fin = blockOf(finalized)
      if (fin !== undefined) {
        m.finalized = fin.number
        heads.reportFinalized(fin.number)
      }
    } catch {
      // The failure already counts against the node (member.ts); its head stays what it was.
    } finally {
      m.headPolling = false
    }
  }
  /**
   * newHeads over WebSocket for nodes that have one (an embedded chain; a node with a `wsUrl` or a ws(s) `url`):
   * heads arrive as blocks are made, and the latest-block poll is skipped for them while subscribed. Only while
   * calls flow, like polling: an idle gateway closes these subscriptions.
   */
  interface WsHeads {
    url: string
    conn: WsRpcConnection | undefined
    state: 'off' | 'subscribing' | 'on'
  }
  const wsHeads = new Map<Member, WsHeads>()
  endpoints.forEach((e, i) => {
    const url = e.wsUrl ?? (isWebSocketUrl(e.url) ? e.url : undefined)
    if (url !== undefined) wsHeads.set(members[i]!, { url, conn: undefined, state: 'off' })
  })
  const onNewHead = (m: Member, message: { params?: { result?: unknown } }) => {
    const head = blockOf({ result: message.params?.result })
    if (head === undefined) return
    m.head = head.number
    if (m.usable && m.downUntil <= Date.now() && !m.breaker.isOpen) heads.report(head)
  }
  const subscribeHeads = (m: Member, w: WsHeads) => {
    w.state = 'subscribing'
    const conn = createWsRpcConnection(w.url, {
      network,
      timeoutMs: Math.min(m.timeoutMs, 5000),
      onNotification: (msg) => {
        if (w.conn === conn) onNewHead(m, msg as { params?: { result?: unknown } })
      },
      onClosed: () => {
        if (w.conn !== conn) return
        w.conn = undefined
        w.state = 'off' // polled again until the next tick subscribes anew
      },
    })
    w.conn = conn
    conn.request({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe', params: ['newHeads'] }).then(
      (answer) => {
        if (w.conn !== conn) return
        if ((answer as { result?: unknown }).result === undefined) return unsubscribeHeads(w) // no newHeads here: keep polling
        w.state = 'on'
      },
      () => {
        if (w.conn === conn) unsubscribeHeads(w)
      },
    )
  }
  const unsubscribeHeads = (w: WsHeads) => {
    const conn = w.conn
    w.conn = undefined
    w.state = 'off'
    conn?.close()
  }
  const pollHeads = () => {
    if (closed) return
    const now = Date.now()
    if (calls !== callsSeen) {
      callsSeen = calls
      activeAt = now
    } else if (now - activeAt >= policy.headIdleMs) {
      headsIdle = true // an idle gateway asks its (possibly paid) nodes nothing; the next call wakes this up
      for (const w of wsHeads.values()) unsubscribeHeads(w)
      return
    }
    headsIdle = false
    const withFinalized = polls++ % FINALIZED_EVERY === 0
    for (const m of members) {
      if (m.chain !== 'confirmed' || m.refusal !== undefined) continue
      const w = wsHeads.get(m)
      if (w !== undefined && w.state === 'off') subscribeHeads(m, w)
      if (w?.state !== 'on' || withFinalized) void pollHead(m, withFinalized)
    }
  }
  const wakeHeads = () => {
    headsIdle = false
    activeAt = Date.now()
    pollHeads()
  }
  const headTimer = setInterval(pollHeads, policy.headPollMs)
  headTimer.unref()

  // ---- bookkeeping: windows, scores, hedge delay (once a second, off the call path) ---------------------------
  let ticks = 0
  let hedgeDelayMs = policy.hedge.delayMs ?? policy.hedge.maxDelayMs
  const scoreOf = (m: Member) => Math.max(SCORE_FLOOR_MS, m.stats.quantileMs(0.5) ?? 0) * (1 + 10 * m.stats.errorRate()) / m.weight
  const bookkeeping = () => {
    if (++ticks % WINDOW_TICKS === 0) for (const m of members) m.stats.rotate()
    if (policy.hedge.delayMs === null) {
      const q = quantileOf(members.map((m) => m.stats), policy.hedge.quantile, HEDGE_MIN_SAMPLES)
      hedgeDelayMs = q === undefined ? policy.hedge.maxDelayMs : Math.min(policy.hedge.maxDelayMs, Math.max(policy.hedge.minDelayMs, q))
    }
    // Hysteresis: a node joins the best band within 1.5× the best score and leaves it beyond 3×, so traffic does
    // not flap between nodes of similar speed.
    for (const role of ['primary', 'fallback'] as const) {
      const group = members.filter((m) => m.role === role && m.usable)
      if (group.length === 0) continue
      const scores = group.map(scoreOf)
      const best = Math.min(...scores)
      group.forEach((m, i) => {
        const s = scores[i]!
        m.score = s
        m.inBand = m.stats.samples === 0 || (m.inBand ? s <= best * 3 : s <= best * 1.5)
      })
    }
  }
  const bookTimer = setInterval(bookkeeping, 1000)
  bookTimer.unref()

  // ---- selection -------------------------------------------------------------------------------------------
  /** A token from the node's rate budget (always, without one). */
  const takeToken = (m: Member, now: number): boolean => {
    if (m.ratePerSecond === Infinity) return true
    m.tokens = Math.min(m.ratePerSecond, m.tokens + ((now - m.tokensAt) / 1000) * m.ratePerSecond)
    m.tokensAt = now
    if (m.tokens < 1) return false
    m.tokens -= 1
    return true
  }
  const isHealthy = (m: Member, now: number, minBlock: number | undefined) =>
    m.downUntil <= now && m.breaker.wouldAllow(now) && !isLagging(m) && (minBlock === undefined || m.head === undefined || m.head >= minBlock)

  /**
   * The nodes to try, in order: one healthy node of the best role picked by weighted rotation among the best
   * scored, the other healthy ones by role and score, then the unhealthy ones (down, lagging, below minBlock) as
   * a last resort. Fallbacks come first only when no primary is healthy.
   */
  /** How many of the nodes the last select() returned are healthy (the rest are last resorts). */
  let selectedHealthy = 0
  const select = (now: number, minBlock: number | undefined): Member[] => {
    for (const m of members)
      if (!m.usable && m.chain === 'confirmed' && m.blockedUntil <= now) {
        m.usable = true // the provider back-off is over
        m.refusal = undefined
      }
    const healthy: Member[] = []
    const spare: Member[] = []
    let primaryUp = false
    for (const m of members) {
      if (!m.usable) continue
      if (isHealthy(m, now, minBlock)) {
        healthy.push(m)
        if (m.role === 'primary') primaryUp = true
      } else spare.push(m)
    }
    const role = primaryUp ? 'primary' : 'fallback'
    // Smooth weighted round-robin (nginx's) over the best band of the serving role.
    let first: Member | undefined
    let total = 0
    for (const m of healthy)
      if (m.role === role && m.inBand) {
        m.rrCurrent += m.weight
        total += m.weight
        if (first === undefined || m.rrCurrent > first.rrCurrent) first = m
      }
    if (first !== undefined) first.rrCurrent -= total
    const rank = (m: Member) => (m.role === role ? 0 : 2) + (m.inBand ? 0 : 1)
    const order: Member[] = first === undefined ? [] : [first]
    if (healthy.length > 1 || first === undefined) {
      const rest = healthy.filter((m) => m !== first)
      if (rest.length > 1) rest.sort((a, b) => rank(a) - rank(b) || a.score - b.score)
      for (const m of rest) order.push(m)
    }
    selectedHealthy = order.length
    if (spare.length > 1) spare.sort((a, b) => Math.max(a.downUntil, a.breaker.openUntil) - Math.max(b.downUntil, b.breaker.openUntil))
    for (const m of spare) order.push(m)
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

  // ---- one call: attempts, retries, hedges ------------------------------------------------------------------
  interface Attempt {
    m: Member
    ctl: RequestControl
    startedAt: number
  }

  /**
   * One call's attempts. A class rather than closures: a call that is not on the one-node path allocates one
   * object and its attempts, not a closure per step.
   */
  class Run {
    readonly running: Attempt[] = []
    next = 0
    attempts = 0
    settled = false
    lastError: unknown = undefined
    overBudget = false
    /** A null/empty answer kept while another node may still have something better. */
    weak: UpstreamAnswer | undefined = undefined
    hedgeTimer: NodeJS.Timeout | undefined = undefined
    resolve: (answer: UpstreamAnswer) => void = noop
    reject: (err: unknown) => void = noop
    onAbort: (() => void) | undefined = undefined
    readonly body: string | Buffer
    readonly order: Member[]
    readonly method: string | undefined
    readonly kind: CallKind
    readonly deadline: number
    readonly timeoutMs: number
    readonly tx: { hash: string; id: unknown } | undefined
    readonly hedging: boolean
    readonly healthy: number
    readonly signal: AbortSignal | undefined
    constructor(
      body: string | Buffer,
      order: Member[],
      healthy: number,
      method: string | undefined,
      kind: CallKind,
      now: number,
      timeoutMs: number,
      signal: AbortSignal | undefined,
    ) {
      this.body = body
      this.order = order
      this.method = method
      this.kind = kind
      this.timeoutMs = timeoutMs
      this.deadline = now + timeoutMs
      this.tx = kind === 'send-raw' ? rawTransactionOf(body) : undefined
      // Hedges and missing-data retries go to healthy nodes only: a lagging or failing node would not do better.
      this.healthy = healthy
      this.hedging = kind === 'read' && policy.hedge.enabled && healthy > 1
      this.signal = signal
    }
    start(): Promise<UpstreamAnswer> {
      const promise = new Promise<UpstreamAnswer>((resolve, reject) => {
        this.resolve = resolve
        this.reject = reject
      })
      if (this.signal !== undefined) {
        this.onAbort = () => this.finish(undefined, new CancelledError('the client went away'))
        this.signal.addEventListener('abort', this.onAbort, { once: true })
      }
      if (!this.launch()) this.giveUp()
      return promise
    }
    /** Starts the next attempt on the next node in order; false when none is left (budget, attempts, time). */
    launch(): boolean {
      const t = Date.now()
      const order = this.order
      while (this.next < order.length && this.attempts < policy.maxAttempts && t < this.deadline) {
        const m = order[this.next++]!
        if (!takeToken(m, t)) {
          this.overBudget = true
          continue
        }
        if (m.breaker.isOpen) m.breaker.allow(t) // a last resort past its open time becomes the probe
        this.attempts++
        const a: Attempt = { m, ctl: { abort: undefined, cancelled: false }, startedAt: t }
        this.running.push(a)
        post(m, this.body, Math.max(1, Math.min(m.timeoutMs, this.deadline - t)), settings, a.ctl).then(
          (answer) => this.onAnswer(a, answer),
          (err: unknown) => this.onFailure(a, err),
        )
        if (this.hedging && this.hedgeTimer === undefined && this.next < this.healthy) this.hedgeTimer = setTimeout(fireHedge, hedgeDelayMs, this)
        return true
      }
      return false
    }
    hedge(): void {
      this.hedgeTimer = undefined
      if (!this.settled && this.running.length > 0 && this.next < this.healthy) this.launch()
    }
    done(a: Attempt): void {
      const i = this.running.indexOf(a)
      if (i >= 0) this.running.splice(i, 1)
    }
    finish(answer: UpstreamAnswer | undefined, err?: unknown, winner?: Attempt): void {
      if (this.settled) return
      this.settled = true
      if (this.hedgeTimer !== undefined) clearTimeout(this.hedgeTimer)
      if (this.onAbort !== undefined) this.signal!.removeEventListener('abort', this.onAbort)
      if (this.running.length > 0) {
        const at = Date.now()
        for (const a of this.running) {
          // A request that started before the winner's and is still waiting lost a race it should have won:
          // a strike for its breaker (a hanging node gets taken out without waiting for its timeouts).
          if (winner !== undefined && a.startedAt < winner.startedAt) {
            a.m.breaker.failure(at)
            a.m.stats.recordLatency(at - a.startedAt)
          } else if (a.m.breaker.probing) a.m.breaker.probing = false
          a.ctl.cancelled = true
          a.ctl.abort?.(new CancelledError('cancelled'))
        }
        this.running.length = 0
      }
      if (answer !== undefined) this.resolve(answer.attempts === this.attempts ? answer : { ...answer, attempts: this.attempts })
      else {
        const e = (err ?? this.lastError ?? errors.upstreamUnavailable(network, 'no node could answer')) as Error
        this.reject(typeof e === 'object' && e !== null ? counted(e, this.attempts) : e)
      }
    }
    giveUp(): void {
      if (this.weak !== undefined) return this.finish(this.weak)
      if (this.lastError === undefined && this.overBudget)
        return this.finish(undefined, refusalError(network, 'rate-limited', 'the gateway reached its own limit for the nodes, upstreams[].maxRequestsPerSecond', 1000))
      if (this.lastError === undefined && Date.now() >= this.deadline) return this.finish(undefined, errors.upstreamTimeout(network, this.timeoutMs))
      this.finish(undefined)
    }
    onAnswer(a: Attempt, answer: UpstreamAnswer): void {
      this.done(a)
      if (this.settled) return
      const tx = this.tx
      if (tx !== undefined) {
        if (answer.isError) {
          if (isAlreadySent(answer.body, relayed.has(tx.hash))) return this.finish({ ...answer, body: txHashAnswer(tx.id, tx.hash), isError: false }, undefined, a)
        } else relayed.add(tx.hash)
      }
      const w = this.kind === 'read' && this.method !== undefined ? weakAnswer(this.method, answer.body) : undefined
      if (w === undefined) return this.finish(answer, undefined, a)
      this.weak ??= answer
      // "Missing" data: ask a node that may be further ahead; "empty": only wait for a request already running.
      if (w === 'missing' && this.next < this.healthy && this.launch()) return
      if (this.running.length === 0) this.giveUp()
    }
    onFailure(a: Attempt, err: unknown): void {
      this.done(a)
      if (this.settled || err instanceof CancelledError) return
      // Refused for the request itself: another node would refuse it too.
      if (err instanceof ChaingateError && err.code === 'BODY_TOO_LARGE') return this.finish(undefined, err)
      this.lastError = err
      if (this.running.length > 0) return // a hedge is still running: let it answer
      const retryable =
        this.kind !== 'unsafe' || notDelivered.has(err as Error) || (err instanceof ChaingateError && (err.code === 'UPSTREAM_RATE_LIMITED' || err.code === 'UPSTREAM_AUTH_FAILED'))
      if (retryable && this.launch()) return
      this.giveUp()
    }
  }

  /** Not async: a call that finds a node at once makes no promise besides its run's. */
  function sendSlow(body: string | Buffer, o: SendOptions | undefined): Promise<UpstreamAnswer> {
    const now = Date.now()
    if (headsIdle) wakeHeads()
    const order = select(now, o?.minBlock)
    if (members.some((m) => m.chain === 'unknown')) {
      // Nobody to serve: confirm a node now rather than fail the call; otherwise check in the background.
      if (order.length === 0) return verifyUnknown(true).then(() => run(body, o, Date.now(), select(Date.now(), o?.minBlock)))
      void verifyUnknown(false)
    }
    return run(body, o, now, order)
  }
  function run(body: string | Buffer, o: SendOptions | undefined, now: number, order: Member[]): Promise<UpstreamAnswer> {
    if (order.length === 0) return Promise.reject(noneUsable(now))
    if (o?.signal?.aborted) return Promise.reject(new CancelledError('the client went away'))
    const method = o?.method
    return new Run(body, order, selectedHealthy, method, callKind(method), now, o?.timeoutMs ?? totalTimeoutMs, o?.signal).start()
  }

  const status = (m: Member, now: number): UpstreamStatus => {
    const [p50, p99] = m.stats.quantilesMs([0.5, 0.99])
    const lag = lagOf(m)
    const base = {
      upstream: m.label,
      role: m.role,
      labels: m.labels,
      ...(m.head === undefined ? {} : { head: m.head }),
      ...(m.finalized === undefined ? {} : { finalized: m.finalized }),
      ...(lag === undefined ? {} : { lagBlocks: lag }),
      errorRate: Math.round(m.stats.errorRate() * 1000) / 1000,
      answers: m.stats.samples,
      ...(p50 === undefined ? {} : { p50Ms: Math.round(p50 * 100) / 100 }),
      ...(p99 === undefined ? {} : { p99Ms: Math.round(p99! * 100) / 100 }),
    }
    if (m.chain === 'wrong') return { ...base, state: 'cordoned', cause: 'wrong-chain-id', reason: m.chainNote! }
    if (m.chain === 'unknown') return { ...base, state: 'down', cause: 'unverified', reason: m.chainNote ?? 'not checked yet' }
    if (m.refusal !== undefined && m.blockedUntil > now)
      return { ...base, state: 'cordoned', cause: m.refusal, reason: `${m.refusalDetail}; out of rotation for ${Math.ceil((m.blockedUntil - now) / 1000)} s` }
    if (m.breaker.isOpen)
      return { ...base, state: 'down', cause: 'breaker-open', reason: `${m.breaker.failures} failures in a row; ${m.breaker.openUntil > now ? `probed again in ${Math.ceil((m.breaker.openUntil - now) / 1000)} s` : 'probed on the next call'}` }
    if (m.downUntil > now) return { ...base, state: 'down', cause: 'failing', reason: 'failed to answer; tried again shortly' }
    if (isLagging(m)) return { ...base, state: 'lagging', reason: `${lag} blocks behind the served tip (maxLagBlocks ${policy.maxLagBlocks})` }
    return { ...base, state: 'healthy' }
  }

  return {
    network,
    heads,
    // Nodes on a wrong chain last; then those not healthy; primaries first (subscriptions follow this order).
    get wsUrls() {
      const now = Date.now()
      const urls = endpoints.map((e, i) => ({ url: e.wsUrl ?? e.url.replace(/^http/i, 'ws'), m: members[i]! }))
      const rank = ({ m }: { m: Member }) => (m.chain === 'wrong' ? 4 : 0) + (m.usable && isHealthy(m, now, undefined) ? 0 : 2) + (m.role === 'primary' ? 0 : 1)
      return urls.sort((a, b) => rank(a) - rank(b)).map((u) => u.url)
    },
    send(body, sendOpts) {
      calls++
      // body.length counts UTF-16 units for a string: a cheap lower bound; only a candidate pays for the byte count.
      if (body.length * 3 > maxRequestBytes && (typeof body === 'string' ? Buffer.byteLength(body) : body.length) > maxRequestBytes)
        return Promise.reject(tooLarge(network, maxRequestBytes))
      // One usable node (the common case): no selection, no clock read, one promise per call.
      if (members.length === 1 && members[0]!.usable && sendOpts?.method !== 'eth_sendRawTransaction' && !headsIdle)
        return post(members[0]!, body, sendOpts?.timeoutMs ?? members[0]!.timeoutMs, settings)
      return sendSlow(body, sendOpts)
    },
    async verifyChainId() {
      if (expected !== undefined) {
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
      }
      // The first heads, so the served tip is known before the first call.
      await Promise.all(members.filter((m) => m.chain === 'confirmed').map((m) => pollHead(m, true)))
      headsIdle = false
      activeAt = Date.now()
      for (const [m, w] of wsHeads) if (m.chain === 'confirmed' && w.state === 'off') subscribeHeads(m, w)
    },
    status() {
      const now = Date.now()
      return members.map((m) => status(m, now))
    },
    async close() {
      closed = true
      clearInterval(headTimer)
      clearInterval(bookTimer)
      for (const w of wsHeads.values()) unsubscribeHeads(w)
      for (const m of members) m.socket?.close()
      // In-flight requests get a moment to finish; a node that hangs must not hold the shutdown for its timeout.
      await Promise.all(
        members.map(async (m) => {
          if (m.pool === undefined) return
          const grace = setTimeout(() => void m.pool!.destroy().catch(() => undefined), CLOSE_GRACE_MS)
          await m.pool.close().catch(() => undefined)
          clearTimeout(grace)
        }),
      )
    },
  }
}
