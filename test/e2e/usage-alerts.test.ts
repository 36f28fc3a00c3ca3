/**
 * Usage alerts on the real gateway (startApp, anvil devnet, real HTTP, a real webhook receiver): an account sets its
 * alerts on the dashboard (the secret shown once), a key spends its balance with real calls, the 80 % and 100 %
 * webhooks arrive signed with that secret, the refusal-rate alert fires on 402s, the dashboard's account page lists
 * them as delivered, and the admin API sets and reads the same settings and delivery log. Then two apps on one
 * PostgreSQL database (and Redis), both sweeping: each threshold's webhook is sent once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifySignature } from '../../src/alerts/webhook.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { createPgTestSchema, describeWithServices, redisUrl, type PgTestSchema } from '../support/services.ts'
import { signed, startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const PRICE = 80 // eth_getBalance (src/methods/catalog.ts)
const BALANCE = 10 * PRICE
// The receiver listens on 127.0.0.1: the operator's opt-in for private targets (docs/alerts.md, "SSRF").
const alertsConfig = {
  sweepMs: 100,
  deliveryPollMs: 50,
  backoffBaseMs: 50,
  backoffMaxMs: 500,
  timeoutMs: 2000,
  allowPrivateTargets: true,
}
const plans = { tiny: { creditsPerDay: BALANCE, creditsPerSecond: 100_000, maxKeys: null } }
const waitFor = async (what: string, cond: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
const balanceCall = call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest'])
const bodies = (r: Receiver) => r.received.map((x) => JSON.parse(x.body) as Record<string, unknown>)

describe('usage alerts on one gateway', () => {
  let server: TestServer
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startTestServer(
      { plans, alerts: alertsConfig, admin: { token: ADMIN_TOKEN }, gateway: { defaultPlan: 'tiny' } },
      { parts: { alerts: true, dashboard: true, admin: true } },
    )
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it('set on the dashboard; 80 % and 100 % fire on real calls, signed; refusals too; listed', async () => {
    const email = `alerts-${Date.now()}@example.com`
    const web = httpClient(server.url)
    expect((await web.signup(email, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    receiver.answer(500) // the first webhook fails once: retried after the backoff
    const saved = await web.submit('/account', '/account/alerts', {
      thresholds: '80, 100',
      refusalsPerMinute: '3',
      webhookUrl: receiver.url,
    })
    expect(saved.statusCode).toBe(200)
    const secret = /<code>(whsec_[A-Za-z0-9_-]+)<\/code>/.exec(saved.body)?.[1]
    expect(secret).toBeDefined()
    // Shown once: the page does not show it again.
    const again = await web.get('/account')
    expect(again.body).not.toContain(secret!)
    expect(again.body).toContain('value="80,100"')
    const refused = await web.submit('/account', '/account/alerts', {
      thresholds: '80',
      webhookUrl: 'file:///etc/passwd',
    })
    expect([refused.statusCode, refused.body.includes('only http(s) URLs')]).toEqual([400, true])

    const account = (await server.parts.accounts.resolve(email))!
    const key = await server.parts.keys.create({ accountId: account.id, name: 'alerts' }, Date.now())
    await server.parts.keySnapshot.reload()
    const spend = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await server.rpc(balanceCall, { key: key.key })
        expect([r.status, r.credits]).toEqual([200, PRICE])
      }
    }
    await spend(7) // 70 %: nothing yet
    await new Promise((r) => setTimeout(r, 500))
    expect(receiver.received).toEqual([])
    await spend(1) // 80 %
    await waitFor('the 80 % webhook (after one 500)', () => receiver.received.length >= 2)
    await spend(2) // 100 %
    await waitFor('the 100 % webhook', () => bodies(receiver).some((b) => b.threshold === 100))
    // Refused calls: three 402s in a minute reach the refusal threshold.
    for (let i = 0; i < 3; i++) expect((await server.rpc(balanceCall, { key: key.key })).status).toBe(402)
    await waitFor('the refusal webhook', () => bodies(receiver).some((b) => b.type === 'refusals.threshold'))

    for (const r of receiver.received) expect(verifySignature(secret!, r.body, signed(r))).toBe(true)
    const byKey = new Map(bodies(receiver).map((b) => [`${b.type}:${b.threshold}`, b]))
    expect(byKey.get('credits.threshold:80')).toMatchObject({
      accountId: account.id,
      used: 8 * PRICE,
      balance: BALANCE,
    })
    expect(byKey.get('credits.threshold:100')).toMatchObject({ used: BALANCE, remaining: 0 })
    expect(byKey.get('refusals.threshold:3')).toMatchObject({ refusedLastMinute: 3 })
    // 80 % was sent twice (500, then 200), the others once: one alert per threshold.
    expect(
      bodies(receiver)
        .map((b) => b.threshold)
        .sort(),
    ).toEqual([100, 3, 80, 80])
    await new Promise((r) => setTimeout(r, 500))
    expect(receiver.received).toHaveLength(4)

    const page = (await web.get('/account')).body
    expect(page).toContain('Recent alerts')
    expect(page).toContain('80 % of the daily balance')
    expect(page).toContain('100 % of the daily balance')
    expect(page).toContain('3 refused calls a minute')
    expect(page.match(/badge on">delivered/g)).toHaveLength(3)
    expect(page).toMatch(
      /80 % of the daily balance<\/td>[\s\S]*?delivered<\/span><\/td>\s*<td data-label="Delivery">2 attempts</,
    )
    expect(server.logText()).not.toContain(secret!)
  }, 90_000)

  it('the admin API sets and reads the same settings and delivery log', async () => {
    const api = adminClient(server.url)
    const { account } = await server.newKey('tiny')
    expect((await api.get(`/accounts/${account.id}/alerts`)).body).toEqual({ settings: null })
    const bad = await api.put(`/accounts/${account.id}/alerts`, { creditThresholds: [0] })
    expect([bad.status, bad.body.error.field]).toEqual([422, 'creditThresholds'])
    const badUrl = await api.put(`/accounts/${account.id}/alerts`, { webhookUrl: 'ftp://hooks.example.com/x' })
    expect([badUrl.status, badUrl.body.error]).toEqual([
      422,
      { code: 'INVALID_INPUT', field: 'webhookUrl', message: 'webhookUrl: only http(s) URLs' },
    ])
    const put = await api.put(`/accounts/${account.email}/alerts`, {
      creditThresholds: [50],
      webhookUrl: 'https://hooks.example.com/x',
    })
    expect(put.status).toBe(200)
    expect(put.body.secret).toMatch(/^whsec_/)
    expect(put.body.settings).toMatchObject({ creditThresholds: [50], refusalsPerMinute: null })
    const got = await api.get(`/accounts/${account.id}/alerts`)
    expect(got.body.settings.webhookUrl).toBe('https://hooks.example.com/x')
    expect(got.text).not.toContain(put.body.secret)
    expect((await api.put(`/accounts/${account.id}/alerts`, { refusalsPerMinute: 10 })).body.secret).toBeUndefined()
    expect((await api.get(`/accounts/${account.id}/alerts/deliveries`)).body).toEqual({ alerts: [] })
    expect((await api.get('/accounts/no-such-account/alerts')).status).toBe(404)
    // The first test's account: its delivery log with every attempt.
    const first = (await server.parts.alerts!.settings.list()).find((s) => s.email.startsWith('alerts-'))!
    const log = (await api.get(`/accounts/${first.accountId}/alerts/deliveries`)).body.alerts
    const eighty = log.find((a: { threshold: number; kind: string }) => a.kind === 'credits' && a.threshold === 80)
    expect(eighty).toMatchObject({ status: 'delivered', attempts: 2, lastStatus: 200 })
    expect(eighty.attemptLog.map((a: { status: number }) => a.status)).toEqual([500, 200])
  })
})

// Two replicas on one PostgreSQL: counting in each process, or shared through Redis (leases).
for (const shared of [false, true])
  describeWithServices(
    shared ? ['postgres', 'redis'] : ['postgres'],
    `usage alerts: two apps on one PostgreSQL${shared ? ' and Redis' : ''}`,
    () => {
      let schema: PgTestSchema
      let receiver: Receiver
      const servers: TestServer[] = []
      const keyPrefix = `test:alerts:${Math.random().toString(36).slice(2)}:`
      beforeAll(async () => {
        schema = await createPgTestSchema('alerts')
        receiver = await startReceiver()
        for (let i = 0; i < 2; i++)
          servers.push(
            await startTestServer(
              {
                plans,
                alerts: alertsConfig,
                database: { url: schema.url },
                // Per-call admission (no leases): the balance is exact whichever replica makes the last call.
                ...(shared ? { redis: { url: redisUrl, keyPrefix, leaseCredits: 0 } } : {}),
                networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
              },
              { parts: { alerts: true } },
            ),
          )
      }, 120_000)
      afterAll(async () => {
        for (const s of servers) await s.stop()
        await receiver?.close()
        await schema?.drop()
      })

      it('both sweep, each threshold is sent once', async () => {
        const [a, b] = servers as [TestServer, TestServer]
        const { account, key } = await a.newKey('tiny')
        await b.parts.keySnapshot.reload()
        await a.parts.alerts!.settings.set(
          account.id,
          { creditThresholds: [50, 80, 100], webhookUrl: receiver.url },
          Date.now(),
        )
        // Half the calls through each app: each process's own counter sees half, the ledger sees all.
        for (let i = 0; i < 10; i++) {
          const r = await (i % 2 ? a : b).rpc(balanceCall, { key: key.key })
          expect(r.status).toBe(200)
        }
        await waitFor('three webhooks', () => receiver.received.length >= 3)
        await new Promise((r) => setTimeout(r, 1000)) // several more sweeps of both apps
        expect(
          bodies(receiver)
            .map((x) => x.threshold)
            .sort(),
        ).toEqual([100, 50, 80])
        const rows = await a.parts.alerts!.log.recent(account.id, 10)
        expect(rows.map((r) => [r.threshold, r.status, r.attempts]).sort()).toEqual([
          [100, 'delivered', 1],
          [50, 'delivered', 1],
          [80, 'delivered', 1],
        ])
      }, 60_000)
    },
  )
