/** The Redis tier of the cache and the shared head floors, on a real Redis; two instances play two replicas. */
import { randomBytes } from 'node:crypto'
import { expect, it } from 'vitest'
import { describeWithServices, redisUrl } from '../../../test/support/services.ts'
import { useRedisConnections } from '../../../test/support/redis.ts'
import { startTcpProxy } from '../../../test/support/tcp-proxy.ts'
import { createRedisCacheTier, createRedisHeadFloorStore } from './cache-redis-tier.ts'
import { createMemoryCacheStore } from './cache-store.ts'

const { connection, closeLater } = useRedisConnections()
const newPrefix = () => `test:tier:${randomBytes(6).toString('hex')}:`
const tier = async (prefix: string, url?: string) => {
  const t = createRedisCacheTier(createMemoryCacheStore({ maxBytes: 1 << 20 }), await connection(prefix, url))
  closeLater(t)
  return t
}

describeWithServices(['redis'], 'Redis cache tier and head floors', () => {
  it('an answer stored on one replica is served by another, which then holds it in its own first tier', async () => {
    const prefix = newPrefix()
    const a = await tier(prefix)
    const b = await tier(prefix)
    const key = 'net1\0eth_getBlockByHash\0["0xabc",false]'
    a.set(key, Buffer.from('{"number":"0x1"}'), { immutable: true })
    const first = b.get(key)
    expect(first).toBeInstanceOf(Promise)
    await expect.poll(async () => (await b.get(key))?.toString()).toBe('{"number":"0x1"}')
    // Now from b's memory: synchronous.
    expect(b.get(key)?.toString()).toBe('{"number":"0x1"}')
    expect(await b.get('net1\0eth_getBlockByHash\0["0xdef",false]')).toBeUndefined()
  })

  it('a volatile answer keeps its expiry across replicas', async () => {
    const prefix = newPrefix()
    const a = await tier(prefix)
    const b = await tier(prefix)
    const key = 'net1\0eth_getBalance\0["0x1","0x10"]@0xhash'
    a.set(key, Buffer.from('"0x5"'), { immutable: false, ttlMs: 400 })
    await expect.poll(async () => (await b.get(key))?.toString()).toBe('"0x5"')
    await new Promise((resolve) => setTimeout(resolve, 600))
    expect(await b.get(key)).toBeUndefined()
    expect(await a.get(key)).toBeUndefined()
  })

  it("delete and clear(network) reach Redis and every replica's memory; other networks stay", async () => {
    const prefix = newPrefix()
    const a = await tier(prefix)
    const b = await tier(prefix)
    await b.listening
    a.set('n1\0m\0[1]', Buffer.from('1'), { immutable: true })
    a.set('n1\0m\0[2]', Buffer.from('2'), { immutable: true })
    a.set('n2\0m\0[1]', Buffer.from('3'), { immutable: true })
    // b holds all three in its own memory tier.
    await expect.poll(async () => (await b.get('n2\0m\0[1]'))?.toString()).toBe('3')
    await expect.poll(async () => (await b.get('n1\0m\0[1]'))?.toString()).toBe('1')
    expect(b.get('n1\0m\0[1]')?.toString()).toBe('1')
    a.delete('n1\0m\0[2]')
    a.clear('n1\0')
    // b's memory drops network n1 once Redis has (the message follows the deletes); n2 stays.
    await expect.poll(() => b.get('n1\0m\0[1]') === undefined || b.get('n1\0m\0[1]') instanceof Promise).toBe(true)
    expect(await b.get('n1\0m\0[1]')).toBeUndefined()
    expect(b.get('n2\0m\0[1]')?.toString()).toBe('3')
    const fresh = await tier(prefix)
    expect(await fresh.get('n1\0m\0[1]')).toBeUndefined()
    expect(await fresh.get('n1\0m\0[2]')).toBeUndefined()
    expect((await fresh.get('n2\0m\0[1]'))?.toString()).toBe('3')
  })

  it('Redis unreachable: the cache answers from memory or misses, never fails', async () => {
    const proxy = await startTcpProxy(redisUrl)
    closeLater(proxy)
    const a = await tier(newPrefix(), `redis://127.0.0.1:${proxy.port}`)
    await proxy.cut()
    a.set('n\0m\0[]', Buffer.from('x'), { immutable: true })
    expect(a.get('n\0m\0[]')?.toString()).toBe('x')
    expect(await a.get('n\0m\0[other]')).toBeUndefined()
  })

  it('head floors: a floor raised on one replica reaches the other, never goes down; a reset reaches both', async () => {
    const prefix = newPrefix()
    const a = createRedisHeadFloorStore(await connection(prefix))
    const b = createRedisHeadFloorStore(await connection(prefix))
    closeLater(a)
    closeLater(b)
    await a.start(['net'])
    await b.start(['net'])
    expect(a.raise('key1', 'net', 100)).toBe(100)
    await expect.poll(() => b.get('key1', 'net')).toBe(100)
    // b was told 100 by a: an older head from b's node does not lower it.
    expect(b.raise('key1', 'net', 99)).toBe(100)
    expect(b.raise('key1', 'net', 101)).toBe(101)
    await expect.poll(() => a.get('key1', 'net')).toBe(101)
    // A replica started later loads the floors.
    const c = createRedisHeadFloorStore(await connection(prefix))
    closeLater(c)
    await c.start(['net'])
    expect(c.get('key1', 'net')).toBe(101)
    a.reset('net')
    await expect.poll(() => b.get('key1', 'net') + c.get('key1', 'net')).toBe(0)
  })
})
