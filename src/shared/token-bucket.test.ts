import { describe, expect, it } from 'vitest'
import { TokenBucket } from './token-bucket.ts'

describe('TokenBucket', () => {
  it('starts full and refuses once the burst is spent', () => {
    let now = 1_000
    const b = new TokenBucket(10, 20, now)
    for (let i = 0; i < 20; i++) expect(b.take(1, now)).toBe(true)
    expect(b.take(1, now)).toBe(false)
    expect(b.tokens).toBe(0)
    now += 100 // 10/s for 0.1 s: one token
    expect(b.take(1, now)).toBe(true)
    expect(b.take(1, now)).toBe(false)
  })

  it('refills at its rate, never beyond the burst', () => {
    let now = 0
    const b = new TokenBucket(4, 4, now)
    b.charge(4)
    now += 500
    expect(b.refill(now).tokens).toBe(2)
    now += 10_000
    expect(b.refill(now).tokens).toBe(4)
  })

  it('a refused take leaves the tokens as they were', () => {
    const b = new TokenBucket(1, 3, 0)
    expect(b.take(2, 0)).toBe(true)
    expect(b.take(2, 0)).toBe(false)
    expect(b.tokens).toBe(1)
  })

  it('charges past zero (debts after the fact) and pays them back from later refills', () => {
    let now = 0
    const b = new TokenBucket(10, 10, now)
    b.charge(15)
    expect(b.tokens).toBe(-5)
    expect(b.has(0)).toBe(false)
    now += 1_000
    expect(b.refill(now).tokens).toBe(5)
    b.charge(-5) // a refund
    expect(b.has(10)).toBe(true)
  })

  it('ignores a clock that goes backwards', () => {
    const b = new TokenBucket(10, 10, 5_000)
    b.charge(10)
    b.refill(4_000)
    expect(b.tokens).toBe(0)
    b.refill(5_500)
    expect(b.tokens).toBe(5)
  })

  it('follows a changed rate and burst from the next refill', () => {
    let now = 0
    const b = new TokenBucket(10, 10, now)
    b.charge(10)
    b.ratePerSecond = 100
    b.burst = 100
    now += 500
    expect(b.refill(now).tokens).toBe(50)
  })
})
