/**
 * The dashboard on the real gateway listener (real app, anvil devnets): the endpoint URLs a key page shows are
 * the ones the gateway answers (HTTP and WebSocket, host and path form), and `gateway.trustProxy` makes Secure
 * cookies and per-client log-in limits work behind a TLS-terminating proxy.
 */
import { afterEach, describe, expect, test } from 'vitest'
import WebSocket from 'ws'
import { request } from 'undici'
import { buildDashboardTestApp, csrfOf, httpClient, type DashboardTestApp } from './helpers/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { resolves } from '../../src/networks/name-resolution.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
const BLOCK_NUMBER = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] })

let server: TestServer | undefined
let dash: DashboardTestApp | undefined
afterEach(async () => {
  await server?.stop()
  await dash?.close()
  server = dash = undefined
})

/** The URL sent to 127.0.0.1 with the URL's own Host header (`<network>.localhost` may not resolve here). */
function viaLoopback(url: string): { target: string; host: string } {
  const u = new URL(url)
  return { target: `${u.protocol}//127.0.0.1:${u.port}${u.pathname}`, host: u.host }
}

const shown = (page: string, id: string) => {
  const m = new RegExp(`id="${id}" type="text" readonly value="([^"]+)"`).exec(page)
  if (!m) throw new Error(`no ${id} on the key page`)
  return m[1]!
}

describe('endpoint URLs shown by the dashboard', () => {
  test('behavior: every URL on the key page answers: HTTP host and path form, WebSocket host and path form', {
    timeout: 60_000,
  }, async () => {
    // The team plan: eight calls in a row stay under its credits per second.
    server = await startTestServer({ gateway: { defaultPlan: 'team' } }, { parts: { dashboard: true } })
    const c = httpClient(server.url)
    expect((await c.signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    const created = await c.submit('/keys', '/keys', { name: 'endpoints' })
    expect(created.statusCode).toBe(201)
    const key = shown(created.body, 'api-key')
    // The gateway picks up keys made in the dashboard within gateway.settingsPollMs.
    await server.parts.keySnapshot.reload()
    for (const network of ['devnet-a', 'devnet-b']) {
      const urls = {
        http: [shown(created.body, `url-host-${network}`), shown(created.body, `url-path-${network}`)],
        ws: [shown(created.body, `ws-host-${network}`), shown(created.body, `ws-path-${network}`)],
      }
      expect(urls.ws[1]).toBe(`${server.url.replace(/^http/, 'ws')}/networks/${network}/ws/v3/${key}`)
      // The form a Node client can use here comes first: the path form where `<network>.localhost` does not resolve.
      // (A long timeout: under load the default 500 ms can run out here while the server's lookup did not.)
      const pathFirst = !(await resolves(`${network}.localhost`, 10_000))
      const at = (id: string) => created.body.indexOf(`id="${id}"`)
      expect([
        network,
        at(`url-path-${network}`) < at(`url-host-${network}`),
        at(`ws-path-${network}`) < at(`ws-host-${network}`),
      ]).toEqual([network, pathFirst, pathFirst])
      for (const url of urls.http) {
        const { target, host } = viaLoopback(url)
        const res = await request(target, {
          method: 'POST',
          headers: { host, 'content-type': 'application/json' },
          body: BLOCK_NUMBER,
        })
        const body = (await res.body.json()) as { id: number; result: string }
        expect([url, res.statusCode, body.id, /^0x[0-9a-f]+$/.test(body.result)]).toEqual([url, 200, 7, true])
      }
      for (const url of urls.ws) {
        const { target, host } = viaLoopback(url)
        const ws = new WebSocket(target, { headers: { host } })
        const answer = await new Promise<{ id: number; result: string }>((resolve, reject) => {
          ws.once('open', () => ws.send(BLOCK_NUMBER))
          ws.once('message', (data) => resolve(JSON.parse(String(data))))
          ws.once('unexpected-response', (_req, res) => reject(new Error(`${url}: HTTP ${res.statusCode}`)))
          ws.once('error', reject)
        }).finally(() => ws.close())
        expect([url, answer.id, /^0x[0-9a-f]+$/.test(answer.result)], JSON.stringify(answer)).toEqual([url, 7, true])
      }
    }
  })
})

describe('behind a TLS-terminating proxy', () => {
  test('behavior: with gateway.trustProxy the cookie is Secure and log-in limits are per forwarded client', {
    timeout: 60_000,
  }, async () => {
    server = await startTestServer(
      { gateway: { trustProxy: '127.0.0.1' }, networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] },
      { parts: { dashboard: true } },
    )
    const proxied = (ip: string) =>
      httpClient(server!.url, { headers: { 'x-forwarded-for': ip, 'x-forwarded-proto': 'https' } })
    const victim = proxied('203.0.113.8')
    expect(
      (await victim.submit('/signup', '/signup', { email: 'victim@example.com', password: PASSWORD })).statusCode,
    ).toBe(303)
    // One client uses up its window on other emails...
    const attacker = proxied('203.0.113.7')
    const token = csrfOf((await attacker.get('/login')).body)
    for (let i = 0; i < 5; i++)
      expect(
        (await attacker.post('/login', { _csrf: token, email: `x${i}@example.com`, password: 'wrong-password' }))
          .statusCode,
      ).toBe(401)
    expect(
      (await attacker.post('/login', { _csrf: token, email: 'y@example.com', password: 'wrong-password' })).statusCode,
    ).toBe(429)
    // ...another client behind the same proxy is not affected, and its session cookie is Secure.
    const login = await victim.login('victim@example.com', PASSWORD)
    expect(login.statusCode).toBe(303)
    const cookie = ([] as string[]).concat(login.headers['set-cookie'] ?? []).find((h) => h.startsWith('cg_session='))
    expect(cookie).toMatch(/; Secure/)
  })

  test('error: without trustProxy, X-Forwarded-For and -Proto are ignored (a client cannot dodge the limit by inventing addresses)', async () => {
    dash = await buildDashboardTestApp({ listen: true })
    const token = csrfOf((await httpClient(dash.url).get('/login')).body)
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      const c = httpClient(dash.url, {
        headers: { 'x-forwarded-for': `198.51.100.${i}`, 'x-forwarded-proto': 'https' },
      })
      c.jar.set('cg_csrf', token)
      statuses.push(
        (await c.post('/login', { _csrf: token, email: `z${i}@example.com`, password: 'wrong-password' })).statusCode,
      )
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429])
  })
})
