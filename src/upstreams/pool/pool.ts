/**
 * The nodes behind one network, as a pool even when it holds one node (docs/upstreams.md). Sending one node a
 * body and judging its answer is src/upstreams/pool/member.ts; this file composes the parts below into one pool:
 * - selection: nodes that are down (no answer, 5xx, open breaker), lagging (more than `maxLagBlocks` behind the
 *   served tip), over their rate budget or below the call's `minBlock` take no calls while others can; primaries
 *   before fallbacks; among the best-scored nodes (latency × error rate, with hysteresis) a weighted rotation
 *   (src/upstreams/pool/selection.ts, which also reports each node's state);
 * - retries: a read (and eth_sendRawTransaction) is retried on another node after a refusal, reset, timeout, 5xx,
 *   provider refusal, or a "missing data" answer (src/upstreams/pool/retry-policy.ts), within `maxAttempts` and the
 *   network's total deadline; node-local methods only when the node surely never got the request
 *   (src/upstreams/pool/attempts.ts runs one call's attempts);
 * - hedging: a read not answered after the hedge delay (a latency quantile, or fixed) also goes to a second node;
 *   the first useful answer wins, the other request is aborted; null/empty answers do not win while a request runs;
 * - a breaker per node (src/upstreams/pool/breaker.ts): consecutive failures, hedges lost while hanging included,
 *   take it out; one probe call after a while brings it back;
 * - heads: each node's latest (and finalized) block is polled while calls flow, never when the gateway is idle;
 *   the served tip is src/upstreams/pool/heads.ts, the polling src/upstreams/pool/head-polling.ts;
 * - a node whose `eth_chainId` is not the network's never serves; one not yet confirmed (unreachable at start-up)
 *   serves once a check confirms it (docs/config.md, `onChainIdMismatch`; src/upstreams/pool/chain-id.ts).
 * When none answers, the caller gets the gateway error naming the network and why — never a hang.
 *
 * One usable node (an embedded chain): the call goes straight to it — no selection, no clock read.
 * A node is reached over HTTP (undici, keep-alive) or, when its `url` is ws(s), over one WebSocket
 * (src/jsonrpc/ws-connection.ts) for every call.
 */
import { run } from './attempts.ts'
import { createChainIdCheck } from './chain-id.ts'
import { FAMILY_RULES } from './family-rules.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import { anyMethodsWhere } from '../../methods/catalog.ts'
import { createFilterRouting, isFilterMethod } from './filters.ts'
import { createHeadPolling } from './head-polling.ts'
import { createStateLog } from './state-log.ts'
import { createHeadTracker, type HeadView } from './heads.ts'
import { isWebSocketUrl, newMember } from './new-member.ts'
import { DEFAULT_MAX_RESPONSE_BYTES, post, tooLarge, type Member, type UpstreamAnswer } from './member.ts'
import type { CallOrigin, PoolLog, SendOptions, SendSettings, UpstreamEndpoint, UpstreamPolicy } from './types.ts'
import type { PoolState } from './state.ts'
import type { RpcId } from '../../jsonrpc/types.ts'
import { RelayedTransactions } from './retry-policy.ts'
import { createBookkeeping, memberStatus, select, wsUrlsInOrder, type UpstreamStatus } from './selection.ts'
import { closeMembers } from './close-members.ts'
import { sizeCallClasses } from './call-shapes.ts'

/**
 * Methods that always take the run of attempts, even on one usable node: filter calls (routed to their node) and
 * idempotent writes (the node's "already known" answer becomes the hash). One lookup per call on the one-node path.
 */
const ATTEMPTS_ONLY: ReadonlySet<string> = new Set(
  anyMethodsWhere((e) => e.idempotentWrite === true || e.filter === 'create' || e.filter === 'use'),
)

export type { UpstreamAnswer } from './member.ts'
export type { HeadView } from './heads.ts'
export type { UpstreamStatus } from './selection.ts'
export type { CallOrigin, PoolLog, SendOptions, UpstreamEndpoint, UpstreamPolicy } from './types.ts'

