/**
 * The Redis limit store against a real Redis (test/support/services.ts), each test under its own key prefix.
 * Two store instances on one Redis play two replicas.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { expect, it } from 'vitest'
import { describeWithServices, redisUrl } from '../../../../test/support/services.ts'
import { startTcpProxy } from '../../../../test/support/tcp-proxy.ts'
import { connectRedis } from '../../../redis/connection.ts'
import { createRedisLimitStore } from './store.ts'
import { hasRedisServer, limits, reaped, redisReplicas, redisUsed } from './store.test-support.ts'

const { opened, newPrefix, replica } = redisReplicas()

describeWithServices(['redis'], 'Redis limit store: dead replicas', () => {
  it('a replica killed without a stop: another returns its unused lease once its heartbeat is gone', async () => {
    const prefix = newPrefix()
    const killedConn = await connectRedis({ url: redisUrl, prefix, commandTimeoutMs: 300 })
    const killed = createRedisLimitStore({
      connection: killedConn,
      leaseCredits: 1000,
      leaseSyncMs: 200,
      insuranceShare: 0.5,
    })
    const r = limits({ accountCreditsPerDay: 100_000 })
    for (let i = 0; i < 30; i++) expect(await killed.admit(r, 10, Date.now())).toBeNull()
    expect(await killed.sync()).toBe(true) // reports 300 spent; 700 still leased
    for (let i = 0; i < 5; i++) expect(await killed.admit(r, 10, Date.now())).toBeNull() // spent after the last sync
    // Redis counts its lease (at least 1,000) beyond the 350 spent.
    expect(await redisUsed(killedConn, 'acc', Date.now())).toBeGreaterThanOrEqual(1000)
    killedConn.client.disconnect() // SIGKILL: no stop, no hand-back
    const { store: survivor, conn } = await replica(prefix)
    // The heartbeat lasts 5 sync intervals (at least 3 s); the reaper runs on the first sync and every 10th after.
    await reaped(conn, prefix, killed.replicaId, () => survivor.sync())
    // What it reported spent stays counted; its lease, and what it spent after its last report, go back.
    expect(await redisUsed(conn, 'acc', Date.now())).toBe(300)
    expect(await survivor.sync()).toBe(true)
    expect(await redisUsed(conn, 'acc', Date.now())).toBe(300)
  })

  it('a replica cut off past its heartbeat is reaped; when back it re-counts its spending: no double count, no loss', async () => {
    const prefix = newPrefix()
    const proxy = await startTcpProxy(redisUrl)
    opened.push(proxy)
    const conn = await connectRedis({ url: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 300 })
    const cut = createRedisLimitStore({ connection: conn, leaseCredits: 1000, leaseSyncMs: 200, insuranceShare: 0.5 })
    opened.push(conn, { close: () => cut.stop() })
    const other = await replica(prefix)
    const r = limits({ accountCreditsPerDay: 100_000 })
    let charged = 0
    for (let i = 0; i < 20; i++) if ((await cut.admit(r, 10, Date.now())) === null) charged += 10
    await proxy.cut()
    // Spends from its lease (and then its insurance share) while cut off.
    for (let i = 0; i < 20; i++) if ((await cut.admit(r, 10, Date.now())) === null) charged += 10
    await reaped(other.conn, prefix, cut.replicaId, () => other.store.sync()) // its lease record is returned
    await proxy.restore()
    await expect.poll(() => cut.sync(), { timeout: 15_000, interval: 200 }).toBe(true)
    for (let i = 0; i < 20; i++) if ((await cut.admit(r, 10, Date.now())) === null) charged += 10
    expect(charged).toBe(600)
    await cut.stop()
    await other.store.stop()
    expect(await redisUsed(other.conn, 'acc', Date.now())).toBe(600)
  })

  // Needs the redis-server binary (CI installs it with Redis); skipped where only a remote Redis is reachable.
  it.skipIf(!hasRedisServer)(
    'Redis restarted without its data: the counters are seeded again from the ledger, not from zero',
    async () => {
      // A private redis-server without persistence (the shared one on 6379 is never stopped).
      const port = await new Promise<number>((resolve) => {
        const srv = createServer().listen(0, '127.0.0.1', () => {
          const p = (srv.address() as { port: number }).port
          srv.close(() => resolve(p))
        })
      })
      const startRedis = () =>
        spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
          stdio: 'ignore',
        })
      let server = startRedis()
      opened.push({ close: async () => void server.kill('SIGKILL') })
      const url = `redis://127.0.0.1:${port}`
      const ready = async () => {
        const c = await connectRedis({ url, prefix: 'p', commandTimeoutMs: 300 }).catch(() => undefined)
        await c?.close()
        return c !== undefined
      }
      await expect.poll(ready, { timeout: 10_000, interval: 100 }).toBe(true)
      let ledger = 0 // what the usage ledger holds (every charge, written at once here)
      const conn = await connectRedis({ url, prefix: newPrefix(), commandTimeoutMs: 300 })
      const resets: number[] = []
      const store = createRedisLimitStore({
        connection: conn,
        leaseCredits: 100,
        leaseSyncMs: 100,
        insuranceShare: 0.5,
        reseed: async () => ({ accounts: new Map([['acc', ledger]]), keys: new Map([['key', ledger]]) }),
        onReset: () => resets.push(ledger),
      })
      store.start()
      opened.push(conn, { close: () => store.stop() })
      await store.seed(new Map(), new Map(), Date.now())
      const r = limits({ accountCreditsPerDay: 2000 })
      for (let i = 0; i < 20; i++) if ((await store.admit(r, 50, Date.now())) === null) ledger += 50
      expect(ledger).toBe(1000)

      const exited = new Promise((resolve) => server.once('exit', resolve))
      server.kill('SIGKILL')
      await exited
      server = startRedis()
      await expect.poll(ready, { timeout: 10_000, interval: 100 }).toBe(true)
      await expect.poll(() => store.degraded, { timeout: 15_000, interval: 100 }).toBe(false)

      // From the ledger's 1,000, not from 0: exactly 1,000 more fit in the 2,000 balance.
      let after = 0
      for (let i = 0; i < 60; i++) if ((await store.admit(r, 50, Date.now())) === null) after += 50
      expect(resets).toEqual([1000])
      expect(after).toBe(1000)
    },
  )

  it('a lease request left unanswered (Redis hangs): the lease record shows what was not handed back, and it is', async () => {
    const prefix = newPrefix()
    const proxy = await startTcpProxy(redisUrl)
    opened.push(proxy)
    const conn = await connectRedis({ url: `redis://127.0.0.1:${proxy.port}`, prefix, commandTimeoutMs: 300 })
    const store = createRedisLimitStore({ connection: conn, leaseCredits: 1000, leaseSyncMs: 100, insuranceShare: 0.5 })
    opened.push(conn, { close: () => store.stop() })
    await store.seed(new Map(), new Map(), Date.now())
    const r = limits({ accountCreditsPerDay: 100_000 })
    let charged = 0
    if ((await store.admit(r, 10, Date.now())) === null) charged += 10 // leases 1,000
    proxy.freeze()
    // Beyond the lease: the script (handing back the leftover) never reaches Redis; the call goes on under insurance.
    if ((await store.admit(r, 5000, Date.now())) === null) charged += 5000
    expect(store.degraded).toBe(true)
    await proxy.restore()
    await expect.poll(() => store.sync(), { timeout: 15_000, interval: 200 }).toBe(true)
    await store.stop()
    const check = await connectRedis({ url: redisUrl, prefix, commandTimeoutMs: 1000 })
    opened.push(check)
    expect(charged).toBe(5010)
    expect(await redisUsed(check, 'acc', Date.now())).toBe(5010)
  })
})
