/**
 * The admin API on the real gateway (real app, anvil devnets, real HTTP): the bearer token (401 without, 403 wrong,
 * a dashboard session refused), accounts and keys through their whole life, one refusal style (404, 409, 422 with
 * the field), a key created here serving calls, the audit of every call, and the API off without a token.
 */
import Fastify from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { registerAdminApi } from '../../src/admin/plugin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

let server: TestServer
let api: ReturnType<typeof adminClient>

beforeAll(async () => {
  server = await startTestServer(
    // Polling slowed to a minute: a change must apply because the API refreshes the keys, not by the poll.
    // Many wrong tokens from this one address on purpose (every route refuses them): not slowed here.
    {
      admin: { token: ADMIN_TOKEN, tokenFailuresPerMinute: 1000 },
      gateway: { defaultPlan: 'team', settingsPollMs: 60_000 },
    },
    { parts: { admin: true, dashboard: true } },
  )
  api = adminClient(server.url)
}, 120_000)
afterAll(async () => server?.stop())

const refusal = (code: string, field?: string) => ({
  error: expect.objectContaining({ code, message: expect.any(String), ...(field ? { field } : {}) }),
})
/** The running app's parts, for a second mount of the plugin. */
const adminDeps = () => {
  const { app, parts } = server
  return {
    db: parts.database.db,
    config: app.config,
    clock: parts.clock,
    logger: app.logger,
    accounts: parts.accounts,
    keys: parts.keys,
    networks: app.networks,
    pools: parts.pools,
  }
}
const email = () => `admin-${Math.random().toString(36).slice(2)}@example.com`