export interface UpstreamPool {
  readonly network: string
  /**
   * Sends one JSON-RPC body (single or batch) and returns the node's answer text. `settled`, when given, runs once
   * the answer (or the failure) is known, before any reaction to the returned promise: the in-flight dedup's
   * cleanup without a promise of its own on every call. `id`: the call's id, when `body` is a single call with it
   * (as its parse gave it): the node's answer is then checked against it without a walk of `body`. `origin`: the
   * client call it is for (its span, its arrival). Positional, not one options object: `opts` is usually shared per
   * method (no allocation), and folding the per-call values into it would cost an object per call.
   */
  send(
    body: string | Buffer,
    opts?: SendOptions,
    settled?: () => void,
    id?: RpcId,
    origin?: CallOrigin,
  ): Promise<UpstreamAnswer>
  /** The network's served tip and finalized block (src/upstreams/pool/heads.ts). */
  readonly heads: HeadView
  /** The network's CAIP-2 id: declared, or learned from its nodes at start; undefined for an unchecked pool. */
  readonly chain: string | undefined
  /**
   * Start-up check: one `eth_chainId` per node, in parallel. Rejects (UPSTREAM_WRONG_CHAIN) when a node with
   * `onChainIdMismatch: 'fail'` answers another id; an unreachable node stays out of rotation until confirmed.
   */
  verifyChainId(): Promise<void>
  status(): UpstreamStatus[]
  /** WebSocket URLs of the nodes, for subscriptions (those on a wrong chain id last). */
  readonly wsUrls: string[]
  /**
   * Filter ids name their node and owner (src/upstreams/pool/filters.ts), on every network: a batch sends filter
   * calls alone.
   */
  readonly pinsFilters?: boolean
  close(): Promise<void>
}

/** anvil refuses request bodies over 2 MiB (answering -32600 with `id: null`, or closing the connection: EPIPE). */
export const EMBEDDED_MAX_REQUEST_BYTES = 2 * 1024 * 1024

export const DEFAULT_UPSTREAM_POLICY: UpstreamPolicy = {
  maxLagBlocks: 5,
  maxAttempts: 3,
  headPollMs: 2000,
  headIdleMs: 60_000,
  hedge: { enabled: true, delayMs: null, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 },
  breaker: { failureThreshold: 5, openMs: 5000, maxOpenMs: 60_000 },
}

export { redactUrl } from './new-member.ts'

/** `settled` once `p` settles (the paths that have no handler of their own to call it). */
function after(p: Promise<UpstreamAnswer>, settled: (() => void) | undefined): Promise<UpstreamAnswer> {
  if (settled !== undefined) p.then(settled, settled)
  return p
}

