/**
 * The request explorer (docs/requests.md) on the real gateway: a key's calls over HTTP (single, batch, cached, an
 * error, an over-limit refusal) become one record each with what the gateway decided and who answered; the key's
 * dashboard page, `chaingate requests --json`, the admin API and the query all show them. Runs on PostgreSQL too
 * (CHAINGATE_TEST_DATABASE=postgres).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import type { ApiKey } from '../../src/keys/repository.ts'
import { queryRequests } from '../../src/usage/requests/queries.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { cleanupProcesses, runCli, tempDir } from './helpers/process.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = '0x7a6d' // 31341
const ADDRESS = '0x00000000000000000000000000000000000000aa'
const PASSWORD = 'Tr0ub4dor&3-horse-staple'
const ORIGIN = 'https://app.example'

let node: FakeNode
let s: TestServer
let dir: string
let key: ApiKey
let client: ReturnType<typeof httpClient>

const label = (n: FakeNode) => n.url.replace(/\/$/, '')
const rpc = (body: unknown, headers: Record<string, string> = {}) =>
  s.rpc(body, { network: 'remote', key: key.key, headers })
const records = async (filter: { method?: string; status?: string; errorsOnly?: boolean } = {}) => {
  await s.parts.requests!.flush()
  return (await queryRequests(s.parts.database.db, { keyId: key.id, limit: 1000, ...filter })).rows
}

beforeAll(async () => {
  node = await startFakeNode(CHAIN)
  dir = tempDir('chaingate-requests-')
  s = await startTestServer(
    {
      dataDir: join(dir, 'data'),
      admin: { token: ADMIN_TOKEN },
      // The team plan's credits/s: the paging test's 60 quick calls are not refused.
      gateway: { defaultPlan: 'team' },
      networks: [
        {
          name: 'remote',
          chainId: 31341,
          upstreams: [{ url: node.url }],
          upstreamPolicy: { hedge: { enabled: false } },
        },
      ],
    },
    { parts: { dashboard: true, admin: true } },
  )
  // A dashboard account owning the key, so its page can be fetched.
  client = httpClient(s.url)
  const email = `explorer-${Date.now()}@example.com`
  expect((await client.signup(email, PASSWORD)).statusCode).toBe(303)
  const account = (await s.parts.accounts.findByEmail(email))!
  key = await s.parts.keys.create({ accountId: account.id, name: 'explored' }, Date.now())
  await s.parts.keySnapshot.reload()
})
afterAll(async () => {
  await cleanupProcesses()
  await s?.stop()
  await node?.close()
  rmSync(dir, { recursive: true, force: true })
})

describe('request explorer', () => {
  it('records each call: method, status, latency, credits, who answered and the client', async () => {
    const balance = await rpc(call('eth_getBalance', [ADDRESS, 'latest']), { origin: ORIGIN })
    expect(balance.json().result).toBe('0x1')
    // The second eth_chainId is answered from the cache.
    for (let i = 0; i < 2; i++) expect((await rpc(call('eth_chainId'))).json().result).toBe(CHAIN)
    const unknown = await rpc(call('eth_noSuchMethod'))
    expect(unknown.json().error.code).toBe(-32601)
    const batch = await rpc([call('eth_getTransactionCount', [ADDRESS, 'latest'], 1), call('eth_gasPrice', [], 2)])
    expect(batch.json()).toHaveLength(2)

    const rows = await records()
    const byMethod = (m: string) => rows.filter((r) => r.method === m)
    const [b] = byMethod('eth_getBalance')
    expect(b).toMatchObject({
      keyId: key.id,
      accountId: key.accountId,
      network: 'remote',
      status: 'ok',
      credits: balance.credits,
      served: label(node),
      client: ORIGIN,
    })
    expect(b!.latencyMs).toBeGreaterThanOrEqual(0)
    expect(Math.abs(b!.time - Date.now())).toBeLessThan(60_000)
    expect(byMethod('eth_chainId').map((r) => r.served)).toContain('cache')
    const [u] = byMethod('eth_noSuchMethod')
    expect(u).toMatchObject({ status: 'rpc:-32601', served: null })
    expect(u!.client).toMatch(/127\.0\.0\.1/)
    // A batch: one record per call, each with the node that answered.
    for (const m of ['eth_getTransactionCount', 'eth_gasPrice'])
      expect(byMethod(m)).toMatchObject([{ status: 'ok', served: label(node) }])
    expect(rows.some((r) => r.method === 'batch')).toBe(false)
    // Newest first.
    expect(rows.map((r) => r.time)).toEqual([...rows.map((r) => r.time)].sort((x, y) => y - x))
    // Filters: errors only, a status by its bare code, a method.
    expect((await records({ errorsOnly: true })).map((r) => r.method)).toEqual(['eth_noSuchMethod'])
    expect((await records({ status: '-32601' })).map((r) => r.method)).toEqual(['eth_noSuchMethod'])
    expect((await records({ method: 'eth_chainId' })).length).toBe(2)
  })

  it('a WebSocket call is recorded too, with the Origin of the upgrade or else the IP address', async () => {
    const over = async (headers: Record<string, string>, id: number) => {
      const ws = new WebSocket(`${s.url.replace('http', 'ws')}/networks/remote/ws/v3/${key.key}`, { headers })
      await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
      const answer = new Promise<string>((resolve) => ws.once('message', (d) => resolve(d.toString())))
      ws.send(JSON.stringify(call('eth_getTransactionCount', [ADDRESS, 'latest'], id)))
      expect(JSON.parse(await answer).result).toBe('0x1')
      ws.close()
    }
    await over({ origin: 'https://ws.example' }, 7)
    await over({}, 8)
    const rows = await records({ method: 'eth_getTransactionCount' })
    const ws = rows.filter((r) => r.client === 'https://ws.example')
    expect(ws).toMatchObject([{ status: 'ok', network: 'remote' }])
    expect(ws[0]!.served).not.toBeNull()
    // The batch's call (HTTP) and the second socket's: both by IP address.
    expect(rows.filter((r) => /127\.0\.0\.1/.test(r.client ?? ''))).toHaveLength(2)
  })

  it('an over-limit refusal is recorded with its HTTP status, uncharged; never the key or params', async () => {
    await s.parts.keys.setLimits(key.id, { creditsPerDay: 1 })
    await s.parts.keySnapshot.reload()
    const refused = await rpc(call('eth_getBalance', [ADDRESS, 'latest']))
    expect(refused.status).toBe(429)
    await s.parts.keys.setLimits(key.id, { creditsPerDay: 0 })
    await s.parts.keySnapshot.reload()
    const [r] = await records({ status: '429' })
    expect(r).toMatchObject({ method: 'eth_getBalance', status: 'http:429', credits: 0, served: null })
    const stored = JSON.stringify(await s.parts.database.db.selectFrom('request_log').selectAll().execute())
    expect(stored).not.toContain(key.key)
    expect(stored).not.toContain(ADDRESS.slice(2))
  })

  it("the key's dashboard page shows its requests, with filters and paging", async () => {
    await s.parts.requests!.flush()
    const page = await client.get(`/keys/${key.id}`)
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('id="requests"')
    expect(page.body).toContain('<code>eth_getBalance</code>')
    expect(page.body).toContain('JSON-RPC error -32601')
    expect(page.body).toContain('HTTP 429')
    expect(page.body).toContain(ORIGIN)
    // Not an operator: which node answered stays hidden; the cache is shown.
    expect(page.body).not.toContain(label(node))
    expect(page.body).toMatch(/data-label="Served by">cache</)
    const errors = await client.get(`/keys/${key.id}?errors=1`)
    expect(errors.body).toContain('JSON-RPC error -32601')
    expect(errors.body).not.toContain('<code>eth_gasPrice</code>')
    const method = await client.get(`/keys/${key.id}?method=eth_chainId`)
    expect(method.body).toContain('<code>eth_chainId</code>')
    expect(method.body).not.toContain('<code>eth_getBalance</code>')
    // Paging: 60 more calls make a second page.
    for (let i = 0; i < 60; i++) await rpc(call('eth_chainId', [], i))
    await s.parts.requests!.flush()
    const first = await client.get(`/keys/${key.id}`)
    expect(first.body).toContain(`href="/keys/${key.id}?page=2#requests"`)
    const second = await client.get(`/keys/${key.id}?page=2`)
    expect(second.body).toContain('Page 2')
    expect(second.body).toContain(`href="/keys/${key.id}#requests"`)
    // Someone else's key is not shown.
    const other = httpClient(s.url)
    await other.signup(`other-${Date.now()}@example.com`, PASSWORD)
    expect((await other.get(`/keys/${key.id}`)).statusCode).toBe(404)
  })

  it('chaingate requests --key (the key itself or its id) --json prints the same records', async () => {
    await s.parts.requests!.flush()
    const expected = await queryRequests(s.parts.database.db, { keyId: key.id, errorsOnly: true, limit: 10 })
    const res = await runCli(['requests', '--key', key.key, '--errors', '--json', '--data-dir', join(dir, 'data')], {
      timeoutMs: 60_000,
    })
    expect(res.code, res.stderr).toBe(0)
    const out = JSON.parse(res.stdout)
    expect(out.keyId).toBe(key.id)
    expect(out.requests.map((r: { method: string }) => r.method)).toEqual(expected.rows.map((r) => r.method))
    expect(out.requests[0]).toMatchObject({ ...expected.rows[0], at: new Date(expected.rows[0]!.time).toISOString() })
    expect(res.stdout).not.toContain(key.key)
    const text = await runCli(
      ['requests', '--key', key.id, '--method', 'eth_getBalance', '--limit', '5', '--data-dir', join(dir, 'data')],
      { timeoutMs: 60_000 },
    )
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout).toMatch(/remote\s+eth_getBalance\s+ok/)
    expect(text.stdout).toMatch(/eth_getBalance\s+http:429/)
    const none = await runCli(['requests', '--data-dir', join(dir, 'data')], { timeoutMs: 60_000 })
    expect([none.code, none.stderr]).toEqual([2, 'error: --key is required (a key id or the key itself)\n'])
  }, 180_000)

  it('GET /admin/v1/keys/:id/requests answers the same records, filtered and paged; in the OpenAPI document', async () => {
    await s.parts.requests!.flush()
    const api = adminClient(s.url)
    const all = await queryRequests(s.parts.database.db, { keyId: key.id, limit: 1000 })
    const first = await api.get(`/keys/${key.id}/requests?limit=10`)
    expect(first.status).toBe(200)
    expect(first.body.keyId).toBe(key.id)
    expect(first.body.more).toBe(true)
    expect(first.body.requests).toEqual(
      all.rows.slice(0, 10).map((r) => ({ at: new Date(r.time).toISOString(), ...r })),
    )
    const next = await api.get(`/keys/${key.id}/requests?limit=10&offset=10`)
    expect(next.body.requests[0].time).toBe(all.rows[10]!.time)
    const errors = await api.get(`/keys/${key.id}/requests?errors=true`)
    expect(errors.body.requests.map((r: { status: string }) => r.status).sort()).toEqual(['http:429', 'rpc:-32601'])
    const byStatus = await api.get(`/keys/${key.id}/requests?status=429&method=eth_getBalance`)
    expect(byStatus.body.requests.map((r: { status: string }) => r.status)).toEqual(['http:429'])
    expect((await api.get('/keys/no-such-key/requests')).status).toBe(404)
    expect((await api.get(`/keys/${key.id}/requests?limit=0`)).status).toBe(422)
    expect((await adminClient(s.url, null).get(`/keys/${key.id}/requests`)).status).toBe(401)
    const doc = await api.get('/openapi.json')
    const op = doc.body.paths['/admin/v1/keys/{id}/requests'].get
    expect(op.responses['200'].content['application/json'].schema.properties.requests).toBeDefined()
    expect(op.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['id', 'method', 'status', 'errors', 'limit', 'offset']),
    )
  })
})
