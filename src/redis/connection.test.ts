/**
 * The Redis connection at start, against the test Redis (test/support/services.ts): unreachable is waited for
 * (the replica starts), refusing is a configuration error.
 */
import { expect, it } from 'vitest'
import { useRedisConnections } from '../../test/support/redis.ts'
import { describeWithServices, redisUrl } from '../../test/support/services.ts'
import { startTcpProxy } from '../../test/support/tcp-proxy.ts'
import { connectRedis, isRedisRefusal, RedisRefusedError } from './connection.ts'

describeWithServices(['redis'], 'Redis connection at start', () => {
  const redis = useRedisConnections()

  it('unreachable at start: resolves not ready with the reason, then becomes ready by itself; scripts defined before work', async () => {
    const proxy = await startTcpProxy(redisUrl)
    redis.closeLater(proxy)
    await proxy.cut()
    const errors: string[] = []
    const t0 = Date.now()
    const conn = await connectRedis({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix: 'test:conn:',
      commandTimeoutMs: 300,
      onError: (m) => errors.push(m),
    })
    redis.closeLater(conn)
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(conn.isReady()).toBe(false)
    expect(conn.unreachableAtStart).toMatch(/ECONNREFUSED/)
    // A script defined while Redis is away (as the stores do at start): commands fail fast meanwhile.
    conn.client.defineCommand('cgTestEcho', { numberOfKeys: 0, lua: 'return ARGV[1]' })
    const echo = (v: string) => (conn.client as unknown as { cgTestEcho(v: string): Promise<string> }).cgTestEcho(v)
    await expect(echo('x')).rejects.toThrow()
    const states: boolean[] = []
    conn.onStateChange((ready) => states.push(ready))
    await proxy.restore()
    await expect.poll(() => conn.isReady(), { timeout: 5000, interval: 20 }).toBe(true)
    expect(states).toContain(true)
    expect(await echo('back')).toBe('back')
    // The failed attempts at start were reported once by the start itself, not on every reconnection.
    expect(errors.filter((e) => e.includes('ECONNREFUSED'))).toEqual([])
  })

  it('a Redis that accepts the connection but never answers: the start waits startWaitMs at most', async () => {
    const proxy = await startTcpProxy(redisUrl)
    redis.closeLater(proxy)
    proxy.freeze()
    const t0 = Date.now()
    const conn = await connectRedis({
      url: `redis://127.0.0.1:${proxy.port}`,
      prefix: 'test:conn:',
      commandTimeoutMs: 300,
      startWaitMs: 400,
    })
    redis.closeLater(conn)
    expect(Date.now() - t0).toBeGreaterThanOrEqual(350)
    expect(Date.now() - t0).toBeLessThan(1500)
    expect(conn.isReady()).toBe(false)
    expect(conn.unreachableAtStart).toBeDefined()
    await proxy.restore()
    await expect.poll(() => conn.isReady(), { timeout: 5000, interval: 20 }).toBe(true)
    expect(await conn.client.ping()).toBe('PONG')
  })

  it('a Redis that answers and refuses the credentials is a configuration error naming the redacted URL', async () => {
    const err = await connectRedis({
      url: `redis://no-such-user:hunter3-secret@127.0.0.1:${new URL(redisUrl).port || '6379'}`,
      prefix: 'x',
      commandTimeoutMs: 300,
    }).then(
      () => undefined,
      (e: Error) => e,
    )
    expect(err).toBeInstanceOf(RedisRefusedError)
    expect(err!.message).toMatch(
      new RegExp(
        String.raw`^Redis at redis://no-such-user:\*\*\*@127\.0\.0\.1:\d+ \(config redis\.url\) ` +
          'refused the connection: WRONGPASS',
      ),
    )
    expect(err!.message).not.toContain('hunter3-secret')
  })

  it('tells refusals from outages', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' })
    expect(isRedisRefusal(reply('WRONGPASS invalid username-password pair or user is disabled.'))).toBe(true)
    expect(isRedisRefusal(reply('NOAUTH Authentication required.'))).toBe(true)
    expect(isRedisRefusal(reply('ERR invalid password'))).toBe(true)
    expect(
      isRedisRefusal(Object.assign(new Error('self-signed certificate'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' })),
    ).toBe(true)
    // Redis overloaded or away: an outage, waited for.
    expect(isRedisRefusal(reply('ERR max number of clients reached'))).toBe(false)
    expect(
      isRedisRefusal(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' })),
    ).toBe(false)
    expect(isRedisRefusal(Object.assign(new Error('getaddrinfo ENOTFOUND redis'), { code: 'ENOTFOUND' }))).toBe(false)
  })
})