export function createUpstreamPool(
  network: string,
  endpoints: UpstreamEndpoint[],
  opts: {
    timeoutMs: number
    connections?: number
    cooldownMs?: number
    /**
     * Largest body sent to the node (config `networks[].maxRequestBytes`); larger ones answer 413 without contacting
     * it.
     */
    maxRequestBytes?: number | undefined
    /** Largest answer taken from a node (config `networks[].maxResponseBytes`, default 64 MiB). */
    maxResponseBytes?: number | undefined
    /** The network's chain family (default `evm`): what its nodes are asked (src/upstreams/pool/family-rules.ts). */
    family?: ChainFamily | undefined
    /** EVM: the network's chain id, checked against every node; undefined: trusted (an embedded chain). */
    chainId?: number | undefined
    /**
     * The network's CAIP-2 id (instead of chainId), checked against every node; `learn`: taken from the first node
     * to answer at start-up, the others checked against it; undefined: trusted (an embedded chain).
     */
    chain?: string | 'learn' | undefined
    /** Deadline of one chain id check (default: the smaller of timeoutMs and 3 s). */
    verifyTimeoutMs?: number
    policy?: UpstreamPolicy | undefined
    log?: PoolLog | undefined
  },
): UpstreamPool {
  const cooldownMs = opts.cooldownMs ?? 2000
  const maxRequestBytes = opts.maxRequestBytes ?? Infinity
  const rules = FAMILY_RULES[opts.family ?? 'evm']
  const checksChain = opts.chainId !== undefined || opts.chain !== undefined
  const expected =
    opts.chainId !== undefined ? `eip155:${opts.chainId}` : opts.chain === 'learn' ? undefined : opts.chain
  const policy = opts.policy ?? DEFAULT_UPSTREAM_POLICY
  const totalTimeoutMs = policy.totalTimeoutMs ?? opts.timeoutMs
  // The one-node path has no run of attempts: the node's request itself ends by the network's deadline.
  const oneNodeTimeoutMs = Math.min(endpoints[0]?.timeoutMs ?? opts.timeoutMs, totalTimeoutMs)
  const settings: SendSettings = {
    network,
    cooldownMs,
    maxResponseBytes: opts.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
  }
  const members: Member[] = endpoints.map((e) =>
    newMember(e, { network, timeoutMs: opts.timeoutMs, connections: opts.connections, checked: checksChain, policy }),
  )
  const pool: PoolState = {
    network,
    members,
    policy,
    settings,
    rules,
    expected,
    checksChain,
    heads: createHeadTracker({ onListenerError: (err) => opts.log?.error({ network, err }, 'a head listener failed') }),
    relayed: new RelayedTransactions(),
    log: opts.log,
    calls: 0,
    headsIdle: true,
    started: false,
    closed: false,
    hedgeDelayMs: policy.hedge.delayMs ?? policy.hedge.maxDelayMs,
    selectedHealthy: 0,
  }
  sizeCallClasses(pool)
  const chainIds = createChainIdCheck(pool, opts.verifyTimeoutMs ?? Math.min(opts.timeoutMs, 3000))
  const headPolling = createHeadPolling(
    pool,
    endpoints.map((e) => e.wsUrl ?? (isWebSocketUrl(e.url) ? e.url : undefined)),
  )
  // One node too: its ids are bound to their owner like any network's.
  const filters = createFilterRouting(pool, totalTimeoutMs)
  const bookkeeping = createBookkeeping(pool)
  const stateLog = createStateLog(pool)
  const bookTimer = setInterval(() => {
    bookkeeping()
    stateLog()
  }, 1000)
  bookTimer.unref()

  /** Not async: a call that finds a node at once makes no promise besides its run's. */
  function sendSlow(
    body: string | Buffer,
    o: SendOptions | undefined,
    origin: CallOrigin | undefined,
  ): Promise<UpstreamAnswer> {
    const now = Date.now()
    if (pool.headsIdle) headPolling.wake()
    // A filter lives on one node: created where selection picks, then used only there (docs/upstreams.md, "Filters").
    if (o?.method !== undefined && isFilterMethod(o.method))
      return filters.send(body, { ...o, method: o.method }, origin, now)
    const order = select(pool, now, o?.minBlock)
    if (members.some((m) => m.chain === 'unknown')) {
      // Nobody to serve: confirm a node now rather than fail the call; otherwise check in the background.
      if (order.length === 0)
        return chainIds.verifyUnknown(true).then(() => {
          const at = Date.now()
          return run({ pool, body, o, origin, now: at, order: select(pool, at, o?.minBlock), totalTimeoutMs })
        })
      void chainIds.verifyUnknown(false)
    }
    return run({ pool, body, o, origin, now, order, totalTimeoutMs })
  }

  return {
    network,
    heads: pool.heads,
    get chain() {
      return pool.expected
    },
    pinsFilters: true,
    get wsUrls() {
      return wsUrlsInOrder(pool, endpoints)
    },
    send(body, sendOpts, settled, id, origin) {
      pool.calls++
      // body.length counts UTF-16 units for a string: a cheap lower bound; only a candidate pays for the byte count.
      if (
        body.length * 3 > maxRequestBytes &&
        (typeof body === 'string' ? Buffer.byteLength(body) : body.length) > maxRequestBytes
      )
        return after(Promise.reject(tooLarge(network, maxRequestBytes)), settled)
      // One usable node (the common case): no selection, no clock read, one promise per call.
      if (
        members.length === 1 &&
        members[0]!.usable &&
        !(sendOpts?.method !== undefined && ATTEMPTS_ONLY.has(sendOpts.method)) &&
        !pool.headsIdle &&
        origin?.span === undefined
      ) {
        // A client's HTTP call that already waited in this process (10 ms or more: not a clock tick between its
        // headers and its body) takes the run of attempts, whose deadline timer counts that wait and is exact
        // (undici's own timeouts run up to ~0.5 s late).
        const since = sendOpts?.timeoutMs === undefined ? origin?.arrivedAt : undefined
        if (since === undefined || Date.now() - since < 10)
          return post(members[0]!, body, sendOpts?.timeoutMs ?? oneNodeTimeoutMs, settings, undefined, settled, id)
      }
      return after(sendSlow(body, sendOpts, origin), settled)
    },
    async verifyChainId() {
      if (checksChain) await chainIds.checkAtStartUp()
      // The first heads, so the served tip is known before the first call.
      await headPolling.start()
      pool.started = true
    },
    status() {
      const now = Date.now()
      return members.map((m) => memberStatus(pool, m, now))
    },
    async close() {
      pool.closed = true
      headPolling.close()
      clearInterval(bookTimer)
      await closeMembers(members)
    },
  }
}
