/**
 * The Redis limit store when Redis is unreachable or restarted, and two replicas racing for one balance, against a
 * real Redis (test/support/services.ts) behind a TCP proxy the tests cut.
 */
import { expect, it } from 'vitest'
import { describeWithServices, redisUrl } from '../../../../test/support/services.ts'
import { startTcpProxy } from '../../../../test/support/tcp-proxy.ts'
import { connectRedis } from '../../../redis/connection.ts'
import { createRedisLimitStore } from './store.ts'
import { limits, redisReplicas, redisUsed } from './store.test-support.ts'

const { opened, newPrefix, replica } = redisReplicas()

/** A started store on `url` with a short command timeout, recording each outage change. */
async function startStore(url: string, prefix: string) {
  const outages: boolean[] = []
  const conn = await connectRedis({ url, prefix, commandTimeoutMs: 300 })
  const store = createRedisLimitStore({
    connection: conn,
    leaseCredits: 100,
    leaseSyncMs: 100,
    insuranceShare: 0.25,
    onOutage: (down) => outages.push(down),
  })
  store.start()
  return { conn, store, outages }
}

describeWithServices(['redis'], 'Redis limit store: outages', () => {
  it('Redis unreachable: calls go on under the insurance share; once it is back the counters catch up', async () => {
    const prefix = newPrefix()
    const proxy = await startTcpProxy(redisUrl)
    opened.push(proxy)
    const { conn, store, outages } = await startStore(`redis://127.0.0.1:${proxy.port}`, prefix)
    opened.push(conn, { close: () => store.stop() })
    const other = await replica(prefix, { leaseCredits: 0 })
    const r = limits({ accountCreditsPerDay: 10_000 })

    let charged = 0
    for (let i = 0; i < 20; i++) if ((await store.admit(r, 50, Date.now())) === null) charged += 50
    expect(charged).toBe(1000)
    expect(await other.store.admit(r, 1000, Date.now())).toBeNull() // another replica's usage meanwhile
    // What this replica holds as a lease when Redis goes away (counted in Redis already).
    const held = (await redisUsed(other.conn, 'acc', Date.now())) - charged - 1000
    expect(held).toBeGreaterThanOrEqual(0)

    await proxy.cut()
    // Admitted on this replica alone: its lease, then up to a quarter of the daily balance (2,500).
    let offline = 0
    let refused = 0
    for (let i = 0; i < 100; i++) {
      const code = await store.admit(r, 50, Date.now())
      if (code === null) offline += 50
      else {
        expect(code).toBe('DAILY_CREDITS_EXHAUSTED')
        refused++
      }
    }
    expect(store.degraded).toBe(true)
    expect(outages).toEqual([true])
    expect(offline).toBeGreaterThanOrEqual(2500)
    expect(offline).toBeLessThanOrEqual(2500 + held)
    expect(refused).toBeGreaterThan(0)
    // A refund during the outage is counted too.
    store.adjust('acc', 'key', -50, Date.now())
    offline -= 50
    charged += offline

    await proxy.restore()
    await expect.poll(() => store.degraded, { timeout: 15_000, interval: 100 }).toBe(false)
    expect(outages).toEqual([true, false])
    // Caught up: every credit charged here while Redis was away is in Redis once (two more syncs change nothing).
    await store.sync()
    await store.stop()
    await store.sync()
    expect(await redisUsed(other.conn, 'acc', Date.now())).toBe(charged + 1000)
    // And the shared limit holds again: the other replica can use exactly what is left.
    const left = 10_000 - charged - 1000
    expect(await other.store.admit(r, left + 10, Date.now())).toBe('DAILY_CREDITS_EXHAUSTED')
    expect(await other.store.admit(r, left, Date.now())).toBeNull()
  })

  it('a stopped store does not report its connection closing (the app stops it first) as an outage', async () => {
    const { conn, store, outages } = await startStore(redisUrl, newPrefix())
    expect(await store.admit(limits({ accountCreditsPerDay: 10_000 }), 50, Date.now())).toBeNull()
    await store.stop()
    await conn.close()
    await new Promise((r) => setTimeout(r, 200))
    expect(outages).toEqual([])
  })
})
