/**
 * The real server on PostgreSQL (`database.url`): accounts, keys and usage end to end, the CLI on the same
 * database, and PostgreSQL going away under load (a TCP proxy in front of the machine's PostgreSQL is cut and
 * restored; the server itself is never stopped): calls go on from the in-memory key snapshot, /healthz says
 * degraded, the ledger holds the usage and writes it when PostgreSQL is back, nothing lost.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { request } from 'undici'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { httpClient } from './helpers/dashboard.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import {
  cleanupProcesses,
  removeDirs,
  runCli,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.ts'
import {
  createPgTestSchema,
  describeWithServices,
  postgresUrl,
  withSearchPath,
  type PgTestSchema,
} from '../support/services.ts'

const CHAIN_ID = 31_377
const networks = (node: FakeNode) => [{ name: 'remote', chainId: CHAIN_ID, upstreams: [{ url: node.url }] }]

async function pgQuery<T = Record<string, unknown>>(url: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query(text, params)).rows as T[]
  } finally {
    await client.end()
  }
}

async function healthz(s: TestServer): Promise<any> {
  const res = await request(`${s.url}/healthz`)
  return res.body.json()
}

/**
 * For one describe block: a schema of its own on the test PostgreSQL and a fake node, made before its tests, removed
 * after.
 */
function useSchemaAndNode(schemaName: string): { readonly schema: PgTestSchema; readonly node: FakeNode } {
  const made = {} as { schema: PgTestSchema; node: FakeNode }
  beforeAll(async () => {
    made.schema = await createPgTestSchema(schemaName)
    made.node = await startFakeNode(`0x${CHAIN_ID.toString(16)}`)
  })
  // Registered before the block's own hooks, so this runs after them (vitest runs after-hooks in reverse).
  afterAll(async () => {
    await made.node?.close()
    await made.schema?.drop()
  })
  return made
}

