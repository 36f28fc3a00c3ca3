/**
 * A replica started while Redis is unreachable (docs/scale-out.md, "Started while Redis is unreachable"): a real
 * `chaingate start` process whose path to Redis is cut by a TCP proxy, next to an in-process replica that reaches
 * Redis, both on one PostgreSQL. It starts, logs one warning line (URL redacted), serves under the insurance share
 * with /healthz degraded; once Redis is restored it reports ok, the counters catch up (Redis count == ledger == sum
 * of x-credits-charged, nothing charged twice) and a key revoked on the other replica meanwhile is refused. The same
 * for a replica cut off mid-run; one stopped before Redis is back stops at once; a Redis refusing the password
 * stops start-up.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { afterEach, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../src/app/build.ts'
import { appInternals } from '../../src/app/app.test-support.ts'
import { parseConfig } from '../../src/config/load.ts'
import { utcDay } from '../../src/credits/limits/memory.ts'
import { creditsUsedToday } from '../../src/usage/queries.ts'
import { openDatabase } from '../../src/db/database.ts'
import { createLogger } from '../../src/observability/logger.ts'
import { startFakeNode } from '../support/fake-node.ts'
import {
  cleanupProcesses,
  removeDirs,
  runCli,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'
import { useRedisConnections } from '../support/redis.ts'
import { createPgTestSchema, describeWithServices, redisUrl } from '../support/services.ts'
import { startTcpProxy } from '../support/tcp-proxy.ts'
import { balanceCall, spendUntilRefused } from './helpers/spend.ts'

const BALANCE = 8_000
const SHARE = 0.25
const plans = { tiny: { creditsPerDay: BALANCE, creditsPerSecond: 1_000_000, maxKeys: null } }
const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined)
  await cleanupProcesses()
})

const call = balanceCall
const runOut = spendUntilRefused

async function health(
  base: string,
): Promise<{ status: string; storage: { redis: { reachable: boolean; insuranceMode: boolean } } }> {
  const res = await request(`${base}/healthz`)
  expect(res.statusCode).toBe(200)
  return (await res.body.json()) as never
}

/** A fake node, a PostgreSQL schema, a Redis key prefix and a TCP path to Redis the test can cut; all cleaned up. */
async function nodeSchemaAndRedisPath() {
  const node = await startFakeNode('0x1')
  cleanups.push(() => node.close())
  const schema = await createPgTestSchema('redisstart')
  cleanups.push(() => schema.drop())
  const prefix = `test:redis-start:${randomBytes(5).toString('hex')}:`
  const proxy = await startTcpProxy(redisUrl)
  cleanups.push(() => proxy.close())
  return { node, schema, prefix, proxy }
}

