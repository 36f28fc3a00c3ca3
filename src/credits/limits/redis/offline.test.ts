/**
 * A replica whose Redis is unreachable when it starts (docs/scale-out.md, "Started while Redis is unreachable"):
 * the limit store admits under the insurance limits, bounded by what the usage ledger says is left, and once Redis
 * is reached writes the seed (where Redis has no count) and then what it charged meanwhile, once.
 */
import { randomBytes } from 'node:crypto'
import { afterAll, expect, it } from 'vitest'
import { useRedisConnections } from '../../../../test/support/redis.ts'
import { describeWithServices, redisUrl } from '../../../../test/support/services.ts'
import { startTcpProxy, type TcpProxy } from '../../../../test/support/tcp-proxy.ts'
import { connectRedis, type RedisConnection } from '../../../redis/connection.ts'
import { createRedisLimitStore, type RedisLimitStore } from './store.ts'
import { utcDay, type KeyLimits } from '../memory.ts'

const r = (accountId: string, keyId: string): KeyLimits => ({
  accountId,
  keyId,
  accountCreditsPerDay: 10_000,
  accountCreditsPerSecond: 1_000_000,
  keyCreditsPerDay: null,
  keyCreditsPerSecond: null,
})

describeWithServices(['redis'], 'Redis limit store started while Redis is unreachable', () => {
  const redis = useRedisConnections()
  afterAll(async () => {
    const conn = await connectRedis({ url: redisUrl, prefix: 'x', commandTimeoutMs: 1000 })
    const left = await conn.client.keys('test:offline-start:*')
    if (left.length) await conn.client.del(...left)
    await conn.close()
  })

  /** A store on a connection through a proxy that is cut before it connects; `shared` reaches Redis directly. */
  async function startedWithoutRedis(
    reseed?: () => Promise<{ accounts: Map<string, number>; keys: Map<string, number> }>,
  ): Promise<{ store: RedisLimitStore; proxy: TcpProxy; shared: RedisConnection; prefix: string }> {
    const prefix = `test:offline-start:${randomBytes(5).toString('hex')}:`
    const proxy = await startTcpProxy(redisUrl)
    redis.closeLater(proxy)
    await proxy.cut()
    const conn = await redis.connection(prefix, `redis://127.0.0.1:${proxy.port}`)
    expect(conn.isReady()).toBe(false)
    const store = createRedisLimitStore({
      connection: conn,
      leaseCredits: 1000,
      leaseSyncMs: 100,
      insuranceShare: 0.5,
      ...(reseed ? { reseed } : {}),
    })
    redis.closeLater({ close: () => store.stop() })
    store.start()
    const shared = await redis.connection(prefix)
    return { store, proxy, shared, prefix }
  }

  const count = (c: RedisConnection, kind: 'a' | 'k', id: string) =>
    c.client.get(`${c.prefix}d:${utcDay(Date.now())}:${kind}:${id}`).then((v) => (v === null ? null : Number(v)))

  async function admitAll(store: RedisLimitStore, limits: KeyLimits, price: number): Promise<number> {
    let charged = 0
    for (;;) {
      const code = await store.admit(limits, price, Date.now())
      if (code !== null) return charged
      charged += price
    }
  }

  it('admits within min(share, what the ledger leaves); once Redis is back the seed and the usage are written once', async () => {
    const { store, proxy, shared } = await startedWithoutRedis()
    // Another replica has been counting in Redis (the epoch is set), but nobody has counted this account today.
    await shared.client.set(`${shared.prefix}epoch`, 'e')
    // The ledger says 7,000 of 10,000 are spent: the insurance share (5,000) is capped by the 3,000 left.
    await store.seed(new Map([['acc', 7000]]), new Map([['key', 7000]]), Date.now())
    expect(store.degraded).toBe(true)
    expect(await admitAll(store, r('acc', 'key'), 100)).toBe(3000)
    expect(store.usedToday('acc', Date.now())).toBe(10_000)
    expect(await count(shared, 'a', 'acc')).toBeNull()

    await proxy.restore()
    await expect.poll(() => store.degraded, { timeout: 10_000, interval: 20 }).toBe(false)
    // Seeded from the ledger (Redis had no count), then the 3,000 charged meanwhile: once, whatever the syncs.
    expect(await count(shared, 'a', 'acc')).toBe(10_000)
    expect(await count(shared, 'k', 'key')).toBe(10_000)
    await store.sync()
    await store.sync()
    expect(await count(shared, 'a', 'acc')).toBe(10_000)
    // Admission goes through Redis again (the lease script, first run on this connection): the balance is spent.
    expect(await store.admit(r('acc', 'key'), 100, Date.now())).toBe('DAILY_CREDITS_EXHAUSTED')
  })

  it('a count Redis already holds is kept (the seed from the ledger is older): only the usage charged meanwhile is added', async () => {
    const { store, proxy, shared } = await startedWithoutRedis()
    await shared.client.set(`${shared.prefix}epoch`, 'e')
    // Redis counted 2,500 (other replicas, leases included); the ledger read at start said 2,000.
    await shared.client.set(`${shared.prefix}d:${utcDay(Date.now())}:a:acc2`, '2500')
    await shared.client.set(`${shared.prefix}d:${utcDay(Date.now())}:k:key2`, '2500')
    await store.seed(new Map([['acc2', 2000]]), new Map([['key2', 2000]]), Date.now())
    // 600 charged without Redis, with a refund of 100 (a free error): 500 net.
    for (let i = 0; i < 6; i++) expect(await store.admit(r('acc2', 'key2'), 100, Date.now())).toBeNull()
    store.adjust('acc2', 'key2', -100, Date.now())
    await proxy.restore()
    await expect.poll(() => store.degraded, { timeout: 10_000, interval: 20 }).toBe(false)
    expect(await count(shared, 'a', 'acc2')).toBe(3000)
    expect(await count(shared, 'k', 'key2')).toBe(3000)
  })

  it('Redis empty when it is reached (no epoch): seeded from the ledger as read then, the usage charged meanwhile not added twice', async () => {
    // By the time Redis is back, the ledger (written every flush interval) holds the 300 charged meanwhile.
    const { store, proxy, shared } = await startedWithoutRedis(async () => ({
      accounts: new Map([['acc3', 1300]]),
      keys: new Map([['key3', 1300]]),
    }))
    await store.seed(new Map([['acc3', 1000]]), new Map([['key3', 1000]]), Date.now())
    for (let i = 0; i < 3; i++) expect(await store.admit(r('acc3', 'key3'), 100, Date.now())).toBeNull()
    await proxy.restore()
    await expect.poll(() => store.degraded, { timeout: 10_000, interval: 20 }).toBe(false)
    expect(await shared.client.exists(`${shared.prefix}epoch`)).toBe(1)
    expect(await count(shared, 'a', 'acc3')).toBe(1300)
    expect(await count(shared, 'k', 'key3')).toBe(1300)
  })
})
