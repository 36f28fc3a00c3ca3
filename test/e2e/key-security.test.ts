/**
 * Key security enforced by the running gateway (real HTTP, real anvil, real SQLite), with every setting made
 * through the dashboard: disabled networks, allowlists, the key secret, JWT, per-key
 * limits (docs/key-security.md) and revocation. Each change must reach the gateway within about a second.
 */
import { exportSPKI, generateKeyPair, SignJWT } from 'jose'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { csrfOf, injectClient } from './helpers/dashboard.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const FORBIDDEN = '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n'
const ADDR_A = '0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
const ADDR_B = '0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc'

let s: TestServer
let n = 0

beforeAll(async () => {
  s = await startTestServer(
    { gateway: { defaultPlan: 'team' }, dashboard: { jwtAudience: 'chaingate-test' } },
    { parts: { dashboard: true } },
  )
})
afterAll(async () => s?.stop())

/** A fresh dashboard user with one key made in the dashboard; returns the key, its id and its secret. */
async function dashboardKey() {
  const c = injectClient(s.parts.server.app, { ip: `10.1.0.${++n}` })
  expect((await c.signup(`sec${n}-${Date.now()}@example.com`, 'a-good-password-123')).statusCode).toBe(303)
  const res = await c.submit('/keys', '/keys', { name: 'secured' })
  expect(res.statusCode).toBe(201)
  const key = /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(res.body)![1]!
  const secret = /id="new-secret" type="text" readonly value="([0-9a-f]{32})"/.exec(res.body)![1]!
  const id = /href="\/usage\?key=([0-9a-f]+)"/.exec(res.body)![1]!
  // The new key is live once the gateway's next settings poll has seen it.
  await eventually(async () => expect((await rpc(key, call('eth_chainId'))).status).toBe(200))
  const change = async (action: string, form: Record<string, string>) => {
    const r = await c.submit(`/keys/${id}`, `/keys/${id}/${action}`, form)
    expect(r.statusCode, r.body.slice(0, 300)).toBe(303)
  }
  return { c, key, id, secret, change }
}

async function rpc(key: string, body: unknown, headers: Record<string, string> = {}, network = 'devnet-a') {
  const res = await request(`${s.url}/networks/${network}/v3/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  return { status: res.statusCode, type: String(res.headers['content-type']), text: await res.body.text() }
}

/** Retries until `check` passes: settings reach the gateway on its next settings_version poll. */
async function eventually(check: () => Promise<void>, timeoutMs = 2000): Promise<number> {
  const start = Date.now()
  for (;;) {
    try {
      await check()
      return Date.now() - start
    } catch (err) {
      if (Date.now() - start > timeoutMs) throw err
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

const basic = (secret: string) => ({ authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` })

