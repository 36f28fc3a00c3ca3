/**
 * Selection on its own, over a pool's state with real members (never sent anything here): which nodes take a call
 * and in what order, the weighted rotation, scores with hysteresis, the hedge delay, why no node can take a call,
 * and how each node is reported.
 */
import { describe, expect, it } from 'vitest'
import { ChaingateError } from '../../errors/index.ts'
import { RollingStats } from './latency.ts'
import type { Member } from './member.ts'
import { createBookkeeping, memberState, memberStatus, noneUsable, select, takeToken } from './selection.ts'
import { poolStateHarness } from './state.test-support.ts'

const poolState = poolStateHarness()
const NOW = 1_800_000_000_000
const labels = (order: Member[]) => order.map((m) => m.labels[0])
const node = (name: string, extra: object = {}) => ({ url: `http://${name}.invalid/`, labels: [name], ...extra })
/** A node's answers: `n` at `ms` each (and `failed` failures), in a fresh window. */
const answered = (m: Member, ms: number, n = 5, failed = 0) => {
  m.stats = new RollingStats()
  for (let i = 0; i < n; i++) m.stats.recordLatency(ms)
  for (let i = 0; i < failed; i++) m.stats.recordFailure()
}

describe('select', () => {
  it("rotates the first node among the best by weight (nginx's smooth weighted round-robin); the others follow", () => {
    const pool = poolState([node('a', { weight: 2 }), node('b')])
    const firsts: string[] = []
    for (let i = 0; i < 6; i++) {
      const order = select(pool, NOW, undefined)
      expect(order).toHaveLength(2)
      expect(order[0]).not.toBe(order[1])
      firsts.push(order[0]!.labels[0]!)
    }
    expect(firsts).toEqual(['a', 'b', 'a', 'a', 'b', 'a'])
    expect(pool.selectedHealthy).toBe(2)
  })

  it('primaries take calls; fallbacks only when no primary is healthy; an unhealthy node is a last resort', () => {
    const pool = poolState([node('p'), node('f', { role: 'fallback' }), node('q')])
    const [p, , q] = pool.members
    expect(labels(select(pool, NOW, undefined)).slice(2)).toEqual(['f'])
    p!.downUntil = NOW + 1000
    expect(labels(select(pool, NOW, undefined))).toEqual(['q', 'f', 'p'])
    expect(pool.selectedHealthy).toBe(2)
    q!.downUntil = NOW + 500
    // Last resorts by when they recover: q first.
    expect(labels(select(pool, NOW, undefined))).toEqual(['f', 'q', 'p'])
    expect(pool.selectedHealthy).toBe(1)
    // The cool-down over, p is a primary again.
    expect(labels(select(pool, NOW + 1000, undefined))[0]).toMatch(/^[pq]$/)
    expect(labels(select(pool, NOW + 1000, undefined)).at(-1)).toBe('f')
  })

  it('a lagging node, one below minBlock and one with an open breaker go last; a node out of rotation never', () => {
    const pool = poolState([node('a'), node('b'), node('c'), node('d'), node('e')], { maxLagBlocks: 5 })
    const [a, b, c, d, e] = pool.members
    pool.heads.report({ number: 100, hash: '0x64' })
    a!.head = 100
    b!.head = 94 // 6 behind: lagging
    c!.head = 98
    for (let i = 0; i < 5; i++) d!.breaker.failure(NOW) // the threshold: open for openMs
    d!.head = 100
    e!.usable = false // out of rotation: a wrong chain id
    e!.chain = 'wrong'
    expect(new Set(labels(select(pool, NOW, undefined)).slice(0, 2))).toEqual(new Set(['a', 'c']))
    expect(
      labels(select(pool, NOW, undefined))
        .slice(2)
        .sort(),
    ).toEqual(['b', 'd'])
    // minBlock 99: c (at 98) is not there yet.
    expect(labels(select(pool, NOW, 99))[0]).toBe('a')
    expect(
      labels(select(pool, NOW, 99))
        .slice(1)
        .sort(),
    ).toEqual(['b', 'c', 'd'])
    expect(pool.selectedHealthy).toBe(1)
    // Past the breaker's open time, d is allowed its probe: healthy again.
    expect(labels(select(pool, NOW + 5000, undefined))).toContain('d')
    expect(labels(select(pool, NOW + 5000, undefined)).indexOf('d')).toBeLessThan(3)
    expect(pool.selectedHealthy).toBe(3)
  })

  it('a provider back-off that is over puts the node back into rotation; one still running keeps it out', () => {
    const pool = poolState([node('a'), node('b')])
    const b = pool.members[1]!
    b.usable = false
    b.refusal = 'rate-limited'
    b.blockedUntil = NOW + 1000
    expect(labels(select(pool, NOW, undefined))).toEqual(['a'])
    expect(labels(select(pool, NOW + 1000, undefined)).sort()).toEqual(['a', 'b'])
    expect(b.usable).toBe(true)
    expect(b.refusal).toBeUndefined()
    // A node on a wrong chain id stays out whatever the time.
    const wrong = poolState([node('w')])
    wrong.members[0]!.usable = false
    wrong.members[0]!.chain = 'wrong'
    expect(select(wrong, NOW + 1e9, undefined)).toEqual([])
  })

  it("a node's rate budget: one token per call, none left within the second", () => {
    const pool = poolState([node('a', { maxRequestsPerSecond: 2 }), node('b')])
    const [a, b] = pool.members
    expect([takeToken(a!, NOW), takeToken(a!, NOW), takeToken(a!, NOW)]).toEqual([true, true, false])
    expect(takeToken(a!, NOW + 500)).toBe(true)
    expect(Array.from({ length: 10 }, () => takeToken(b!, NOW)).every(Boolean)).toBe(true)
  })
})

