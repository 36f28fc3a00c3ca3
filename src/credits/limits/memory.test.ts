import { describe, expect, it } from 'vitest'
import { createMemoryLimitStore, type KeyLimits } from './memory.ts'

type Req = KeyLimits & { credits: number }
const req = (over: Partial<Req> = {}): Req => ({
  accountId: 'a',
  keyId: 'k',
  credits: 80,
  accountCreditsPerDay: 1000,
  accountCreditsPerSecond: 500,
  keyCreditsPerDay: null,
  keyCreditsPerSecond: null,
  ...over,
})
/** Admits a request's credits with its limits. */
const admit = (s: ReturnType<typeof createMemoryLimitStore>, r: Req, nowMs: number) => s.admit(r, r.credits, nowMs)
const T0 = Date.parse('2026-01-01T12:00:00Z')

describe('memory limit store', () => {
  it('daily balance: never charges past the quota, refunds settle, resets at 00:00 UTC', () => {
    const s = createMemoryLimitStore()
    for (let i = 0; i < 12; i++) expect(admit(s, req(), T0 + i * 1000)).toBeNull() // 960
    expect(admit(s, req(), T0 + 13_000)).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(admit(s, req({ credits: 40 }), T0 + 13_000)).toBeNull()
    expect(s.usedToday('a', T0 + 13_000)).toBe(1000)
    s.adjust('a', 'k', -80, T0 + 13_000) // a free 5xx
    expect(s.usedToday('a', T0 + 13_000)).toBe(920)
    const nextDay = Date.parse('2026-01-02T00:00:00Z')
    expect(s.usedToday('a', nextDay)).toBe(0)
    expect(admit(s, req(), nextDay)).toBeNull()
  })

  it('throughput: a bucket of one second refills continuously', () => {
    const s = createMemoryLimitStore()
    const r = req({ accountCreditsPerDay: 1e9, accountCreditsPerSecond: 160 })
    expect(admit(s, r, T0)).toBeNull()
    expect(admit(s, r, T0)).toBeNull()
    expect(admit(s, r, T0)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED')
    expect(admit(s, r, T0 + 250)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED') // 40 credits back
    expect(admit(s, r, T0 + 500)).toBeNull() // 80 back
  })

  it('a call dearer than the whole bucket still runs when the bucket is full', () => {
    const s = createMemoryLimitStore()
    const r = req({ credits: 300, accountCreditsPerDay: 1e9, accountCreditsPerSecond: 200 })
    expect(admit(s, r, T0)).toBeNull()
    expect(admit(s, r, T0 + 1000)).toBe('ACCOUNT_THROUGHPUT_EXCEEDED') // 100 debt repaid, bucket at 100
    expect(admit(s, r, T0 + 1500)).toBeNull()
  })

  it('per-key limits are checked after the account ones, in Infura order', () => {
    const s = createMemoryLimitStore()
    expect(admit(s, req({ keyCreditsPerDay: 100 }), T0)).toBeNull()
    expect(admit(s, req({ keyCreditsPerDay: 100 }), T0 + 5000)).toBe('KEY_DAILY_CREDITS_EXHAUSTED')
    expect(admit(s, req({ keyId: 'k2', keyCreditsPerSecond: 100 }), T0)).toBeNull()
    expect(admit(s, req({ keyId: 'k2', keyCreditsPerSecond: 100 }), T0)).toBe('KEY_THROUGHPUT_EXCEEDED')
    // A refused call reserves nothing.
    expect(s.usedToday('a', T0)).toBe(160)
  })

  it('seed restores today only', () => {
    const s = createMemoryLimitStore()
    s.seed(new Map([['a', 900]]), new Map([['k', 900]]), T0)
    expect(admit(s, req({ credits: 101 }), T0)).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(s.keyUsedToday('k', T0)).toBe(900)
    expect(s.usedToday('a', T0 + 86_400_000)).toBe(0)
  })

  it('chargeWithin never goes beyond the account or key balance of the day', () => {
    const s = createMemoryLimitStore()
    expect(admit(s, req({ credits: 990 }), T0)).toBeNull()
    expect(s.chargeWithin(req(), 5, T0)).toBe(5)
    expect(s.chargeWithin(req(), 5, T0)).toBe(5)
    expect(s.chargeWithin(req(), 5, T0)).toBe(0)
    expect(s.usedToday('a', T0)).toBe(1000)
    // The key's own daily limit caps it too.
    expect(s.chargeWithin(req({ accountId: 'b', keyId: 'kb', keyCreditsPerDay: 7 }), 5, T0)).toBe(5)
    expect(s.chargeWithin(req({ accountId: 'b', keyId: 'kb', keyCreditsPerDay: 7 }), 5, T0)).toBe(2)
    expect(s.keyUsedToday('kb', T0)).toBe(7)
    // A new day, a new balance.
    expect(s.chargeWithin(req(), 5, T0 + 86_400_000)).toBe(5)
  })
})
