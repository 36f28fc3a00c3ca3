import { describe, expect, test } from 'vitest'
import { createLoginLimiter } from './login-limiter.ts'
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.ts'
import { tokensEqual } from './sessions.ts'

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

describe('login limiter', () => {
  test('behavior: 5 failures per subject in a sliding minute, then a wait until the oldest expires', () => {
    const l = createLoginLimiter({ maxFailures: 5, windowMs: 60_000 })
    for (let i = 0; i < 5; i++) {
      expect(l.retryAfterMs(['email:a', 'ip:1'], i * 1000)).toBe(0)
      l.recordFailure(['email:a', 'ip:1'], i * 1000)
    }
    expect(l.retryAfterMs(['email:a'], 5000)).toBe(55_000)
    expect(l.retryAfterMs(['email:b', 'ip:1'], 5000)).toBe(55_000)
    expect(l.retryAfterMs(['email:b', 'ip:2'], 5000)).toBe(0)
    expect(l.retryAfterMs(['email:a'], 60_001)).toBe(0)
    l.reset('email:a')
    expect(l.retryAfterMs(['email:a'], 5000)).toBe(0)
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