describeWithServices(['postgres'], 'server on PostgreSQL', () => {
  const pg = useSchemaAndNode('e2e')
  let s: TestServer
  let dataDir: string
  let configFile: string
  beforeAll(async () => {
    dataDir = tempDir('chaingate-pg-')
    s = await startTestServer(
      {
        dataDir,
        database: { url: pg.schema.url },
        networks: networks(pg.node),
        gateway: { operations: { healthCacheMs: 0 }, defaultPlan: 'team' },
      },
      { parts: { dashboard: true } },
    )
    // The CLI's config: the same database, its own data dir (nothing of the server's is shared but PostgreSQL).
    const cliDir = tempDir('chaingate-pg-cli-')
    configFile = writeConfig(cliDir, 'chaingate.json', {
      dataDir: cliDir,
      database: { url: pg.schema.url },
      networks: networks(pg.node),
    })
  })
  afterAll(async () => {
    await cleanupProcesses()
    await s?.stop()
    removeDirs([dataDir])
  })

  it('keeps accounts and keys in PostgreSQL, not in a SQLite file', async () => {
    const rows = await pgQuery<{ email: string; plan: string }>(
      pg.schema.url,
      'select email, plan from accounts where id = $1',
      [s.account.id],
    )
    expect(rows).toEqual([{ email: s.account.email, plan: 'team' }])
    expect((await pgQuery(pg.schema.url, 'select key from api_keys where id = $1', [s.key.id]))[0]).toEqual({
      key: s.key.key,
    })
    expect(existsSync(join(dataDir, 'chaingate.sqlite'))).toBe(false)
    const h = await healthz(s)
    expect(h.storage).toMatchObject({
      status: 'ok',
      database: 'postgres',
      reachable: true,
      ledger: { ok: true, bufferedRows: 0, droppedCalls: 0 },
    })
  })

  it('writes usage to PostgreSQL: the stored credits equal the sum of x-credits-charged', async () => {
    let charged = 0
    for (let i = 0; i < 12; i++) {
      const r = await s.rpc(call(i % 2 ? 'eth_blockNumber' : 'eth_chainId', [], i), { network: 'remote' })
      expect(r.status).toBe(200)
      charged += r.credits
    }
    expect(charged).toBeGreaterThan(0)
    await s.parts.ledger.flush()
    const [row] = await pgQuery<{ calls: number; credits: number }>(
      pg.schema.url,
      'select sum(calls)::int as calls, sum(credits)::int as credits from usage_hourly where key_id = $1',
      [s.key.id],
    )
    expect(row).toEqual({ calls: 12, credits: charged })
  })

  it('the CLI on the same database: a key it creates works on the running server, its usage shows, and a revoke is enforced', async () => {
    const created = await runCli([
      'key',
      'create',
      '--account',
      s.account.email,
      '--name',
      'from-cli',
      '--json',
      '--config',
      configFile,
    ])
    expect(created.code, created.stderr).toBe(0)
    const key = created.json()
    // The server learns of it through settings_version on PostgreSQL (polled every 100 ms here).
    await waitFor(
      async () => (await s.rpc(call('eth_chainId'), { key: key.key, network: 'remote' })).status === 200,
      15_000,
      'the CLI-made key to work',
    )
    const usage = await runCli(['usage', '--key', key.id, '--json', '--config', configFile])
    expect(usage.code, usage.stderr).toBe(0)
    await s.parts.ledger.flush()
    const after = await runCli(['usage', '--key', key.id, '--json', '--config', configFile])
    expect(after.json().total.calls).toBeGreaterThanOrEqual(1)
    const revoked = await runCli(['key', 'revoke', key.id, '--config', configFile])
    expect(revoked.code, revoked.stderr).toBe(0)
    await waitFor(
      async () => (await s.rpc(call('eth_chainId'), { key: key.key, network: 'remote' })).status === 401,
      15_000,
      'the revoked key to be refused',
    )
  }, 90_000) // four CLI processes against PostgreSQL: ~5 s each on a loaded 2-core machine

  it('the dashboard on PostgreSQL: sign-up, a session stored as a hash, a key made in the browser that works', async () => {
    const email = `pg-${Date.now()}@example.com`
    const c = httpClient(s.url)
    expect((await c.signup(email, 'correct horse battery staple')).statusCode).toBe(303)
    const [account] = await pgQuery<{ id: string }>(pg.schema.url, 'select id from accounts where email = $1', [email])
    expect(account).toBeDefined()
    const sessions = await pgQuery<{ id_hash: string }>(
      pg.schema.url,
      'select id_hash from dashboard_sessions where account_id = $1',
      [account!.id],
    )
    expect(sessions).toHaveLength(1)
    expect(sessions[0]!.id_hash).toMatch(/^[0-9a-f]{64}$/)
    const created = await c.submit('/keys', '/keys', { name: 'browser' })
    expect(created.statusCode, created.body).toBe(201)
    const key = /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(created.body)![1]!
    await waitFor(
      async () => (await s.rpc(call('eth_chainId'), { key, network: 'remote' })).status === 200,
      15_000,
      'the dashboard-made key to work',
    )
  })

  it('chaingate start on PostgreSQL: the banner names the database without its password; SIGTERM writes the usage to PostgreSQL', async () => {
    const withPassword = new URL(pg.schema.url)
    withPassword.password = 'hunter2-never-printed' // trust auth: PostgreSQL does not ask for it
    const dir = tempDir('chaingate-pg-start-')
    const cfg = writeConfig(dir, 'c.json', {
      dataDir: dir,
      database: { url: withPassword.toString() },
      networks: networks(pg.node),
      gateway: { port: 0 },
      wallet: { enabled: false },
    })
    const cg = await startChaingate(['--config', cfg])
    try {
      expect(cg.bannerText()).toMatch(/^ {2}database: {2}PostgreSQL postgres:\/\/postgres:\*\*\*@/m)
      expect(cg.stdout() + cg.stderr()).not.toContain('hunter2-never-printed')
      let charged = 0
      for (let i = 0; i < 5; i++) {
        const res = await request(cg.banner.endpoints.remote!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(call('eth_blockNumber', [], i)),
        })
        await res.body.text()
        expect(res.statusCode).toBe(200)
        charged += Number(res.headers['x-credits-charged'])
      }
      const [devKey] = await pgQuery<{ id: string }>(pg.schema.url, 'select id from api_keys where key = $1', [
        cg.banner.devKey,
      ])
      const exit = await cg.signal('SIGTERM')
      expect(exit.code).toBe(0)
      const [row] = await pgQuery<{ credits: number }>(
        pg.schema.url,
        'select sum(credits)::int as credits from usage_hourly where key_id = $1',
        [devKey!.id],
      )
      expect(row!.credits).toBe(charged)
    } finally {
      if (cg.child.exitCode === null) await cg.signal('SIGKILL').catch(() => undefined)
      removeDirs([dir])
    }
  })

  it('an unreachable PostgreSQL stops chaingate start and migrate with one line naming it, password masked, exit 1', async () => {
    const dir = tempDir('chaingate-pg-down-')
    const cfg = writeConfig(dir, 'c.json', {
      dataDir: dir,
      database: { url: 'postgres://app:hunter3-secret@127.0.0.1:1/cg' },
      networks: networks(pg.node),
      wallet: { enabled: false },
    })
    try {
      for (const args of [
        ['start', '--config', cfg],
        ['migrate', '--config', cfg],
      ]) {
        const r = await runCli(args)
        expect(r.code, r.stderr).toBe(1)
        expect(r.stderr.trim()).toBe(
          'error: cannot reach PostgreSQL postgres://app:***@127.0.0.1:1/cg: connect ECONNREFUSED 127.0.0.1:1',
        )
      }
    } finally {
      removeDirs([dir])
    }
  })

  // Redis at start (unreachable: the replica starts degraded; refusing: exit 1):
  // test/e2e/scale-out-redis-start.test.ts.

  it('chaingate migrate on a current database applies nothing and never prints the password', async () => {
    const withPassword = new URL(pg.schema.url)
    withPassword.password = 'not-needed-under-trust'
    const cfg = writeConfig(tempDir('chaingate-pg-migrate-'), 'c.json', { database: { url: withPassword.toString() } })
    const r = await runCli(['migrate', '--json', '--config', cfg])
    expect(r.code, r.stderr).toBe(0)
    expect(r.json().applied).toEqual([])
    expect(r.stdout + r.stderr).not.toContain('not-needed-under-trust')
  })
})

