/**
 * Which nodes of a pool take a call, and in what order (src/upstreams/pool/attempts.ts runs the call): health (down,
 * lagging, open breaker, rate budget, minBlock), scores with hysteresis recomputed once a second, a weighted
 * rotation among the best; the order subscriptions try the nodes in; and how each node is reported (/healthz,
 * `chaingate upstreams`).
 */
import { ChaingateError, errors } from '../../errors/index.ts'
import { refusalError } from './classify.ts'
import { chainLabel } from './family-rules.ts'
import { quantileOf } from './latency.ts'
import type { Member } from './member.ts'
import type { PoolState } from './state.ts'
import type { UpstreamEndpoint } from './types.ts'

/** Rolling statistics windows last this many bookkeeping ticks (1 s each). */
const WINDOW_TICKS = 10
/** Below this, latencies count as equal when scoring nodes (local nodes answer in well under a millisecond). */
const SCORE_FLOOR_MS = 5
/** Answers needed before the hedge delay follows the latency quantile (the maximum delay until then). */
const HEDGE_MIN_SAMPLES = 20

export const lagOf = (pool: PoolState, m: Member): number | undefined => {
  const tip = pool.heads.latest()
  return tip === undefined || m.head === undefined ? undefined : Math.max(0, tip - m.head)
}
const isLagging = (pool: PoolState, m: Member): boolean => {
  const lag = lagOf(pool, m)
  return lag !== undefined && lag > pool.policy.maxLagBlocks
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

// ---- bookkeeping: windows, scores, hedge delay (once a second, off the call path) ---------------------------
const scoreOf = (m: Member) =>
  (Math.max(SCORE_FLOOR_MS, m.stats.quantileMs(0.5) ?? 0) * (1 + 10 * m.stats.errorRate())) / m.weight
/** The pool's once-a-second bookkeeping (the caller runs it on a timer). */
export const createBookkeeping = (pool: PoolState): (() => void) => {
  const { members, policy } = pool
  let ticks = 0
  return () => {
    if (++ticks % WINDOW_TICKS === 0) for (const m of members) m.stats.rotate()
    if (policy.hedge.delayMs === null) {
      const q = quantileOf(
        members.map((m) => m.stats),
        policy.hedge.quantile,
        HEDGE_MIN_SAMPLES,
      )
      pool.hedgeDelayMs =
        q === undefined
          ? policy.hedge.maxDelayMs
          : Math.min(policy.hedge.maxDelayMs, Math.max(policy.hedge.minDelayMs, q))
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
}

// ---- selection -------------------------------------------------------------------------------------------
/** A token from the node's rate budget (always, without one). */
export const takeToken = (m: Member, now: number): boolean => m.budget === undefined || m.budget.take(1, now)
export const isHealthy = (pool: PoolState, m: Member, now: number, minBlock: number | undefined) =>
  m.downUntil <= now &&
  m.breaker.wouldAllow(now) &&
  !isLagging(pool, m) &&
  (minBlock === undefined || m.head === undefined || m.head >= minBlock)

/**
 * The nodes to try, in order: one healthy node of the best role picked by weighted rotation among the best
 * scored, the other healthy ones by role and score, then the unhealthy ones (down, lagging, below minBlock) as
 * a last resort. Fallbacks come first only when no primary is healthy.
 */
export const select = (pool: PoolState, now: number, minBlock: number | undefined): Member[] => {
  const members = pool.members
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
    if (isHealthy(pool, m, now, minBlock)) {
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
  pool.selectedHealthy = order.length
  if (spare.length > 1)
    spare.sort((a, b) => Math.max(a.downUntil, a.breaker.openUntil) - Math.max(b.downUntil, b.breaker.openUntil))
  for (const m of spare) order.push(m)
  return order
}

/** Why no node can take a call: a provider back-off first, then unconfirmed, then wrong chain ids. */
export const noneUsable = (pool: PoolState, now: number): ChaingateError => {
  const { members, network } = pool
  const expected = pool.expected === undefined ? '' : ` ${chainLabel(pool, pool.expected)}`
  const blocked = members
    .filter((m) => m.chain === 'confirmed' && m.refusal !== undefined)
    .sort((a, b) => a.blockedUntil - b.blockedUntil)[0]
  if (blocked) return refusalError(network, blocked.refusal!, blocked.refusalDetail, blocked.blockedUntil - now)
  const unknown = members.filter((m) => m.chain === 'unknown')
  if (unknown.length > 0) {
    // Its own failure (timeout, refused connection, …) says more than "unconfirmed".
    const failed = unknown.find((m) => m.verifyError instanceof ChaingateError)?.verifyError
    return (
      (failed as ChaingateError | undefined) ??
      errors.upstreamUnavailable(network, `no node has confirmed chain id${expected} yet`)
    )
  }
  return new ChaingateError(
    'UPSTREAM_WRONG_CHAIN',
    `network ${network} is unavailable: every node answers a chain id other than${expected}`,
  )
}

/** One node as /healthz and `chaingate upstreams` show it. */
export const memberStatus = (pool: PoolState, m: Member, now: number): UpstreamStatus => {
  const [p50, p99] = m.stats.quantilesMs([0.5, 0.99])
  const lag = lagOf(pool, m)
  return {
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
    ...memberState(pool, m, now),
  }
}

/** A node's state and why (memberStatus; the state-change log lines, src/upstreams/pool/state-log.ts). */
export const memberState = (
  pool: PoolState,
  m: Member,
  now: number,
): Pick<UpstreamStatus, 'state' | 'cause' | 'reason'> => {
  if (m.chain === 'wrong') return { state: 'cordoned', cause: 'wrong-chain-id', reason: m.chainNote! }
  if (m.chain === 'unknown') return { state: 'down', cause: 'unverified', reason: m.chainNote ?? 'not checked yet' }
  if (m.refusal !== undefined && m.blockedUntil > now)
    return {
      state: 'cordoned',
      cause: m.refusal,
      reason: `${m.refusalDetail}; out of rotation for ${Math.ceil((m.blockedUntil - now) / 1000)} s`,
    }
  if (m.breaker.isOpen)
    return {
      state: 'down',
      cause: 'breaker-open',
      reason: `${m.breaker.failures} failures in a row; ${
        m.breaker.openUntil > now
          ? `probed again in ${Math.ceil((m.breaker.openUntil - now) / 1000)} s`
          : 'probed on the next call'
      }`,
    }
  if (m.downUntil > now) return { state: 'down', cause: 'failing', reason: 'failed to answer; tried again shortly' }
  if (isLagging(pool, m))
    return {
      state: 'lagging',
      reason: `${lagOf(pool, m)} blocks behind the served tip (maxLagBlocks ${pool.policy.maxLagBlocks})`,
    }
  return { state: 'healthy' }
}

/**
 * The nodes' WebSocket URLs in the order subscriptions try them: nodes on a wrong chain last; then those not
 * healthy; primaries first (src/upstreams/subscriptions).
 */
export const wsUrlsInOrder = (pool: PoolState, endpoints: readonly UpstreamEndpoint[]): string[] => {
  const now = Date.now()
  const urls = endpoints.map((e, i) => ({ url: e.wsUrl ?? e.url.replace(/^http/i, 'ws'), m: pool.members[i]! }))
  const rank = ({ m }: { m: Member }) =>
    (m.chain === 'wrong' ? 4 : 0) +
    (m.usable && isHealthy(pool, m, now, undefined) ? 0 : 2) +
    (m.role === 'primary' ? 0 : 1)
  return urls.sort((a, b) => rank(a) - rank(b)).map((u) => u.url)
}
