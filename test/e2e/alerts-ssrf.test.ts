/**
 * Usage alert webhooks on a gateway with the default rules (no `alerts.allowPrivateTargets`; docs/alerts.md,
 * "SSRF"), over real HTTP: the dashboard and the admin API refuse a webhook at loopback, private or link-local
 * addresses in any spelling; a webhook change is audited with both URLs, masked; a URL stored before the rules
 * (here: saved with the opt-in that this gateway does not give) is not sent and the account reads "host no longer
 * allowed"; a connection error reads "connection failed" on the account page while the server log has the detail.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createAlertSettingsRepository } from '../../src/alerts/settings.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const PRICE = 80 // eth_getBalance (src/methods/catalog.ts)
const plans = { tiny: { creditsPerDay: 10 * PRICE, creditsPerSecond: 100_000, maxKeys: null } }
const alerts = { sweepMs: 100, deliveryPollMs: 50, backoffBaseMs: 60_000, timeoutMs: 2000 }
const waitFor = async (what: string, cond: () => boolean | Promise<boolean>, ms = 20_000) => {
  const end = Date.now() + ms
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 25))
  }
}
const balanceCall = call('eth_getBalance', ['0x0000000000000000000000000000000000000001', 'latest'])

describe('usage alert webhooks under the default SSRF rules', () => {
  let server: TestServer
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startTestServer(
      {
        plans,
        alerts,
        admin: { token: ADMIN_TOKEN },
        gateway: { defaultPlan: 'tiny' },
        networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
      },
      { parts: { alerts: true, dashboard: true, admin: true } },
    )
  }, 120_000)
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  /** Spends the account's whole daily balance with real calls: the 100 % alert fires. */
  const spendAll = async (accountId: string) => {
    const key = await server.parts.keys.create({ accountId, name: 'alerts' }, Date.now())
    await server.parts.keySnapshot.reload()
    for (let i = 0; i < 10; i++) expect((await server.rpc(balanceCall, { key: key.key })).status).toBe(200)
  }
  const auditOf = async (target: string) =>
    ((await adminClient(server.url).get(`/audit?target=${target}`)).body.entries as { summary: string }[]).map(
      (e) => e.summary,
    )

  it('the dashboard and the admin API refuse private targets; changes are audited with both URLs, masked', async () => {
    const email = `ssrf-${Date.now()}@example.com`
    const web = httpClient(server.url)
    expect((await web.signup(email, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    const account = (await server.parts.accounts.resolve(email))!
    const hosts = [
      '127.0.0.1',
      '127.1',
      '0x7f000001',
      '2130706433',
      '[::ffff:127.0.0.1]',
      '[::1]',
      'localhost',
      '169.254.169.254',
      '10.0.0.1',
    ]
    for (const host of hosts) {
      const r = await web.submit('/account', '/account/alerts', { thresholds: '100', webhookUrl: `http://${host}:22/` })
      expect([host, r.statusCode, r.body.includes('alerts.allowPrivateTargets')]).toEqual([host, 400, true])
    }
    const slack = 'https://hooks.example.com/services/T0001/B0001/XXXXXXXXXXXXXXXXXXXXXXXX?token=s3cr3t-value'
    expect((await web.submit('/account', '/account/alerts', { thresholds: '100', webhookUrl: slack })).statusCode).toBe(
      200,
    )
    const next = 'https://hooks2.example.com/chaingate'
    expect((await web.submit('/account', '/account/alerts', { thresholds: '100', webhookUrl: next })).statusCode).toBe(
      303,
    )
    const masked = 'https://hooks.example.com/services/T0001/B0001/XXXX…?token=***'
    // The dashboard's audit is written once the answer has gone.
    await waitFor('the dashboard audit', async () => (await auditOf(account.id)).length >= hosts.length + 2)
    const dashboard = await auditOf(account.id)
    expect(dashboard).toContain(`usage alerts saved; webhook ${masked} (was none)`)
    expect(dashboard).toContain(`usage alerts saved; webhook ${next} (was ${masked})`)
    expect(dashboard).toContain('refused (400): usage alerts saved; webhook http://169.254.169.254:22/ (was none)')

    const api = adminClient(server.url)
    const refused = await api.put(`/accounts/${account.id}/alerts`, { webhookUrl: 'http://[::ffff:a9fe:a9fe]/' })
    expect([refused.status, refused.body.error.field]).toEqual([422, 'webhookUrl'])
    expect(refused.body.error.message).toMatch(/private.*alerts\.allowPrivateTargets/)
    const put = await api.put(`/accounts/${account.id}/alerts`, { webhookUrl: 'https://hooks3.example.com/a?sig=zz9' })
    expect(put.status).toBe(200)
    const all = await auditOf(account.id)
    expect(all).toContain(`set an account's usage alerts; webhook https://hooks3.example.com/a?sig=*** (was ${next})`)
    expect(JSON.stringify(all)).not.toMatch(/s3cr3t-value|XXXXXXXX|zz9/)
  })

  it('a URL stored before the rules is not sent: "host no longer allowed"; a connection error is generic', async () => {
    // Saved by a gateway that allowed private targets (the operator has removed the opt-in since).
    const before = createAlertSettingsRepository(server.parts.database.db, {
      allowedHosts: null,
      allowPrivateTargets: true,
    })
    const web = httpClient(server.url)
    const email = `stale-${Date.now()}@example.com`
    expect((await web.signup(email, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    const stale = (await server.parts.accounts.resolve(email))!
    await before.set(stale.id, { creditThresholds: [100], webhookUrl: receiver.url }, Date.now())
    // A name that does not resolve (RFC 6761 reserves .invalid): a connection error.
    const dead = await server.parts.accounts.create({ email: `dead-${Date.now()}@example.com`, plan: 'tiny' }, 1)
    await before.set(dead.id, { creditThresholds: [100], webhookUrl: 'https://hooks.no-such-host.invalid/x' }, 1)
    await spendAll(stale.id)
    await spendAll(dead.id)
    const last = async (accountId: string) => (await server.parts.alerts!.log.recent(accountId, 1))[0]
    await waitFor('the refused delivery', async () => (await last(stale.id))?.status === 'failed')
    expect(await last(stale.id)).toMatchObject({ attempts: 1, lastError: 'host no longer allowed' })
    expect(receiver.received).toEqual([])
    expect((await web.get('/account')).body).toContain('last error: host no longer allowed')
    await waitFor('the failed attempt', async () => ((await last(dead.id))?.attempts ?? 0) >= 1)
    expect(await last(dead.id)).toMatchObject({ status: 'pending', lastError: 'connection failed' })
    // The operator's log keeps what happened; the account sees none of it.
    expect(server.logText()).toContain('ENOTFOUND')
    expect(server.logText()).toContain('alert webhook refused: host no longer allowed')
  })
})