describe('bookkeeping', () => {
  it('scores by latency, error rate and weight; a node joins the best band within 1.5× and leaves it beyond 3×', () => {
    const pool = poolState([node('a'), node('b'), node('c')])
    const [a, b, c] = pool.members
    const tick = createBookkeeping(pool)
    answered(a!, 10)
    answered(b!, 14)
    answered(c!, 40)
    tick()
    expect(a!.score).toBeCloseTo(10, 0)
    expect([a!.inBand, b!.inBand, c!.inBand]).toEqual([true, true, false])
    // Out of the band: after the rotated-first node, the band comes before c whatever c's weight.
    for (let i = 0; i < 4; i++) expect(labels(select(pool, NOW, undefined)).at(-1)).toBe('c')
    // c at 2× the best: not enough to join (1.5×); b at 2.5× stays in (3×).
    answered(b!, 25)
    answered(c!, 20)
    tick()
    expect([b!.inBand, c!.inBand]).toEqual([true, false])
    answered(c!, 14)
    answered(b!, 31)
    tick()
    expect([b!.inBand, c!.inBand]).toEqual([false, true])
    // Failures weigh: 10 ms with a failure in two calls scores 10 × (1 + 10 × 0.5) = 60.
    answered(a!, 10, 5, 5)
    tick()
    expect(a!.score).toBeCloseTo(60, 0)
    // Weight divides the score.
    const weighted = poolState([node('w', { weight: 4 })])
    answered(weighted.members[0]!, 20)
    createBookkeeping(weighted)()
    expect(weighted.members[0]!.score).toBeCloseTo(5, 0)
  })

  it('a node without answers is in the band; latencies under 5 ms count as equal', () => {
    const pool = poolState([node('a'), node('b'), node('c')])
    const [a, b, c] = pool.members
    answered(a!, 0.2)
    answered(b!, 4)
    c!.inBand = false
    createBookkeeping(pool)()
    expect(a!.score).toBe(b!.score)
    expect([a!.inBand, b!.inBand, c!.inBand]).toEqual([true, true, true])
  })

  it("the hedge delay follows the latency quantile once there are 20 answers, within the policy's bounds", () => {
    const hedge = { enabled: true, delayMs: null, quantile: 0.9, minDelayMs: 30, maxDelayMs: 2000 }
    const pool = poolState([node('a'), node('b')], { hedge })
    const [a, b] = pool.members
    const tick = createBookkeeping(pool)
    answered(a!, 100, 10)
    tick()
    expect(pool.hedgeDelayMs).toBe(2000)
    answered(b!, 100, 10)
    tick()
    expect(pool.hedgeDelayMs).toBeGreaterThanOrEqual(99)
    expect(pool.hedgeDelayMs).toBeLessThanOrEqual(101)
    answered(a!, 1, 20)
    answered(b!, 1, 20)
    tick()
    expect(pool.hedgeDelayMs).toBe(30)
    answered(a!, 5000, 20)
    tick()
    expect(pool.hedgeDelayMs).toBe(2000)
    // A fixed delay is left alone.
    const fixed = poolState([node('a')], { hedge: { ...hedge, delayMs: 75 } })
    answered(fixed.members[0]!, 500, 30)
    createBookkeeping(fixed)()
    expect(fixed.hedgeDelayMs).toBe(75)
  })

  it('statistics windows rotate every 10 ticks: old answers leave the error rate after two windows', () => {
    const pool = poolState([node('a')])
    const a = pool.members[0]!
    const tick = createBookkeeping(pool)
    a.stats.recordFailure()
    a.stats.recordLatency(10)
    for (let i = 0; i < 9; i++) tick()
    expect(a.stats.errorRate()).toBe(0.5)
    tick() // the 10th: rotated once, still counted
    expect(a.stats.errorRate()).toBe(0.5)
    for (let i = 0; i < 10; i++) tick()
    expect(a.stats.errorRate()).toBe(0)
  })
})

