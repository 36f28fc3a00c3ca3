/**
 * The admin API's reports are the CLI's and the dashboard's numbers (one implementation, three faces): usage per
 * method, network and key for a day equals `chaingate usage --json`; an account's period report equals the
 * usage page's totals. Also: the audit is shared with the CLI (`chaingate audit`, CLI changes listed by the API),
 * upstream state, the API on the separate operations listener, and the whole round trip on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { cleanupProcesses, runCli, sleep } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { createPgTestSchema, describeWithServices } from '../support/services.ts'

const withAdmin = { parts: { admin: true } }

/** Creates an account and key through the API, spends on both networks, waits until the ledger has it all. */
async function spend(server: TestServer, api: ReturnType<typeof adminClient>) {
  const account = (await api.post('/accounts', { email: `usage-${Date.now()}@example.com` })).body
  const key = (await api.post('/keys', { account: account.id })).body
  const calls = [
    ['devnet-a', 'eth_blockNumber'],
    ['devnet-a', 'eth_blockNumber'],
    ['devnet-a', 'eth_chainId'],
    ['devnet-b', 'eth_getBalance'],
  ] as const
  for (const [network, method] of calls) {
    const params = method === 'eth_getBalance' ? ['0x0000000000000000000000000000000000000001', 'latest'] : []
    expect((await server.rpc(call(method, params), { key: key.key, network })).status).toBe(200)
  }
  for (let i = 0; i < 100; i++) {
    const r = await api.get(`/usage?account=${account.id}`)
    if (r.body.total?.calls === calls.length) break
    await sleep(100)
  }
  return { account, key, calls: calls.length }
}

