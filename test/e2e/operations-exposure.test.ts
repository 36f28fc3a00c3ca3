/**
 * What the operator endpoints show without a token: on a loopback listener they answer only the Host names the
 * dashboard answers to (a DNS-rebinding page gets 403), /healthz and /metrics do not name the embedded chain's URL,
 * and a public bind with neither a token nor a separate operations listener is warned about at start.
 */
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestServer, type TestServer } from './helpers/server.ts'

const PATHS = ['/healthz', '/metrics', '/livez', '/readyz', '/startupz']
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({ networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }] })
})
afterAll(async () => s?.stop())

const get = async (url: string, host?: string) => {
  const res = await request(url, { headers: host ? { host } : {} })
  return { status: res.statusCode, text: await res.body.text() }
}

describe('operations endpoints without a token', () => {
  it('on loopback, a foreign Host name is refused on every operations path', async () => {
    for (const path of PATHS) {
      expect((await get(`${s.url}${path}`, 'rebind.example')).status, path).toBe(403)
      expect((await get(`${s.url}${path}`, 'localhost')).status, path).toBe(200)
      expect((await get(`${s.url}${path}`)).status, path).toBe(200)
    }
  })

  it("/healthz does not name the embedded chain's URL", async () => {
    const anvil = s.app.upstreamUrls.get('devnet-a')!.url
    const health = await get(`${s.url}/healthz`)
    expect(health.status).toBe(200)
    expect(health.text).not.toContain(anvil)
    expect(JSON.parse(health.text).upstreams['devnet-a']).toMatchObject([{ upstream: 'embedded', state: 'healthy' }])
  })

  it("/metrics does not name the embedded chain's URL either", async () => {
    const anvil = s.app.upstreamUrls.get('devnet-a')!.url.replace(/\/$/, '')
    const metrics = await get(`${s.url}/metrics`)
    expect(metrics.status).toBe(200)
    expect(metrics.text).toContain('chaingate_upstream_state{network="devnet-a",upstream="embedded"')
    expect(metrics.text).not.toContain(anvil)
    expect(metrics.text).not.toContain(new URL(anvil).host)
  })

  it('a public bind with no token and no separate listener is warned about at start', async () => {
    const open = await startTestServer({
      gateway: { host: '0.0.0.0' },
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
    })
    try {
      expect(open.logText()).toContain('/healthz and /metrics are open to anyone who reaches')
      // A non-loopback listener answers any Host (documented): the operator names hosts in gateway.allowedHosts.
      expect((await get(`${open.url}/livez`, 'any.example')).status).toBe(200)
    } finally {
      await open.stop()
    }
  })
})