describe('noneUsable', () => {
  it('a provider back-off is named first, with when to try again', () => {
    const pool = poolState([node('a'), node('b')], {}, { chainId: 1 })
    const [a, b] = pool.members
    a!.refusal = 'rate-limited'
    a!.refusalDetail = 'HTTP 429'
    a!.blockedUntil = NOW + 9_500
    b!.refusal = 'auth-failed'
    b!.refusalDetail = 'HTTP 401'
    b!.blockedUntil = NOW + 60_000
    const e = noneUsable(pool, NOW)
    expect(e.code).toBe('UPSTREAM_RATE_LIMITED')
    expect(e.message).toContain('(HTTP 429); try again in 10 s')
  })

  it("unconfirmed nodes: the node's own failure when it has one, else that none confirmed the chain id", () => {
    const pool = poolState([node('a'), node('b')], {}, { checked: true, chainId: 31341 })
    const e = noneUsable(pool, NOW)
    expect(e.code).toBe('UPSTREAM_UNAVAILABLE')
    expect(e.message).toBe('network net is unavailable: no node has confirmed chain id 31341 yet')
    const own = new ChaingateError('UPSTREAM_TIMEOUT', 'network net: the node did not answer within 3 s')
    pool.members[1]!.verifyError = own
    expect(noneUsable(pool, NOW)).toBe(own)
    for (const m of pool.members) m.chain = 'wrong'
    const wrong = noneUsable(pool, NOW)
    expect(wrong.code).toBe('UPSTREAM_WRONG_CHAIN')
    expect(wrong.message).toBe('network net is unavailable: every node answers a chain id other than 31341')
  })
})

describe('memberState and memberStatus', () => {
  it('names each state and why, in order: chain, provider back-off, breaker, cool-down, lag', () => {
    const pool = poolState([node('a')], { maxLagBlocks: 5 }, { checked: true })
    const m = pool.members[0]!
    expect(memberState(pool, m, NOW)).toEqual({ state: 'down', cause: 'unverified', reason: 'not checked yet' })
    m.chain = 'wrong'
    m.chainNote = 'answers chain id 1'
    expect(memberState(pool, m, NOW)).toEqual({
      state: 'cordoned',
      cause: 'wrong-chain-id',
      reason: 'answers chain id 1',
    })
    m.chain = 'confirmed'
    m.refusal = 'auth-failed'
    m.refusalDetail = 'HTTP 401'
    m.blockedUntil = NOW + 4_200
    expect(memberState(pool, m, NOW)).toEqual({
      state: 'cordoned',
      cause: 'auth-failed',
      reason: 'HTTP 401; out of rotation for 5 s',
    })
    m.blockedUntil = NOW
    for (let i = 0; i < 5; i++) m.breaker.failure(NOW)
    expect(memberState(pool, m, NOW)).toEqual({
      state: 'down',
      cause: 'breaker-open',
      reason: '5 failures in a row; probed again in 5 s',
    })
    expect(memberState(pool, m, NOW + 5000).reason).toBe('5 failures in a row; probed on the next call')
    m.breaker.success()
    m.downUntil = NOW + 100
    expect(memberState(pool, m, NOW)).toMatchObject({ state: 'down', cause: 'failing' })
    m.downUntil = 0
    pool.heads.report({ number: 50, hash: '0x32' })
    m.head = 40
    expect(memberState(pool, m, NOW)).toEqual({
      state: 'lagging',
      reason: '10 blocks behind the served tip (maxLagBlocks 5)',
    })
    m.head = 50
    expect(memberState(pool, m, NOW)).toEqual({ state: 'healthy' })
  })

  it('reports a node without its credentials, with its head, lag, error rate and latency', () => {
    const pool = poolState([
      { url: 'http://user:secret@node.invalid:8545/v3/0123456789abcdef', role: 'fallback', labels: ['eu'] },
    ])
    const m = pool.members[0]!
    pool.heads.report({ number: 120, hash: '0x78' })
    m.head = 118
    m.finalized = 100
    answered(m, 20, 2, 1)
    const s = memberStatus(pool, m, NOW)
    expect(s).toMatchObject({
      upstream: 'http://node.invalid:8545/…',
      role: 'fallback',
      labels: ['eu'],
      head: 118,
      finalized: 100,
      lagBlocks: 2,
      errorRate: 0.333,
      answers: 2,
      state: 'healthy',
    })
    expect(s.p50Ms).toBeCloseTo(20, 0)
    expect(JSON.stringify(s)).not.toContain('secret')
    expect(JSON.stringify(s)).not.toContain('0123456789abcdef')
  })
})
