/** The log-in limiter on a real Redis: one window for every replica. */
import { randomBytes } from 'node:crypto'
import { expect, it } from 'vitest'
import { describeWithServices, redisUrl } from '../../test/support/services.ts'
import { useRedisConnections } from '../../test/support/redis.ts'
import { startTcpProxy } from '../../test/support/tcp-proxy.ts'
import { createRedisAttemptLimiter } from './login-limiter.ts'

const { connection, closeLater } = useRedisConnections()

describeWithServices(['redis'], 'Redis log-in limiter', () => {
  it('two replicas share one window: the sixth attempt is refused on either, with the time left', async () => {
    const prefix = `test:login:${randomBytes(6).toString('hex')}:`
    const opts = { maxAttempts: 5, windowMs: 60_000 }
    const a = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    const b = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    for (let i = 0; i < 5; i++)
      expect('attempt' in (await (i % 2 ? a : b).begin(['email:x', 'ip:1'], 1000 + i * 1000))).toBe(true)
    expect(await a.begin(['email:x'], 6000)).toEqual({ waitMs: 55_000 })
    expect(await b.begin(['email:y', 'ip:1'], 6000)).toEqual({ waitMs: 55_000 })
    expect('attempt' in (await b.begin(['email:y', 'ip:2'], 6000))).toBe(true)
    // The window slides: the first attempt leaves it at 61 s.
    expect('attempt' in (await a.begin(['email:x', 'ip:3'], 61_001))).toBe(true)
  })

  it('parallel attempts on two replicas: exactly the maximum is counted, the rest refused', async () => {
    const prefix = `test:login:${randomBytes(6).toString('hex')}:`
    const opts = { maxAttempts: 5, windowMs: 60_000 }
    const a = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    const b = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).begin(['email:z'], 1000)))
    expect(results.filter((r) => 'attempt' in r)).toHaveLength(5)
  })

  it('a successful log-in is forgiven on every replica', async () => {
    const prefix = `test:login:${randomBytes(6).toString('hex')}:`
    const opts = { maxAttempts: 2, windowMs: 60_000 }
    const a = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    const b = createRedisAttemptLimiter(await connection(prefix), 'login', opts)
    const first = await a.begin(['email:a', 'ip:1'], 0)
    await b.begin(['email:b', 'ip:1'], 0)
    expect('waitMs' in (await b.begin(['email:c', 'ip:1'], 0))).toBe(true)
    if (!('attempt' in first)) throw new Error('first attempt refused')
    a.forgive(first.attempt, 'email:a')
    await expect.poll(async () => 'attempt' in (await b.begin(['email:c', 'ip:1'], 0)), { timeout: 5000 }).toBe(true)
  })

  it('Redis unreachable: each replica limits on its own instead of failing the log-in', async () => {
    const prefix = `test:login:${randomBytes(6).toString('hex')}:`
    const proxy = await startTcpProxy(redisUrl)
    closeLater(proxy)
    const limiter = createRedisAttemptLimiter(await connection(prefix, `redis://127.0.0.1:${proxy.port}`), 'login', {
      maxAttempts: 2,
      windowMs: 60_000,
    })
    await proxy.cut()
    expect('attempt' in (await limiter.begin(['email:a'], 0))).toBe(true)
    expect('attempt' in (await limiter.begin(['email:a'], 0))).toBe(true)
    expect(await limiter.begin(['email:a'], 0)).toEqual({ waitMs: 60_000 })
  })
})
