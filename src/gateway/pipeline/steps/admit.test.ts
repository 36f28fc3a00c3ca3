/** Step 3 on its own over the real memory limit store: reserve first, refuse without reserving, close on 402. */
import { describe, expect, it } from 'vitest'
import { createMemoryLimitStore, type KeyLimits } from '../../../credits/limits/memory.ts'
import type { KeyEntry } from '../../../keys/snapshot.ts'
import type { CallContext } from '../types.ts'
import { createAdmit } from './admit.ts'
import { evmNetwork } from '../../../networks/network.test-support.ts'

const NOW = Date.UTC(2026, 0, 1, 12)

function setup(perDay: number) {
  const limits = createMemoryLimitStore()
  const exhausted: string[] = []
  const admit = createAdmit({ limits, clock: { now: () => NOW }, onDailyExhausted: (id) => void exhausted.push(id) })
  const keyLimits: KeyLimits = {
    accountId: 'acc',
    keyId: 'key',
    accountCreditsPerDay: perDay,
    accountCreditsPerSecond: 1_000_000,
    keyCreditsPerDay: null,
    keyCreditsPerSecond: null,
  }
  const entry = { accountId: 'acc', limits: keyLimits, plan: { creditsPerDay: perDay } } as KeyEntry
  const ctx = (transport: 'http' | 'ws'): CallContext => ({
    entry,
    network: evmNetwork('net', 1),
    pool: undefined as never,
    transport,
  })
  return { limits, admit, exhausted, ctx }
}

describe('admit step', () => {
  it('reserves the full price; a request that does not fit is refused and reserves nothing', () => {
    const { limits, admit, ctx } = setup(200)
    expect(admit.request(ctx('http'), 150, NOW)).toBeNull()
    expect(limits.usedToday('acc', NOW)).toBe(150)
    expect(admit.request(ctx('http'), 80, NOW)).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(limits.usedToday('acc', NOW)).toBe(150)
    expect(admit.request(ctx('http'), 50, NOW)).toBeNull()
    expect(limits.usedToday('acc', NOW)).toBe(200)
  })

  it("an exhausted balance over HTTP closes the account's sockets; over WebSocket the session answers first", () => {
    const { admit, exhausted, ctx } = setup(100)
    expect(admit.request(ctx('ws'), 120, NOW)).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(exhausted).toEqual([])
    expect(admit.request(ctx('http'), 120, NOW)).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(exhausted).toEqual(['acc'])
  })

  it('a new WebSocket is refused only once the day is used up', () => {
    const { admit, ctx } = setup(100)
    expect(admit.connection(ctx('ws'))).toBeNull()
    expect(admit.request(ctx('ws'), 100, NOW)).toBeNull()
    expect(admit.connection(ctx('ws'))).toBe('DAILY_CREDITS_EXHAUSTED')
  })
})
