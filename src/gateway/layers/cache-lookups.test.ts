/**
 * chaingate_cache_lookups_total over two replicas' layers on a real Redis tier: a look-up is counted once, as a hit
 * of the tier that held the answer (memory, redis) or a miss, under its network and cache rule.
 */
import { randomBytes } from 'node:crypto'
import { Registry } from 'prom-client'
import { expect, it } from 'vitest'
import { describeWithServices } from '../../../test/support/services.ts'
import { useRedisConnections } from '../../../test/support/redis.ts'
import type { RpcCall } from '../../jsonrpc/types.ts'
import { createHeadTracker } from '../../upstreams/pool/heads.ts'
import type { UpstreamAnswer, UpstreamPool } from '../../upstreams/pool/pool.ts'
import { createCacheLookups } from './cache-lookups.ts'
import { createRedisCacheTier } from './cache-redis-tier.ts'
import { createMemoryCacheStore } from './cache-store.ts'
import { createCallLayers } from './layers.ts'
import { testLayerOptions } from './layers.test-support.ts'

const { connection, closeLater } = useRedisConnections()

/** A node answering every call with `"0x1"`, counting the calls it got. */
function node() {
  const pool = {
    network: 'n',
    heads: createHeadTracker(),
    calls: 0,
    send(body: string | Buffer): Promise<UpstreamAnswer> {
      pool.calls++
      const { id } = JSON.parse(body.toString()) as { id: number }
      const text = JSON.stringify({ jsonrpc: '2.0', id, result: '0x1' })
      return Promise.resolve({ body: Buffer.from(text), latencyMs: 1, upstream: 'stub', attempts: 1 })
    },
  }
  return pool
}

const chainId: RpcCall = { id: 1, method: 'eth_chainId', params: [], hasId: true } as unknown as RpcCall
const RAW = '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}'

describeWithServices(['redis'], 'cache look-up counts', () => {
  it('a miss on one replica, a redis hit on the other, then memory hits there (a batch entry too)', async () => {
    const prefix = `test:lookups:${randomBytes(6).toString('hex')}:`
    const lookups = createCacheLookups()
    const replica = async () => {
      const store = createRedisCacheTier(createMemoryCacheStore({ maxBytes: 1 << 20 }), await connection(prefix))
      closeLater(store)
      const pool = node()
      const layers = createCallLayers(
        testLayerOptions({
          pool: pool as unknown as UpstreamPool,
          heads: pool.heads,
          store,
          getLogs: {
            maxBlockRange: 10,
            maxResults: 10,
            upstreamMaxBlockRange: null,
            splitConcurrency: 1,
            maxSplits: 1,
          },
          // Both replicas count into the same counts here, so one scrape shows both.
          lookups: lookups.of('n'),
        }),
      )
      return { pool, layers }
    }
    const a = await replica()
    const b = await replica()
    const registry = new Registry()
    lookups.register(registry, true)
    const series = async () =>
      (await registry.metrics()).split('\n').filter((l) => l.startsWith('chaingate_cache_lookups_total{'))

    expect(await series()).toEqual([])
    await a.layers.send(chainId, RAW, 'k')
    expect(a.pool.calls).toBe(1)
    // The answer reaches Redis in the background: b asks once it is there.
    const redis = (await connection(prefix)).client
    await expect.poll(async () => (await redis.keys(`${prefix}c:*`)).length).toBe(1)
    const fromRedis = b.layers.send(chainId, RAW, 'k')
    expect(fromRedis).toBeInstanceOf(Promise)
    expect((await fromRedis).source).toBe('cache')
    // Now in b's memory: synchronous; a batch entry too.
    expect((b.layers.send(chainId, RAW, 'k') as UpstreamAnswer).source).toBe('cache')
    expect(b.layers.batchHit(chainId)).toBeDefined()
    expect(b.pool.calls).toBe(0)
    expect(await series()).toEqual([
      'chaingate_cache_lookups_total{network="n",rule="static",result="hit",tier="memory"} 2',
      'chaingate_cache_lookups_total{network="n",rule="static",result="hit",tier="redis"} 1',
      'chaingate_cache_lookups_total{network="n",rule="static",result="miss",tier="none"} 1',
    ])
  })
})