describe('the token', () => {
  it('401 with WWW-Authenticate without a token, 403 with a wrong one, also on unknown paths', async () => {
    for (const path of ['/accounts', '/keys', '/no-such-thing', '/openapi.json']) {
      const none = await adminClient(server.url, null).get(path)
      expect([none.status, none.headers['www-authenticate'], none.body]).toEqual([
        401,
        'Bearer',
        refusal('UNAUTHORIZED'),
      ])
      const wrong = await adminClient(server.url, `${ADMIN_TOKEN}x`).get(path)
      expect([wrong.status, wrong.body]).toEqual([403, refusal('FORBIDDEN')])
    }
    const basic = await adminClient(server.url, null, { authorization: `Basic ${btoa(`admin:${ADMIN_TOKEN}`)}` }).get(
      '/accounts',
    )
    expect(basic.status).toBe(401)
    const unknown = await api.get('/no-such-thing')
    expect([unknown.status, unknown.body]).toEqual([404, refusal('NOT_FOUND')])
  })

  it("a dashboard session, even an operator's, cannot use the admin API", async () => {
    const address = email()
    const c = httpClient(server.url)
    expect((await c.signup(address, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    const session = [...c.jar].map(([k, v]) => `${k}=${v}`).join('; ')
    expect(session).toContain('cg_session=')
    const asUser = await adminClient(server.url, null, { cookie: session }).get('/accounts')
    expect(asUser.status).toBe(401)
    const account = (await api.get(`/accounts/${address}`)).body
    expect((await api.put(`/accounts/${account.id}/role`, { role: 'operator' })).body.role).toBe('operator')
    const asOperator = await adminClient(server.url, null, { cookie: session }).get('/accounts')
    expect(asOperator.status).toBe(401)
  })

  it('the token never reaches the logs', () => {
    expect(server.logText()).not.toContain(ADMIN_TOKEN)
  })
})

describe('accounts', () => {
  it('create, get (id or email), list, set plan and role; refusals 404, 409, 422 with the field', async () => {
    const address = email()
    const created = await api.post('/accounts', { email: address })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ email: address, plan: 'team', role: 'user', disabledAt: null })
    const id = created.body.id as string
    expect((await api.get(`/accounts/${id}`)).body).toEqual(created.body)
    expect((await api.get(`/accounts/${address}`)).body).toEqual(created.body)
    expect((await api.get('/accounts')).body.accounts).toContainEqual(created.body)

    const duplicate = await api.post('/accounts', { email: address.toUpperCase() })
    expect([duplicate.status, duplicate.body]).toEqual([409, refusal('CONFLICT')])
    for (const [body, field] of [
      [{}, 'email'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: email(), plan: 'platinum' }, 'plan'],
      [{ email: 42 }, 'email'],
    ] as const) {
      const bad = await api.post('/accounts', body)
      expect([bad.status, bad.body], JSON.stringify(body)).toEqual([422, refusal('INVALID_INPUT', field)])
    }
    const notJson = await api.send('POST', '/accounts', '{"email":')
    expect([notJson.status, notJson.body]).toEqual([422, refusal('INVALID_INPUT', 'body')])

    expect((await api.put(`/accounts/${id}/plan`, { plan: 'free' })).body.plan).toBe('free')
    const badPlan = await api.put(`/accounts/${id}/plan`, { plan: 'platinum' })
    expect([badPlan.status, badPlan.body]).toEqual([422, refusal('INVALID_INPUT', 'plan')])
    const badRole = await api.put(`/accounts/${id}/role`, { role: 'root' })
    expect([badRole.status, badRole.body]).toEqual([422, refusal('INVALID_INPUT', 'role')])
    for (const [method, path, body] of [
      ['GET', '/accounts/nobody', undefined],
      ['GET', '/accounts/nobody@example.com', undefined],
      ['PUT', '/accounts/nobody/plan', { plan: 'free' }],
      ['PUT', '/accounts/nobody/role', { role: 'user' }],
      ['POST', '/accounts/nobody/disable', {}],
      ['POST', '/accounts/nobody/enable', {}],
      ['GET', '/accounts/nobody/usage', undefined],
    ] as const) {
      const missing = await api.send(method, path, body)
      expect([missing.status, missing.body], `${method} ${path}`).toEqual([404, refusal('NOT_FOUND')])
    }
    const badRange = await api.get(`/accounts/${id}/usage?range=1y`)
    expect([badRange.status, badRange.body]).toEqual([422, refusal('INVALID_INPUT', 'range')])
  })

  it("disable refuses the account's keys at the gateway; enable serves them again; twice is 409", async () => {
    const account = (await api.post('/accounts', { email: email() })).body
    const key = (await api.post('/keys', { account: account.id, networks: ['devnet-a'] })).body
    expect((await server.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(200)

    const disabled = await api.post(`/accounts/${account.id}/disable`)
    expect([disabled.status, typeof disabled.body.disabledAt]).toEqual([200, 'number'])
    expect((await server.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(401)
    expect((await api.post(`/accounts/${account.id}/disable`)).status).toBe(409)

    expect((await api.post(`/accounts/${account.id}/enable`)).body.disabledAt).toBeNull()
    expect((await server.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(200)
    const twice = await api.post(`/accounts/${account.id}/enable`)
    expect([twice.status, twice.body]).toEqual([409, refusal('CONFLICT')])
  })
})

describe('keys', () => {
  it('a key created through the API serves calls at once; list, get, limits, networks, name, revoke', async () => {
    const account = (await api.post('/accounts', { email: email() })).body
    const created = await api.post('/keys', { account: account.email, name: 'billing' })
    expect(created.status).toBe(201)
    const key = created.body
    expect(key).toMatchObject({ accountId: account.id, name: 'billing', networks: ['devnet-a', 'devnet-b'] })
    expect(key.key).toMatch(/^[0-9a-f]{32}$/)
    expect(key.endpoints['devnet-a'].http).toContain(`/v3/${key.key}`)
    const served = await server.rpc(call('eth_chainId'), { key: key.key, network: 'devnet-b' })
    expect([served.status, served.json().result]).toEqual([200, '0x7a6a'])

    expect((await api.get(`/keys/${key.id}`)).body).toEqual(key)
    expect((await api.get(`/keys?account=${account.id}`)).body.keys).toEqual([key])
    expect((await api.get(`/keys?account=${encodeURIComponent(account.email)}`)).body.keys).toEqual([key])

    const limited = await api.put(`/keys/${key.id}/limits`, { creditsPerSecond: 100, creditsPerDay: 5000 })
    expect(limited.body).toMatchObject({ creditsPerSecond: 100, creditsPerDay: 5000 })
    const badLimit = await api.put(`/keys/${key.id}/limits`, { creditsPerDay: -1 })
    expect([badLimit.status, badLimit.body]).toEqual([422, refusal('INVALID_INPUT', 'creditsPerDay')])

    expect((await api.put(`/keys/${key.id}/networks`, { networks: ['devnet-a'] })).body.networks).toEqual(['devnet-a'])
    expect((await server.rpc(call('eth_chainId'), { key: key.key, network: 'devnet-b' })).status).toBe(401)
    const badNetwork = await api.put(`/keys/${key.id}/networks`, { networks: ['mainnet-x'] })
    expect([badNetwork.status, badNetwork.body]).toEqual([422, refusal('INVALID_INPUT', 'networks')])
    const notList = await api.put(`/keys/${key.id}/networks`, { networks: { name: 'devnet-a' } })
    expect([notList.status, notList.body]).toEqual([422, refusal('INVALID_INPUT', 'networks')])
    expect((await api.put(`/keys/${key.id}/name`, { name: 'renamed' })).body.name).toBe('renamed')

    const badName = await api.put(`/keys/${key.id}/name`, { name: '' })
    expect([badName.status, badName.body]).toEqual([422, refusal('INVALID_INPUT', 'name')])
    const revoked = await api.post(`/keys/${key.id}/revoke`)
    expect(typeof revoked.body.revokedAt).toBe('number')
    expect((await server.rpc(call('eth_chainId'), { key: key.key })).status).toBe(401)
    const again = await api.post(`/keys/${key.id}/revoke`)
    expect([again.status, again.body]).toEqual([409, refusal('CONFLICT')])
    const secretOfRevoked = await api.post(`/keys/${key.id}/secret`)
    expect([secretOfRevoked.status, secretOfRevoked.body]).toEqual([409, refusal('CONFLICT')])
    expect((await api.get(`/keys?account=${account.id}`)).body.keys).toEqual([])
    expect((await api.get(`/keys?account=${account.id}&all=true`)).body.keys).toHaveLength(1)
  })

  it('allowlists and the key secret, applied at the gateway', async () => {
    const account = (await api.post('/accounts', { email: email() })).body
    const key = (await api.post('/keys', { account: account.id })).body
    const set = await api.put(`/keys/${key.id}/allowlists`, { origins: ['https://app.example.com'] })
    expect(set.body.allowlists.origins).toEqual(['https://app.example.com'])
    const other = await server.rpc(call('eth_chainId'), { key: key.key, headers: { origin: 'https://evil.example' } })
    expect(other.status).toBe(403)
    const allowed = await server.rpc(call('eth_chainId'), {
      key: key.key,
      headers: { origin: 'https://app.example.com' },
    })
    expect(allowed.status).toBe(200)
    const bad = await api.put(`/keys/${key.id}/allowlists`, { addresses: ['0x123'] })
    expect([bad.status, bad.body]).toEqual([422, refusal('INVALID_INPUT', 'addresses')])
    expect((await api.put(`/keys/${key.id}/allowlists`, { origins: [] })).body.allowlists.origins).toEqual([])

    const rotated = await api.post(`/keys/${key.id}/secret`)
    expect(rotated.body.secret).toMatch(/^[0-9a-f]{32}$/)
    expect((await api.get(`/keys/${key.id}/security`)).body).toMatchObject({ hasSecret: true, requireSecret: false })
    const rotatedAgain = await api.post(`/keys/${key.id}/secret`)
    expect(rotatedAgain.body.secret).not.toBe(rotated.body.secret)
  })

  it('refusals: 404 for an unknown key or account, 409 over the plan, 422 with the field', async () => {
    for (const [method, path, body] of [
      ['GET', '/keys/nope', undefined],
      ['POST', '/keys/nope/revoke', {}],
      ['PUT', '/keys/nope/limits', { creditsPerDay: 1 }],
      ['PUT', '/keys/nope/networks', { networks: [] }],
      ['PUT', '/keys/nope/name', { name: 'x' }],
      ['PUT', '/keys/nope/allowlists', { origins: [] }],
      ['POST', '/keys/nope/secret', {}],
      ['GET', '/keys/nope/security', undefined],
      ['POST', '/keys', { account: 'nobody@example.com' }],
      ['GET', '/keys?account=nobody', undefined],
      ['GET', '/usage?key=nope', undefined],
      ['GET', '/usage?account=nobody', undefined],
      ['GET', '/keys/nope/requests', undefined],
    ] as const) {
      const r = await api.send(method, path, body)
      expect([r.status, r.body], `${method} ${path}`).toEqual([404, refusal('NOT_FOUND')])
    }
    const free = (await api.post('/accounts', { email: email(), plan: 'free' })).body
    expect((await api.post('/keys', { account: free.id })).status).toBe(201)
    const over = await api.post('/keys', { account: free.id })
    expect([over.status, over.body]).toEqual([409, refusal('CONFLICT')])
    const account = (await api.post('/accounts', { email: email() })).body
    for (const [body, field] of [
      [{}, 'account'],
      [{ account: account.id, name: '' }, 'name'],
      [{ account: account.id, networks: ['nowhere'] }, 'networks'],
    ] as const) {
      const r = await api.post('/keys', body)
      expect([r.status, r.body], JSON.stringify(body)).toEqual([422, refusal('INVALID_INPUT', field)])
    }
  })
})

describe('plans, reload, audit', () => {
  it('plans as `chaingate plans --json` lists them', async () => {
    const plans = (await api.get('/plans')).body.plans
    expect(plans).toContainEqual({ name: 'team', ...server.app.config.plans.team })
    expect(plans).toHaveLength(Object.keys(server.app.config.plans).length)
  })

  it('reload answers 503 when the process has no live reload', async () => {
    const r = await api.post('/reload')
    expect([r.status, r.body]).toEqual([503, refusal('NOT_AVAILABLE')])
    expect(r.body.error.message).toBe('reload is not available in this process')
  })

  it("reload answers each process's result; a refused or unanswered reload is 422 naming why", async () => {
    const done = { process: 'h pid 1 (single)', ok: true, version: 'abc', changes: ['plans.team'] }
    const port = 'gateway.port: cannot change while running'
    const refusedOne = { process: 'h pid 2 (single)', ok: false, version: 'abc', changes: [], error: port }
    const outcomes = [
      { ok: true, expected: 1, processes: [done] },
      { ok: false, expected: 2, processes: [done, refusedOne] },
      { ok: false, expected: 2, processes: [done] },
    ]
    const app = Fastify()
    await registerAdminApi(app, { ...adminDeps(), reload: async () => outcomes.shift()! })
    const post = () =>
      app.inject({ method: 'POST', url: '/admin/v1/reload', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const ok = await post()
    expect([ok.statusCode, ok.json()]).toEqual([200, { ok: true, expected: 1, processes: [done] }])
    const refused = await post()
    expect([refused.statusCode, refused.json().error.code, refused.json().error.field]).toEqual([
      422,
      'INVALID_INPUT',
      'config',
    ])
    expect(refused.json().error.message).toBe(`config: h pid 2 (single): ${port}`)
    expect(refused.json().error.processes).toEqual([done, refusedOne])
    const unanswered = await post()
    expect(unanswered.json().error.message).toBe('config: 1 of 2 processes did not answer')
    await app.close()
  })

  it('audits every call: who, what, target, status; never a key or the token', async () => {
    const account = (await api.post('/accounts', { email: email() })).body
    const key = (await api.post('/keys', { account: account.id })).body
    await api.post(`/keys/${key.id}/secret`)
    const { entries } = (await api.get('/audit?limit=1000')).body
    const about = (target: string) => entries.filter((e: { target: string }) => e.target === target)
    expect(about(account.id)).toContainEqual(
      expect.objectContaining({ actor: 'admin-token', action: 'POST /admin/v1/accounts', status: 201 }),
    )
    expect(
      about(key.id).map((e: { action: string; actor: string; status: number }) => [e.actor, e.action, e.status]),
    ).toEqual([
      ['admin-token', 'POST /admin/v1/keys/:id/secret', 200],
      ['admin-token', 'POST /admin/v1/keys', 201],
    ])
    const text = JSON.stringify(entries)
    expect(text).not.toContain(key.key)
    expect(text).not.toContain(ADMIN_TOKEN)
    const byTarget = (await api.get(`/audit?target=${key.id}&limit=1`)).body.entries
    expect(byTarget).toHaveLength(1)
    const older = (await api.get(`/audit?target=${key.id}&before=${byTarget[0].at}`)).body.entries
    expect(older.map((e: { action: string }) => e.action)).toEqual(['POST /admin/v1/keys'])
    const bad = await api.get('/audit?limit=0')
    expect([bad.status, bad.body]).toEqual([422, refusal('INVALID_INPUT', 'limit')])
    // A wrong token's call is audited bounded (one row per source IP per minute, admin-api-audit.test.ts), never
    // with the token it sent.
    await adminClient(server.url, 'wrong-token-wrong-token').get(`/keys/${key.id}`)
    expect(JSON.stringify((await api.get('/audit?limit=1000')).body)).not.toContain('wrong-token-wrong-token')
  })
})

describe('without a token', () => {
  it('the API is off: its paths answer 404 like any unknown path', async () => {
    const off = await startTestServer({}, { parts: { admin: true } })
    try {
      for (const token of [null, ADMIN_TOKEN]) {
        const r = await adminClient(off.url, token).get('/accounts')
        expect(r.status).toBe(404)
        expect(r.body).toBeUndefined() // the gateway's plain-text 404
      }
    } finally {
      await off.stop()
    }
  }, 120_000)
})

describe('the OpenAPI document', () => {
  it('documents every registered route, and every documented path is a route', async () => {
    // The routes as fastify registers them, from a second mount of the plugin on the running app's parts.
    const app = Fastify()
    const routes = new Set<string>()
    app.addHook('onRoute', (r) => {
      const hidden = (r.schema as { hide?: boolean } | undefined)?.hide
      for (const m of ([] as string[]).concat(r.method))
        if (m !== 'HEAD' && !hidden) routes.add(`${m} ${r.url.replace(/:(\w+)/g, '{$1}')}`)
    })
    await registerAdminApi(app, adminDeps())
    await app.ready()
    await app.close()

    const doc = await api.get('/openapi.json')
    expect(doc.status).toBe(200)
    expect(doc.body.openapi).toBe('3.1.0')
    const documented = new Set<string>()
    for (const [path, ops] of Object.entries(doc.body.paths as Record<string, Record<string, unknown>>))
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path}`)
    expect([...documented].sort()).toEqual([...routes].sort())
    expect(documented.size).toBeGreaterThan(20)
    // Each route's schema is in it: the inputs a client must send, and the refusal shape.
    const create = doc.body.paths['/admin/v1/keys'].post
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['account'])
    expect(create.responses['201']).toBeDefined()
    expect(create.responses['4XX'].content['application/json'].schema.properties.error).toBeDefined()
    // Every documented route answers (not the wildcard's 404) on the real listener, and refuses without the token.
    const anonymous = adminClient(server.url, null)
    const wrong = adminClient(server.url, 'not-the-admin-token-at-all')
    for (const entry of documented) {
      const [verb, route] = entry.split(' ') as ['GET' | 'POST' | 'PUT', string]
      const path = route.replace('/admin/v1', '').replace('{id}', 'no-such-id')
      const body = verb === 'GET' ? undefined : {}
      expect((await anonymous.send(verb, path, body)).status, entry).toBe(401)
      expect((await wrong.send(verb, path, body)).status, entry).toBe(403)
    }
    for (const entry of documented) {
      const [method, path] = entry.split(' ') as ['GET' | 'POST' | 'PUT', string]
      const r = await api.send(
        method,
        path!.replace('/admin/v1', '').replace('{id}', 'no-such-id'),
        method === 'GET' ? undefined : {},
      )
      expect(r.body?.error?.message ?? '', entry).not.toMatch(/^route /)
    }
  })
})
