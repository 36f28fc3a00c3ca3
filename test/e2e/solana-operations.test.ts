/**
 * A Solana network in the operators' and owners' views, next to an EVM one (docs/upstreams.md, "Chain families"):
 * the usage ledger and the admin API's usage by network, the request explorer, `GET /upstreams`, `/healthz`,
 * `/metrics`, the dashboard's endpoints, and a usage alert fired by Solana spending.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts'

const SOLANA = 'solana-devnet'
const EVM = 'devnet-a'
const SOLANA_PRICE = 180 // Infura's price of a Solana call (src/methods/solana/catalog.ts)
const plans = { tiny: { creditsPerDay: 10 * SOLANA_PRICE, creditsPerSecond: 100_000, maxKeys: null } }
const alerts = { sweepMs: 100, deliveryPollMs: 50, backoffBaseMs: 50, timeoutMs: 2000, allowPrivateTargets: true }

const waitFor = async <T>(what: string, get: () => Promise<T | undefined>, ms = 20_000): Promise<T> => {
  const end = Date.now() + ms
  for (;;) {
    const value = await get()
    if (value !== undefined) return value
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

describe('a Solana network in usage, the explorer, upstreams, health, metrics and alerts', { timeout: 120_000 }, () => {
  let server: TestServer
  let receiver: Receiver
  let api: ReturnType<typeof adminClient>
  let account: { id: string }
  let key: { id: string; key: string }

  beforeAll(async () => {
    receiver = await startReceiver()
    server = await startTestServer(
      {
        networks: [
          { name: EVM, chainId: 31337, embedded: { port: 0 } },
          { name: SOLANA, family: 'solana', embedded: { port: 0, slotMs: 100 } },
        ],
        plans,
        alerts,
        admin: { token: ADMIN_TOKEN },
        gateway: { defaultPlan: 'tiny', operations: { token: ADMIN_TOKEN } },
      },
      { parts: { admin: true, alerts: true, dashboard: true } },
    )
    api = adminClient(server.url)
    account = (await api.post('/accounts', { email: 'sol-ops@example.com', plan: 'tiny' })).body
    key = (await api.post('/keys', { account: account.id })).body
    const set = await api.put(`/accounts/${account.id}/alerts`, { creditThresholds: [25], webhookUrl: receiver.url })
    expect(set.status).toBe(200)
    const calls = [
      [SOLANA, call('getSlot')],
      [SOLANA, call('getBalance', ['11111111111111111111111111111111'])],
      [SOLANA, call('getBalance', ['not-base58!'])],
      [SOLANA, call('getHealth')],
      [SOLANA, call('getVersion')],
      [EVM, call('eth_chainId')],
    ] as const
    for (const [network, body] of calls) await server.rpc(body, { key: key.key, network })
  }, 90_000)
  afterAll(async () => {
    await server?.stop()
    await receiver?.close()
  })

  it('usage by network charges the Solana calls at their price, beside the EVM call', async () => {
    const rows = await waitFor('the ledger', async () => {
      const r = await api.get(`/usage?account=${account.id}&by=network`)
      return r.body.total?.calls === 6 ? r.body.rows : undefined
    })
    // Four served calls at 180, the malformed address refused before the node at 5 (docs/errors.md).
    expect(rows.find((x: { group: string }) => x.group === SOLANA)).toMatchObject({
      calls: 5,
      credits: 4 * SOLANA_PRICE + 5,
      errors: 1,
    })
    expect(rows.find((x: { group: string }) => x.group === EVM)).toMatchObject({ calls: 1, credits: 5 })
  })

  it('the request explorer lists the Solana calls with their network, method and outcome', async () => {
    const requests = await waitFor('the request explorer', async () => {
      const r = await api.get(`/keys/${key.id}/requests?limit=50`)
      const sol = r.body.requests?.filter((x: { network: string }) => x.network === SOLANA)
      return sol?.length === 5 ? sol : undefined
    })
    const methods = requests.map((x: { method: string }) => x.method).sort()
    expect(methods).toEqual(['getBalance', 'getBalance', 'getHealth', 'getSlot', 'getVersion'])
    const refused = requests.find((x: { status: string }) => x.status !== 'ok')
    expect(refused).toMatchObject({ method: 'getBalance', status: 'rpc:-32602' })
  })

  it('GET /upstreams and /healthz show the Solana node with its slot; /metrics labels it', async () => {
    const upstreams = (await api.get('/upstreams')).body
    const text = JSON.stringify(upstreams)
    expect(text).toContain(SOLANA)
    const healthz = await fetch(`${server.url}/healthz`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    const health = await healthz.json()
    expect(JSON.stringify(health)).toContain(SOLANA)
    const metrics = await (
      await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })
    ).text()
    const head = metrics.split('\n').find((l) => l.startsWith('chaingate_upstream_head_block{') && l.includes(SOLANA))
    expect(head, 'a head gauge for the Solana node').toBeDefined()
    expect(Number(head!.split(' ').pop())).toBeGreaterThan(0)
    expect(metrics).toMatch(new RegExp(`chaingate_requests_total\\{[^}]*network="${SOLANA}"`))
  })

  it('a credit threshold fires on Solana spending, like on EVM', async () => {
    const alert = await waitFor('the 25 % alert', async () => {
      const list = (await api.get(`/accounts/${account.id}/alerts/deliveries`)).body.alerts
      return list?.find((a: { threshold?: number }) => a.threshold === 25)
    })
    expect(alert.kind).toBe('credits')
    await waitFor('the webhook', async () => (receiver.received.length > 0 ? true : undefined))
    expect(receiver.received[0]!.body).toContain(account.id)
  })
})
