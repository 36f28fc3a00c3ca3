/**
 * Redis connections for a test file (./redis.ts) on the test Redis: `connection(prefix)` opens a ready connection
 * under that prefix (or on another URL, here a TCP proxy in front of it); it and whatever `closeLater` got are closed
 * after each test, newest first.
 */
import { expect, it } from 'vitest'
import type { RedisConnection } from '../../src/redis/connection.ts'
import { useRedisConnections } from './redis.ts'
import { describeWithServices, redisUrl } from './services.ts'
import { startTcpProxy } from './tcp-proxy.ts'

describeWithServices(['redis'], 'Redis connections for a test file', () => {
  const redis = useRedisConnections()
  let first: RedisConnection | undefined
  const closed: string[] = []

  it('connection(prefix) is ready on the test Redis, its keys under the prefix', async () => {
    const prefix = `support-redis-${process.pid}:`
    first = await redis.connection(prefix)
    expect([first.isReady(), first.prefix, first.unreachableAtStart]).toEqual([true, prefix, undefined])
    await first.client.set(`${prefix}k`, 'v', 'PX', 5000)
    const other = await redis.connection('another:')
    expect(await other.client.get(`${prefix}k`)).toBe('v')
    await other.client.del(`${prefix}k`)
    redis.closeLater({ close: async () => void closed.push('older') })
    redis.closeLater({ close: async () => void closed.push('newer') })
  })

  it('closes them after each test, newest first', async () => {
    await expect(first!.client.ping()).rejects.toThrow()
    expect(closed).toEqual(['newer', 'older'])
  })

  it('connection(prefix, url) connects where the URL says', async () => {
    const proxy = await startTcpProxy(redisUrl)
    redis.closeLater(proxy)
    const c = await redis.connection('via-proxy:', `redis://127.0.0.1:${proxy.port}`)
    expect(await c.client.ping()).toBe('PONG')
    expect(c.client.options.port).toBe(proxy.port)
  })
})