describeWithServices(['postgres'], 'PostgreSQL unavailable', () => {
  const pg = useSchemaAndNode('e2e_down')
  let proxy: TcpProxy
  let s: TestServer
  beforeAll(async () => {
    const real = new URL(postgresUrl)
    proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) })
    const viaProxy = new URL(postgresUrl)
    viaProxy.hostname = '127.0.0.1'
    viaProxy.port = String(proxy.port)
    s = await startTestServer({
      database: { url: withSearchPath(viaProxy.toString(), pg.schema.schema) },
      networks: networks(pg.node),
      gateway: { operations: { healthCacheMs: 0 } },
    })
  })
  afterAll(async () => {
    await proxy?.restore()
    await s?.stop()
    await proxy?.close()
  })

  it('calls go on from the key snapshot, /healthz says degraded, and the held usage is written when PostgreSQL is back: none lost', async () => {
    let charged = 0
    let calls = 0
    const oneCall = async (i: number) => {
      const r = await s.rpc(call(i % 3 ? 'eth_blockNumber' : 'eth_chainId', [], i), { network: 'remote' })
      expect(r.status).toBe(200)
      charged += r.credits
      calls++
    }
    for (let i = 0; i < 5; i++) await oneCall(i)
    await s.parts.ledger.flush()

    await proxy.cut()
    // Calls during the outage: served from memory, usage held by the ledger (flushes fail every 100 ms meanwhile).
    for (let i = 0; i < 30; i++) await oneCall(100 + i)
    const degraded = await waitFor(
      async () => {
        const h = await healthz(s)
        return h.status === 'degraded' && h.storage.reachable === false && h.storage.ledger.ok === false ? h : undefined
      },
      15_000,
      '/healthz to say storage degraded',
    )
    expect(degraded.storage.ledger.bufferedRows).toBeGreaterThan(0)
    // Still serving after many failed polls and flushes.
    await new Promise((r) => setTimeout(r, 1000))
    for (let i = 0; i < 10; i++) await oneCall(200 + i)
    expect(degraded.storage.ledger.droppedCalls).toBe(0)
    const metrics = await (await request(`${s.url}/metrics`)).body.text()
    expect(metrics).toMatch(/^chaingate_usage_write_failing 1$/m)
    expect(metrics).toMatch(/^chaingate_usage_dropped_calls_total 0$/m)
    expect(Number(/^chaingate_usage_buffered_rows (\d+)$/m.exec(metrics)?.[1])).toBeGreaterThan(0)
    expect(s.logText()).toContain('writing usage failed; will retry')
    // Nothing of the outage reached PostgreSQL: only the calls before the cut are stored.
    const [stored] = await pgQuery<{ credits: number | null }>(
      pg.schema.url,
      'select sum(credits)::int as credits from usage_hourly',
    )
    expect(stored!.credits).toBeLessThan(charged)

    await proxy.restore()
    await waitFor(
      async () => {
        const h = await healthz(s)
        return h.status === 'ok' && h.storage.ledger.ok && h.storage.ledger.bufferedRows === 0 ? h : undefined
      },
      20_000,
      '/healthz to be ok again with the ledger written',
    )
    await s.parts.ledger.flush()
    const [row] = await pgQuery<{ calls: number; credits: number }>(
      pg.schema.url,
      'select sum(calls)::int as calls, sum(credits)::int as credits from usage_hourly',
    )
    expect(row).toEqual({ calls, credits: charged })

    // The settings poll recovered too: a key revoked directly in PostgreSQL is refused again within seconds.
    await pgQuery(pg.schema.url, 'update api_keys set revoked_at = $1 where id = $2', [Date.now(), s.key.id])
    await pgQuery(pg.schema.url, 'update settings_version set version = version + 1 where id = 1')
    await waitFor(
      async () => (await s.rpc(call('eth_chainId'), { network: 'remote' })).status === 401,
      15_000,
      'the revoked key to be refused after the outage',
    )
  })
})
