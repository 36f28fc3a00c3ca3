/**
 * Exact credits across replicas (docs/scale-out.md): two gateways on one PostgreSQL and one Redis, real HTTP,
 * concurrent clients on both. The charged total equals the daily balance and the sum of the answers'
 * x-credits-charged, and the usage ledger agrees; with Redis cut for a while, calls go on under the insurance
 * share and the shared counter catches up once.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterEach, expect, it } from 'vitest'
import { request } from 'undici'
import { startApp, type RunningApp } from '../../src/app/build.ts'
import { appInternals } from '../../src/app/app.test-support.ts'
import { parseConfig } from '../../src/config/load.ts'
import { utcDay } from '../../src/credits/limits/memory.ts'
import { creditsUsedToday } from '../../src/usage/queries.ts'
import { createLogger } from '../../src/observability/logger.ts'
import { connectRedis } from '../../src/redis/connection.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { createPgTestSchema, describeWithServices, redisUrl } from '../support/services.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'
import { balanceCall, spendUntilRefused } from './helpers/spend.ts'

const BALANCE = 8_000
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined)
})

async function replica(
  node: FakeNode,
  databaseUrl: string,
  redis: string,
  prefix: string,
  redisExtra: Record<string, unknown> = {},
): Promise<RunningApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-scale-'))
  const config = parseConfig({
    dataDir,
    gateway: { host: '127.0.0.1', port: 0, devAccount: null },
    networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
    plans: { tiny: { creditsPerDay: BALANCE, creditsPerSecond: 1_000_000, maxKeys: null } },
    database: { url: databaseUrl },
    redis: { url: redis, keyPrefix: prefix, leaseSyncMs: 200, commandTimeoutMs: 300, ...redisExtra },
    log: { level: 'silent', requests: false },
  })
  const app = await startApp({ config, logger: createLogger('silent') })
  cleanups.push(async () => {
    await app.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return app
}

const call = (app: RunningApp, key: string) => balanceCall(app.url, key)
const client = (app: RunningApp, key: string) => spendUntilRefused(app.url, key)

async function setup(redisExtra: Record<string, unknown> = {}, redis = redisUrl) {
  const node = await startFakeNode('0x1')
  cleanups.push(() => node.close())
  const schema = await createPgTestSchema('scaleout')
  cleanups.push(() => schema.drop())
  const prefix = `test:scale:${randomBytes(5).toString('hex')}:`
  const a = await replica(node, schema.url, redis, prefix, redisExtra)
  const b = await replica(node, schema.url, redisUrl, prefix, redisExtra)
  const { accounts, keys } = appInternals(a)
  const account = await accounts.create({ email: `scale-${prefix}@example.com`, plan: 'tiny' }, Date.now())
  const key = await keys.create({ accountId: account.id, name: 'k' }, Date.now())
  for (const app of [a, b]) await appInternals(app).keySnapshot.reload()
  return { a, b, account, key: key.key, prefix }
}

describeWithServices(['postgres', 'redis'], 'exact credits across two replicas (PostgreSQL + Redis)', () => {
  it('concurrent clients on two replicas: charged total == daily balance == sum of x-credits-charged == ledger', async () => {
    const { a, b, account, key } = await setup()
    const sums = await Promise.all([
      ...Array.from({ length: 6 }, () => client(a, key)),
      ...Array.from({ length: 6 }, () => client(b, key)),
    ])
    const total = sums.reduce((s, c) => s + c, 0)
    expect(total).toBe(BALANCE)
    // Both replicas served part of it.
    expect(sums.slice(0, 6).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
    expect(sums.slice(6).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
    for (const app of [a, b]) await appInternals(app).ledger.flush()
    expect(await creditsUsedToday(appInternals(a).database.db, account.id, Date.now())).toBe(BALANCE)
  })

  it('Redis cut on one replica: calls go on under the insurance share, the counter catches up once, the ledger matches', async () => {
    const proxy = await startTcpProxy(redisUrl)
    cleanups.push(() => proxy.close())
    const { a, b, account, key, prefix } = await setup(
      { insuranceShare: 0.25, leaseCredits: 400 },
      `redis://127.0.0.1:${proxy.port}`,
    )
    let charged = 0
    for (let i = 0; i < 10; i++) charged += (await call(a, key)).credits // 800 through Redis
    const conn = await connectRedis({ url: redisUrl, prefix, commandTimeoutMs: 1000 })
    cleanups.push(() => conn.close())
    const counted = async () => Number(await conn.client.get(`${prefix}d:${utcDay(Date.now())}:a:${account.id}`))
    // What replica a holds as a lease when Redis goes away (counted in Redis already).
    const held = (await counted()) - charged
    expect(held).toBeGreaterThanOrEqual(0)
    await proxy.cut()
    // Replica a alone: its lease, then at most a quarter of the balance (2,000), then 402.
    let offline = 0
    let refused = 0
    for (let i = 0; i < 40; i++) {
      const r = await call(a, key)
      offline += r.credits
      if (r.status === 402) refused++
      else expect(r.status).toBe(200)
    }
    expect(offline).toBeGreaterThanOrEqual(2000)
    expect(offline).toBeLessThanOrEqual(2000 + held)
    expect(refused).toBeGreaterThan(0)
    charged += offline
    // /healthz tells the balancer and the operator: degraded, Redis unreachable.
    const health = await request(`${a.url}/healthz`)
    const body = (await health.body.json()) as { status: string; storage: { redis: { reachable: boolean } } }
    expect(body.status).toBe('degraded')
    expect(body.storage.redis.reachable).toBe(false)
    // Replica b still reaches Redis and serves meanwhile.
    for (let i = 0; i < 10; i++) charged += (await call(b, key)).credits
    await proxy.restore()
    const store = appInternals(a).limits as unknown as { degraded: boolean }
    await expect.poll(() => store.degraded, { timeout: 15_000, interval: 100 }).toBe(false)
    // Then both run the balance out together: exact at the end, whatever was served during the outage.
    const rest = await Promise.all([client(a, key), client(b, key), client(a, key), client(b, key)])
    charged += rest.reduce((s, c) => s + c, 0)
    expect(charged).toBe(BALANCE)
    for (const app of [a, b]) await appInternals(app).ledger.flush()
    expect(await creditsUsedToday(appInternals(a).database.db, account.id, Date.now())).toBe(charged)
    // After both hand back their leases, Redis's count is exactly what was charged: no double count, no loss.
    await a.stop()
    await b.stop()
    expect(await counted()).toBe(charged)
  })
})