describeWithServices(['postgres', 'redis'], 'a replica started or cut off while Redis is unreachable', () => {
  const redis = useRedisConnections()

  it('serves under the insurance share with /healthz degraded, then joins: counters caught up once, a revocation made meanwhile enforced', async () => {
    const { node, schema, prefix, proxy } = await nodeSchemaAndRedisPath()
    await proxy.cut()

    // Replica b reaches Redis (and migrates the database).
    const dirB = mkdtempSync(join(tmpdir(), 'chaingate-redis-start-'))
    cleanups.push(async () => rmSync(dirB, { recursive: true, force: true }))
    const redisConfig = { keyPrefix: prefix, leaseSyncMs: 200, commandTimeoutMs: 300, insuranceShare: SHARE }
    const b: RunningApp = await startApp({
      config: parseConfig({
        dataDir: dirB,
        gateway: { host: '127.0.0.1', port: 0, devAccount: null },
        networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
        plans,
        database: { url: schema.url },
        redis: { url: redisUrl, ...redisConfig },
        log: { level: 'silent', requests: false },
      }),
      logger: createLogger('silent'),
    })
    cleanups.push(() => b.stop())
    const onB = appInternals(b)
    const email = `redis-start-${randomBytes(3).toString('hex')}@example.com`
    const account = await onB.accounts.create({ email, plan: 'tiny' }, Date.now())
    const key = (await onB.keys.create({ accountId: account.id, name: 'k' }, Date.now())).key
    const other = await onB.keys.create(
      {
        accountId: (await onB.accounts.create({ email: `other-${email}`, plan: 'tiny' }, Date.now())).id,
        name: 'other',
      },
      Date.now(),
    )
    await onB.keySnapshot.reload()
    let charged = 0
    for (let i = 0; i < 20; i++) charged += (await call(b.url, key)).credits
    expect(charged).toBe(1600)
    await onB.ledger.flush()

    // Replica a: a process whose Redis is unreachable from the start (the dev account is the test's, so the banner
    // prints its key). Its settings poll is a minute apart: only the resync after Redis is back can show it a change.
    const dirA = mkdtempSync(join(tmpdir(), 'chaingate-redis-start-'))
    cleanups.push(async () => rmSync(dirA, { recursive: true, force: true }))
    const t0 = Date.now()
    const a = await startChaingate([
      '--config',
      writeConfig(dirA, 'a.json', {
        dataDir: dirA,
        gateway: { host: '127.0.0.1', port: 0, devAccount: { email, plan: 'tiny' }, settingsPushPollMs: 60_000 },
        networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
        plans,
        database: { url: schema.url },
        redis: { url: `redis://:hunter3-secret@127.0.0.1:${proxy.port}`, ...redisConfig },
        wallet: { enabled: false },
        log: { level: 'info', requests: false, destination: 'stdout' },
      }),
    ])
    cleanups.push(() => a.signal('SIGTERM'))
    const startMs = Date.now() - t0
    const base = a.banner.gatewayUrl.replace(/\/$/, '')
    expect(a.banner.devKey).toBe(key)
    // One warning line, naming the redacted URL and the reason; the password nowhere.
    const warnings = a
      .stdout()
      .split('\n')
      .filter((l) => l.includes('unreachable at start'))
    expect(warnings).toHaveLength(1)
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, redis: `redis://:***@127.0.0.1:${proxy.port}` })
    expect(warnings[0]).toMatch(/ECONNREFUSED/)

    expect(await health(base)).toMatchObject({
      status: 'degraded',
      storage: { redis: { reachable: false, insuranceMode: true } },
    })
    // Revoked on b meanwhile: pushed over Redis, which a does not reach, so a still serves it.
    expect((await call(base, other.key)).status).toBe(200)
    await onB.keys.revoke(other.id, Date.now())
    await waitFor(async () => (await call(b.url, other.key)).status === 401, 2000, 'b refusing the revoked key', 20)
    expect((await call(base, other.key)).status).toBe(200)

    // The insurance share: a quarter of the balance (2,000; the ledger leaves 6,400), then 402.
    const offline = await runOut(base, key)
    expect(offline).toBe(BALANCE * SHARE)
    charged += offline

    await proxy.restore()
    const restoredAt = Date.now()
    await waitFor(
      async () => (await call(base, other.key)).status === 401,
      5000,
      'a refusing the key revoked while it was cut off',
      20,
    )
    const revokedMs = Date.now() - restoredAt
    expect(revokedMs).toBeLessThan(1500)
    await waitFor(async () => (await health(base)).status === 'ok', 10_000, 'a healthy once Redis is back')
    expect((await health(base)).storage.redis).toEqual({ reachable: true, insuranceMode: false })

    // Both run the balance out: exact at the end, whatever a served without Redis.
    const rest = await Promise.all([runOut(base, key), runOut(b.url, key), runOut(base, key), runOut(b.url, key)])
    charged += rest.reduce((s, c) => s + c, 0)
    expect(charged).toBe(BALANCE)
    // a stops (ledger flushed, leases handed back), then b: the ledger and Redis count exactly what was charged.
    expect((await a.signal('SIGTERM')).code).toBe(0)
    await b.stop()
    const counter = await redis.connection(prefix)
    expect(Number(await counter.client.get(`${prefix}d:${utcDay(Date.now())}:a:${account.id}`))).toBe(charged)
    const pg = await openDatabase({ url: schema.url, file: '', poolSize: 1 })
    cleanups.push(() => pg.close())
    expect(await creditsUsedToday(pg.db, account.id, Date.now())).toBe(charged)
    expect(a.stdout() + a.stderr()).not.toContain('hunter3-secret')
    console.log(`started without Redis in ${startMs} ms; revocation enforced ${revokedMs} ms after Redis was back`)
  }, 120_000)

  it('cut off mid-run: a key revoked on the other replica meanwhile is refused within about a second of Redis being back', async () => {
    const { node, schema, prefix, proxy } = await nodeSchemaAndRedisPath()
    // Both poll settings_version only every minute: within the test only the push, or the reload after it, counts.
    const replica = async (url: string) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-redis-start-'))
      cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
      const app = await startApp({
        config: parseConfig({
          dataDir,
          gateway: { host: '127.0.0.1', port: 0, devAccount: null, settingsPushPollMs: 60_000 },
          networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
          plans,
          database: { url: schema.url },
          redis: { url, keyPrefix: prefix, leaseSyncMs: 200, commandTimeoutMs: 300, insuranceShare: SHARE },
          log: { level: 'silent', requests: false },
        }),
        logger: createLogger('silent'),
      })
      cleanups.push(() => app.stop())
      return app
    }
    const a = await replica(`redis://127.0.0.1:${proxy.port}`)
    const b = await replica(redisUrl)
    const { accounts, keys } = appInternals(b)
    const account = await accounts.create(
      { email: `cut-${randomBytes(3).toString('hex')}@example.com`, plan: 'tiny' },
      Date.now(),
    )
    const k = await keys.create({ accountId: account.id, name: 'k' }, Date.now())
    await waitFor(async () => (await call(a.url, k.key)).status === 200, 2000, 'a serving the new key (pushed)', 20)

    await proxy.cut()
    await waitFor(async () => (await health(a.url)).status === 'degraded', 5000, 'a degraded')
    await keys.revoke(k.id, Date.now())
    await waitFor(async () => (await call(b.url, k.key)).status === 401, 2000, 'b refusing the revoked key', 20)
    // a did not hear it (and polls a minute apart): still served, under its insurance share.
    expect((await call(a.url, k.key)).status).toBe(200)

    await proxy.restore()
    const restoredAt = Date.now()
    await waitFor(
      async () => (await call(a.url, k.key)).status === 401,
      5000,
      'a refusing the key revoked while it was cut off',
      20,
    )
    expect(Date.now() - restoredAt).toBeLessThan(1500)
    await waitFor(async () => (await health(a.url)).status === 'ok', 10_000, 'a healthy once Redis is back')
  }, 60_000)

  it('a replica started without Redis and stopped before Redis is back stops at once (a rolling restart during the outage)', async () => {
    const node = await startFakeNode('0x1')
    cleanups.push(() => node.close())
    const proxy = await startTcpProxy(redisUrl)
    cleanups.push(() => proxy.close())
    await proxy.cut()
    const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-redis-start-'))
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }))
    const app = await startApp({
      config: parseConfig({
        dataDir,
        gateway: { host: '127.0.0.1', port: 0, devAccount: null },
        networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
        redis: {
          url: `redis://127.0.0.1:${proxy.port}`,
          keyPrefix: `test:redis-start:${randomBytes(5).toString('hex')}:`,
        },
        log: { level: 'silent', requests: false },
      }),
      logger: createLogger('silent'),
    })
    expect(appInternals(app).redis!.isReady()).toBe(false)
    const t0 = Date.now()
    await app.stop()
    expect(Date.now() - t0).toBeLessThan(3000)
  })

  it('a Redis that answers and refuses the credentials stops chaingate start: one line with the redacted URL, exit 1', async () => {
    const node = await startFakeNode('0x1')
    cleanups.push(() => node.close())
    const dir = tempDir('chaingate-redis-refused-')
    cleanups.push(async () => removeDirs([dir]))
    const url = new URL(redisUrl)
    url.username = 'no-such-user'
    url.password = 'hunter3-secret'
    const cfg = writeConfig(dir, 'c.json', {
      dataDir: dir,
      redis: { url: url.toString() },
      networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
      wallet: { enabled: false },
    })
    const r = await runCli(['start', '--config', cfg])
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^error: Redis at redis:\/\/no-such-user:\*\*\*@\S+ \(config redis\.url\) refused the connection: WRONGPASS/,
    )
    expect(r.stderr).not.toMatch(/^\s+at /m)
    expect(r.stderr + r.stdout).not.toContain('hunter3-secret')
  })
})
