/**
 * Exact credits for a Solana network across replicas (docs/scale-out.md): two gateways on one PostgreSQL and one
 * Redis in front of one Solana devnet, concurrent clients on both calling Solana methods at 180 credits. The
 * charged total equals the daily balance and the sum of the answers' x-credits-charged, and the ledger agrees.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomBytes } from 'node:crypto'
import { afterAll, expect, it } from 'vitest'
import { request } from 'undici'
import { startApp, type RunningApp } from '../../src/app/build.ts'
import { appInternals } from '../../src/app/app.test-support.ts'
import { parseConfig } from '../../src/config/load.ts'
import { creditsUsedToday } from '../../src/usage/queries.ts'
import { createLogger } from '../../src/observability/logger.ts'
import { startSolanaDevnet } from '../../src/upstreams/devnet/solana/devnet.ts'
import { createPgTestSchema, describeWithServices, redisUrl } from '../support/services.ts'

/** Fifty Solana calls. */
const BALANCE = 50 * 180
const cleanups: (() => Promise<void>)[] = []
afterAll(async () => {
  for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined)
})

async function replica(node: { url: string; wsUrl: string }, databaseUrl: string, prefix: string) {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-scale-sol-'))
  const config = parseConfig({
    dataDir,
    gateway: { host: '127.0.0.1', port: 0, devAccount: null },
    networks: [{ name: 'remote', family: 'solana', upstreams: [{ url: node.url, wsUrl: node.wsUrl }] }],
    plans: { tiny: { creditsPerDay: BALANCE, creditsPerSecond: 1_000_000, maxKeys: null } },
    database: { url: databaseUrl },
    // Redis stays up here: a short command timeout on a loaded machine would put a replica in insurance mode, whose
    // admitting on its own may exceed the balance by design (docs/scale-out.md), which is not what this test is about.
    redis: { url: redisUrl, keyPrefix: prefix, leaseSyncMs: 200, commandTimeoutMs: 2_000 },
    log: { level: 'silent', requests: false },
  })
  const app = await startApp({ config, logger: createLogger('silent') })
  cleanups.push(async () => {
    await app.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return app
}

/** Solana reads until refused with 402 five times in a row; every other answer is a 200 charged 180. */
async function spend(app: RunningApp, key: string, i: number): Promise<number> {
  const methods = ['getSlot', 'getBalance', 'getLatestBlockhash', 'getEpochInfo']
  let charged = 0
  let refusals = 0
  for (let n = i; refusals < 5; n++) {
    const method = methods[n % methods.length]!
    const res = await request(`${app.url}/networks/remote/v3/${key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: n,
        method,
        params: method === 'getBalance' ? ['11111111111111111111111111111111'] : [],
      }),
    })
    const text = await res.body.text()
    const credits = Number(res.headers['x-credits-charged'] ?? 0)
    charged += credits
    if (res.statusCode === 402) refusals++
    else {
      expect(res.statusCode, text).toBe(200)
      expect(credits).toBe(180)
      refusals = 0
    }
  }
  return charged
}

describeWithServices(['postgres', 'redis'], 'exact Solana credits across two replicas (PostgreSQL + Redis)', () => {
  it('concurrent Solana clients on two replicas: charged total == daily balance == sum of x-credits-charged == ledger', async () => {
    const devnet = await startSolanaDevnet({ port: 0, slotMs: 100 })
    cleanups.push(() => devnet.stop())
    const schema = await createPgTestSchema('scalesol')
    cleanups.push(() => schema.drop())
    const prefix = `test:scalesol:${randomBytes(5).toString('hex')}:`
    const a = await replica(devnet, schema.url, prefix)
    const b = await replica(devnet, schema.url, prefix)
    expect(a.networks.byName('remote')?.chain).toBe(devnet.caip2)
    const { accounts, keys } = appInternals(a)
    const account = await accounts.create({ email: `scale-${prefix}@example.com`, plan: 'tiny' }, Date.now())
    const { key } = await keys.create({ accountId: account.id, name: 'k' }, Date.now())
    for (const app of [a, b]) await appInternals(app).keySnapshot.reload()
    const sums = await Promise.all([
      ...Array.from({ length: 4 }, (_, i) => spend(a, key, i)),
      ...Array.from({ length: 4 }, (_, i) => spend(b, key, i)),
    ])
    expect(sums.reduce((s, c) => s + c, 0)).toBe(BALANCE)
    expect(sums.slice(0, 4).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
    expect(sums.slice(4).reduce((s, c) => s + c, 0)).toBeGreaterThan(0)
    for (const app of [a, b]) await appInternals(app).ledger.flush()
    expect(await creditsUsedToday(appInternals(a).database.db, account.id, Date.now())).toBe(BALANCE)
  }, 120_000)
})