describe('admin API reports, audit and listeners (SQLite)', { timeout: 180_000 }, () => {
  let server: TestServer
  let api: ReturnType<typeof adminClient>
  beforeAll(async () => {
    server = await startTestServer(
      { admin: { token: ADMIN_TOKEN }, gateway: { operations: { listen: { host: '127.0.0.1', port: 0 } } } },
      withAdmin,
    )
    api = adminClient(server.url)
  }, 120_000)
  afterAll(async () => {
    await cleanupProcesses()
    await server?.stop()
  })

  it('usage per method, network and key equals `chaingate usage --json`; the period report the dashboard totals', async () => {
    const { account, key, calls } = await spend(server, api)
    const dir = ['--data-dir', server.app.config.dataDir]
    for (const [query, args] of [
      [`account=${account.id}&by=method`, ['--account', account.id, '--by', 'method']],
      [`account=${account.email}&by=network`, ['--account', account.email, '--by', 'network']],
      [`key=${key.id}&by=method`, ['--key', key.id]],
      [`account=${account.id}&by=key`, ['--account', account.id, '--by', 'key']],
    ] as const) {
      const fromApi = await api.get(`/usage?${query}`)
      const fromCli = await runCli(['usage', '--json', ...args, ...dir], { timeoutMs: 60_000 })
      expect(fromCli.code, fromCli.stderr).toBe(0)
      expect(fromApi.body, query).toEqual(fromCli.json())
    }
    const byMethod = (await api.get(`/usage?account=${account.id}`)).body
    expect(byMethod.total.calls).toBe(calls)
    expect(byMethod.rows.find((r: { group: string }) => r.group === 'eth_blockNumber').calls).toBe(2)
    expect(byMethod.dailyBalance.usedToday).toBe(byMethod.total.credits)

    const period = (await api.get(`/accounts/${account.id}/usage?range=24h&by=network`)).body
    expect(period.totals).toEqual({ calls, credits: byMethod.total.credits, errors: 0 })
    expect(period.byNetwork.map((t: { label: string; calls: number }) => [t.label, t.calls]).sort()).toEqual([
      ['devnet-a', 3],
      ['devnet-b', 1],
    ])
    const bad = await api.get('/usage?day=2026-02-30')
    expect([bad.status, bad.body.error.field]).toEqual([422, 'day'])
    const upstreamWithAccount = await api.get(`/usage?by=upstream&account=${account.id}`)
    expect([upstreamWithAccount.status, upstreamWithAccount.body.error.field]).toEqual([422, 'by'])
  })

  it('the audit is one: CLI changes are listed by the API, API calls by `chaingate audit`', async () => {
    const account = (await api.post('/accounts', { email: `audit-${Date.now()}@example.com` })).body
    const dir = ['--data-dir', server.app.config.dataDir]
    const setPlan = await runCli(['account', 'set-plan', account.email, 'free', ...dir], { timeoutMs: 60_000 })
    expect(setPlan.code, setPlan.stderr).toBe(0)
    const refused = await runCli(['account', 'set-plan', account.email, 'platinum', ...dir], { timeoutMs: 60_000 })
    expect(refused.code).toBe(1)
    const entries = (await api.get(`/audit?target=${account.id}`)).body.entries
    expect(entries.map((e: { actor: string; action: string; status: number; summary: string }) => e)).toEqual([
      expect.objectContaining({ actor: 'cli', action: 'cli account set-plan', status: 400, summary: 'platinum' }),
      expect.objectContaining({ actor: 'cli', action: 'cli account set-plan', status: 200, summary: 'free' }),
      expect.objectContaining({ actor: 'admin-token', action: 'POST /admin/v1/accounts', status: 201 }),
    ])
    const listed = await runCli(['audit', '--json', '--limit', '3', ...dir], { timeoutMs: 60_000 })
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.json()).toHaveLength(3)
    expect(listed.json()[0]).toMatchObject({ actor: 'admin-token', action: 'GET /admin/v1/audit' })
    const text = await runCli(['audit', '--limit', '1', ...dir], { timeoutMs: 60_000 })
    expect(text.stdout).toMatch(/^\d{4}-\d\d-\d\dT\S+Z {2}admin-token {2}200 {2}GET \/admin\/v1\/audit {2}-/)
    const badLimit = await runCli(['audit', '--limit', 'x', ...dir], { timeoutMs: 60_000 })
    expect([badLimit.code, badLimit.stderr]).toEqual([2, 'error: --limit must be a whole number from 1 to 1000\n'])
  })

  it("upstream state: each network's nodes, as `chaingate upstreams` shows them", async () => {
    const r = await api.get('/upstreams')
    expect(r.status).toBe(200)
    expect(r.body.networks).toEqual({ 'devnet-a': 'up', 'devnet-b': 'up' })
    for (const network of ['devnet-a', 'devnet-b']) {
      expect(r.body.upstreams[network]).toHaveLength(1)
      expect(r.body.upstreams[network][0]).toMatchObject({ state: 'healthy' })
    }
  })

  it('is served on the separate operations listener too, with the same token', async () => {
    const ops = adminClient(server.app.operationsUrl!)
    expect((await ops.get('/plans')).status).toBe(200)
    expect((await adminClient(server.app.operationsUrl!, null).get('/plans')).status).toBe(401)
    expect((await api.get('/plans')).status).toBe(200)
  })
})

describeWithServices(['postgres'], 'admin API on PostgreSQL', () => {
  let server: TestServer
  let schema: Awaited<ReturnType<typeof createPgTestSchema>>
  beforeAll(async () => {
    schema = await createPgTestSchema('admin')
    server = await startTestServer({ admin: { token: ADMIN_TOKEN }, database: { url: schema.url } }, withAdmin)
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await schema?.drop()
  })

  it('accounts, keys, a served call, usage and the audit', { timeout: 120_000 }, async () => {
    const api = adminClient(server.url)
    const { account, key, calls } = await spend(server, api)
    expect((await api.get(`/usage?key=${key.id}`)).body.total.calls).toBe(calls)
    expect((await api.post('/accounts', { email: account.email })).status).toBe(409)
    expect((await api.post(`/accounts/${account.id}/disable`)).status).toBe(200)
    expect((await api.post(`/keys/${key.id}/revoke`)).status).toBe(200)
    expect((await api.post(`/keys/${key.id}/revoke`)).status).toBe(409)
    const actions = (await api.get(`/audit?target=${key.id}`)).body.entries.map((e: { action: string }) => e.action)
    expect(actions).toEqual(['POST /admin/v1/keys/:id/revoke', 'POST /admin/v1/keys/:id/revoke', 'POST /admin/v1/keys'])
  })
})
