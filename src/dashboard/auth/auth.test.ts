import { describe, expect, test } from 'vitest'
import { createAttemptLimiter } from '../../accounts/login-limiter.ts'
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.ts'
import { tokensEqual } from './logins.ts'

describe('passwords', () => {
  test('behavior: scrypt hash is self-describing, salted, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery')
    const b = await hashPassword('correct horse battery')
    expect(a).toMatch(/^scrypt\$N=32768,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/)
    expect(a).not.toBe(b)
    expect(a).not.toContain('correct horse')
    expect(await verifyPassword('correct horse battery', a)).toBe(true)
    expect(await verifyPassword('correct horse batterY', a)).toBe(false)
    expect(await verifyPassword('x', 'garbage')).toBe(false)
    expect(await verifyAgainstDummy('anything')).toBe(false)
  })

  test('error: too short or too long passwords are refused', () => {
    expect(passwordProblem('short')).toMatch(/at least 8/)
    expect(passwordProblem('x'.repeat(1025))).toMatch(/at most/)
    expect(passwordProblem('long enough')).toBeNull()
  })
})

describe('attempt limiter', () => {
  test('behavior: 5 attempts per subject in a sliding minute, then a wait until the oldest expires', () => {
    const l = createAttemptLimiter({ maxAttempts: 5, windowMs: 60_000 })
    for (let i = 0; i < 5; i++) expect('attempt' in l.begin(['email:a', 'ip:1'], i * 1000)).toBe(true)
    expect(l.begin(['email:a'], 5000)).toEqual({ waitMs: 55_000 })
    expect(l.begin(['email:b', 'ip:1'], 5000)).toEqual({ waitMs: 55_000 })
    expect('attempt' in l.begin(['email:b', 'ip:2'], 5000)).toBe(true)
    expect('attempt' in l.begin(['email:a', 'ip:3'], 60_001)).toBe(true)
  })

  test('behavior: an attempt counts when it begins, so the 6th of 6 concurrent ones is refused before any ends', () => {
    const l = createAttemptLimiter({ maxAttempts: 5, windowMs: 60_000 })
    const begun = Array.from({ length: 6 }, () => l.begin(['email:a', 'ip:1'], 1000))
    expect(begun.filter((b) => 'attempt' in b)).toHaveLength(5)
    expect(begun[5]).toEqual({ waitMs: 60_000 })
  })

  test('behavior: a forgiven attempt (successful log-in) no longer counts; resetting a subject clears it', () => {
    const l = createAttemptLimiter({ maxAttempts: 2, windowMs: 60_000 })
    const first = l.begin(['email:a', 'ip:1'], 0)
    l.begin(['email:b', 'ip:1'], 0)
    expect('waitMs' in l.begin(['email:c', 'ip:1'], 0)).toBe(true)
    if (!('attempt' in first)) throw new Error('first attempt refused')
    l.forgive(first.attempt, 'email:a')
    expect('attempt' in l.begin(['email:c', 'ip:1'], 0)).toBe(true)
  })
})

describe('tokens', () => {
  test('behavior: constant-time equality, missing tokens never match', () => {
    expect(tokensEqual('abc', 'abc')).toBe(true)
    expect(tokensEqual('abc', 'abd')).toBe(false)
    expect(tokensEqual('abc', 'abcd')).toBe(false)
    expect(tokensEqual(undefined, undefined)).toBe(false)
    expect(tokensEqual('', '')).toBe(false)
  })
})