describe('gateway enforces what the dashboard sets', () => {
  test('behavior: a network disabled in the dashboard is refused within a second; others keep working', async () => {
    const k = await dashboardKey()
    expect((await rpc(k.key, call('eth_chainId'), {}, 'devnet-b')).status).toBe(200)
    await k.change('networks', { network: 'devnet-b', enabled: 'false' })
    const ms = await eventually(async () => {
      const r = await rpc(k.key, call('eth_chainId'), {}, 'devnet-b')
      expect(r.status).toBe(401)
      expect(r.text).toBe('project ID does not have access to this network\n')
    })
    expect(ms).toBeLessThan(1500)
    expect((await rpc(k.key, call('eth_chainId'))).status).toBe(200)
    await k.change('networks', { network: 'devnet-b', enabled: 'true' })
    await eventually(async () => expect((await rpc(k.key, call('eth_chainId'), {}, 'devnet-b')).status).toBe(200))
  })

  test('error: an origin allowlist refuses other origins and no origin with the exact 403 body', async () => {
    const k = await dashboardKey()
    await k.change('allowlists', { type: 'origins', entries: 'https://*.example.com' })
    await eventually(async () => {
      const r = await rpc(k.key, call('eth_chainId'), { origin: 'https://evil.test' })
      expect(r.status).toBe(403)
      expect(r.type).toBe('text/plain; charset=utf-8')
      expect(r.text).toBe(FORBIDDEN)
    })
    expect((await rpc(k.key, call('eth_chainId'))).text).toBe(FORBIDDEN)
    const ok = await rpc(k.key, call('eth_chainId'), { origin: 'https://app.example.com' })
    expect(ok.status).toBe(200)
    expect(JSON.parse(ok.text).result).toBe('0x7a69')
  })

  test('error: a user-agent allowlist matches substrings', async () => {
    const k = await dashboardKey()
    await k.change('allowlists', { type: 'userAgents', entries: 'MyDapp/' })
    await eventually(async () =>
      expect((await rpc(k.key, call('eth_chainId'), { 'user-agent': 'curl/8' })).status).toBe(403),
    )
    expect((await rpc(k.key, call('eth_chainId'), { 'user-agent': 'Mozilla MyDapp/2.1' })).status).toBe(200)
  })

  test('behavior: methods and addresses AND together; entries OR; batches are refused whole', async () => {
    const k = await dashboardKey()
    await k.change('allowlists', { type: 'methods', entries: 'eth_getBalance eth_chainId' })
    await k.change('allowlists', { type: 'addresses', entries: `${ADDR_A}` })
    await eventually(async () =>
      expect((await rpc(k.key, call('eth_getBalance', [ADDR_B, 'latest']))).status).toBe(403),
    )
    expect((await rpc(k.key, call('eth_blockNumber'))).status).toBe(403)
    expect(
      (await rpc(k.key, call('eth_getBalance', [ADDR_A.toUpperCase().replace('0X', '0x'), 'latest']))).status,
    ).toBe(200)
    const other = await rpc(k.key, call('eth_getBalance', [ADDR_B, 'latest']))
    expect(other.status).toBe(403)
    expect(other.text).toBe(FORBIDDEN)
    expect((await rpc(k.key, call('eth_chainId'))).status).toBe(200)
    const batch = await rpc(k.key, [call('eth_chainId', [], 1), call('eth_blockNumber', [], 2)])
    expect(batch.status).toBe(403)
    expect(batch.text).toBe(FORBIDDEN)
  })

  test('error: a required secret answers 401 without it; with override, the secret bypasses allowlists', async () => {
    const k = await dashboardKey()
    await k.change('allowlists', { type: 'origins', entries: 'https://app.example.com' })
    await k.change('security', { flags: '1', requireSecret: 'on' })
    await eventually(async () => {
      const r = await rpc(k.key, call('eth_chainId'), { origin: 'https://app.example.com' })
      expect(r.status).toBe(401)
      expect(r.text).toBe('invalid project id or project secret')
    })
    expect(
      (await rpc(k.key, call('eth_chainId'), { origin: 'https://app.example.com', ...basic('0'.repeat(32)) })).status,
    ).toBe(401)
    expect(
      (await rpc(k.key, call('eth_chainId'), { origin: 'https://app.example.com', ...basic(k.secret) })).status,
    ).toBe(200)
    // Without the override the secret does not lift the origin rule…
    expect((await rpc(k.key, call('eth_chainId'), basic(k.secret))).status).toBe(403)
    // …with it, it does.
    await k.change('security', { flags: '1', requireSecret: 'on', secretOverridesAllowlists: 'on' })
    await eventually(async () => expect((await rpc(k.key, call('eth_chainId'), basic(k.secret))).status).toBe(200))
  })

  test("error: checks run in Infura's order: secret, then network, then allowlists", async () => {
    const k = await dashboardKey()
    await k.change('allowlists', { type: 'origins', entries: 'https://app.example.com' })
    await k.change('security', { flags: '1', requireSecret: 'on' })
    await k.change('networks', { network: 'devnet-b', enabled: 'false' })
    const evil = { origin: 'https://evil.test' }
    // The three changes may reach the gateway in different settings polls: wait for the last one (the network),
    // then every check sees all three (waiting on the secret alone raced with the network change).
    await eventually(async () =>
      expect((await rpc(k.key, call('eth_chainId'), { ...evil, ...basic(k.secret) }, 'devnet-b')).status).toBe(401),
    )
    expect((await rpc(k.key, call('eth_chainId'), evil, 'devnet-b')).text).toBe('invalid project id or project secret')
    const noNetwork = await rpc(k.key, call('eth_chainId'), { ...evil, ...basic(k.secret) }, 'devnet-b')
    expect(noNetwork.status).toBe(401)
    expect(noNetwork.text).toBe('project ID does not have access to this network\n')
    const forbidden = await rpc(k.key, call('eth_chainId'), { ...evil, ...basic(k.secret) })
    expect(forbidden.status).toBe(403)
    expect(forbidden.text).toBe(FORBIDDEN)
  })

  test('error: a rotated secret replaces the old one at once', async () => {
    const k = await dashboardKey()
    await k.change('security', { flags: '1', requireSecret: 'on' })
    await eventually(async () => expect((await rpc(k.key, call('eth_chainId'), basic(k.secret))).status).toBe(200))
    const page = await k.c.submit(`/keys/${k.id}`, `/keys/${k.id}/secret`, {})
    const fresh = /id="new-secret" type="text" readonly value="([0-9a-f]{32})"/.exec(page.body)![1]!
    await eventually(async () => expect((await rpc(k.key, call('eth_chainId'), basic(k.secret))).status).toBe(401))
    expect((await rpc(k.key, call('eth_chainId'), basic(fresh))).status).toBe(200)
  })

  test('error: JWT required: a valid ES256 token passes, expired or missing answers 401 invalid JWT', async () => {
    const k = await dashboardKey()
    const pair = await generateKeyPair('ES256', { extractable: true })
    await k.change('jwt', { name: 'signer', alg: 'ES256', publicKeyPem: await exportSPKI(pair.publicKey) })
    const page = await k.c.get(`/keys/${k.id}`)
    const kid = /data-label="kid">([0-9a-f]{32})<\/td>/.exec(page.body)![1]!
    await k.change('security', { flags: '1', requireJwt: 'on' })
    const token = (exp: number, claims: Record<string, unknown> = {}) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid })
        .setAudience('chaingate-test')
        .setExpirationTime(exp)
        .sign(pair.privateKey)
    const now = Math.floor(Date.now() / 1000)
    await eventually(async () => {
      const r = await rpc(k.key, call('eth_chainId'))
      expect(r.status).toBe(401)
      expect(r.text).toBe('invalid JWT')
    })
    expect((await rpc(k.key, call('eth_chainId'), { authorization: `Bearer ${await token(now + 60)}` })).status).toBe(
      200,
    )
    expect((await rpc(k.key, call('eth_chainId'), { authorization: `Bearer ${await token(now - 60)}` })).text).toBe(
      'invalid JWT',
    )
    // JWT allowlist claims restrict this request only.
    const limited = await token(now + 60, { methods: ['eth_blockNumber'] })
    expect((await rpc(k.key, call('eth_chainId'), { authorization: `Bearer ${limited}` })).status).toBe(403)
    expect((await rpc(k.key, call('eth_blockNumber'), { authorization: `Bearer ${limited}` })).status).toBe(200)
  })

  test('error: per-key daily credit limit answers 429 with event -33400', async () => {
    const k = await dashboardKey()
    await k.change('limits', { creditsPerSecond: '0', creditsPerDay: '100' })
    await eventually(async () => {
      const r = await rpc(k.key, call('eth_blockNumber'))
      expect(r.status).toBe(429)
      expect(JSON.parse(r.text).error.event).toBe(-33400)
    }, 3000)
  })

  test('error: per-key credits per second answers 429 with event -33300', async () => {
    const k = await dashboardKey()
    await k.change('limits', { creditsPerSecond: '100', creditsPerDay: '0' })
    await eventually(async () => {
      const replies = await Promise.all([1, 2, 3].map(() => rpc(k.key, call('eth_blockNumber'))))
      const limited = replies.find((r) => r.status === 429)
      expect(limited).toBeDefined()
      expect(JSON.parse(limited!.text).error.event).toBe(-33300)
    }, 3000)
  })

  test('error: a key revoked in the dashboard stops working within a second', async () => {
    const k = await dashboardKey()
    expect((await rpc(k.key, call('eth_chainId'))).status).toBe(200)
    await k.change('revoke', { confirm: 'yes' })
    await eventually(async () => {
      const r = await rpc(k.key, call('eth_chainId'))
      expect(r.status).toBe(401)
      expect(r.text).toBe('invalid project id\n')
    })
  })

  test('behavior: the dashboard is served on the gateway listener next to /v3', async () => {
    const res = await request(`${s.url}/login`)
    expect(res.statusCode).toBe(200)
    const body = await res.body.text()
    expect(body).toContain('<h1>Log in</h1>')
    expect(csrfOf(body)).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})
