/**
 * The orchestrator probes (docs/deploy.md, "Probes"): /livez never depends on a node or the database, /readyz is
 * false while starting, draining or when no network answers, /startupz turns true once start-up is done. On the
 * gateway listener and on the separate operations listener, behind the same token as /healthz.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startAnvil } from '../../src/upstreams/devnet/anvil.ts'
import { startTestServer } from './helpers/server.ts'

const TOKEN = 'probe-token-0123456789'
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function get(url: string, token?: string) {
  const res = await request(url, { headers: token ? { authorization: `Bearer ${token}` } : {} })
  const text = await res.body.text()
  const json = res.headers['content-type']?.toString().startsWith('application/json')
  return { status: res.statusCode, body: json ? JSON.parse(text) : text, headers: res.headers }
}

async function serverOnAnvil(gateway: Record<string, unknown> = {}, onListening?: (url: string) => Promise<void>) {
  const anvil = await startAnvil({ chainId: 4250, port: 0, blockTimeSeconds: 0 })
  cleanups.push(() => anvil.stop())
  const s = await startTestServer(
    {
      networks: [{ name: 'ext', chainId: 4250, upstreams: [{ url: anvil.url }] }],
      gateway: { drainDelayMs: 0, ...gateway },
    },
    onListening ? { onListening } : {},
  )
  cleanups.push(() => s.stop())
  return { anvil, s }
}

describe('probes', () => {
  it('a node down: /readyz 503 (no network) while /livez and /startupz stay 200', async () => {
    const { anvil, s } = await serverOnAnvil({ operations: { healthCacheMs: 0 } })
    expect(await get(`${s.url}/livez`)).toMatchObject({ status: 200, body: { status: 'alive' } })
    expect(await get(`${s.url}/startupz`)).toMatchObject({ status: 200, body: { status: 'started' } })
    expect(await get(`${s.url}/readyz`)).toMatchObject({
      status: 200,
      body: { status: 'ready', networks: { ext: 'up' } },
    })
    await anvil.stop()
    expect(await get(`${s.url}/readyz`)).toMatchObject({
      status: 503,
      body: { status: 'no-network', networks: { ext: 'down' } },
    })
    expect(await get(`${s.url}/livez`)).toMatchObject({ status: 200 })
    expect(await get(`${s.url}/startupz`)).toMatchObject({ status: 200 })
  })

  it('draining: /readyz 503 with connection: close while /livez stays 200 and calls are still served', async () => {
    const { s } = await serverOnAnvil()
    s.app.beginDrain()
    const ready = await get(`${s.url}/readyz`)
    expect(ready).toMatchObject({ status: 503, body: { status: 'draining' } })
    expect(ready.headers.connection).toBe('close')
    expect((await get(`${s.url}/livez`)).status).toBe(200)
    expect((await s.rpc({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, { network: 'ext' })).status).toBe(
      200,
    )
  })

  it('before start-up is done: /startupz and /readyz 503, /livez 200', async () => {
    const seen: Record<string, number> = {}
    await serverOnAnvil({}, async (url) => {
      for (const p of ['livez', 'startupz', 'readyz']) seen[p] = (await get(`${url}/${p}`)).status
    })
    expect(seen).toEqual({ livez: 200, startupz: 503, readyz: 503 })
  })

  it('on the operations listener only, behind the token like /healthz', async () => {
    const { s } = await serverOnAnvil({ operations: { token: TOKEN, listen: { host: '127.0.0.1', port: 0 } } })
    const ops = s.app.operationsUrl!
    for (const p of ['livez', 'readyz', 'startupz', 'healthz']) {
      expect((await get(`${ops}/${p}`)).status, p).toBe(401)
      expect((await get(`${ops}/${p}`, TOKEN)).status, p).toBe(200)
      expect((await get(`${s.url}/${p}`, TOKEN)).status, `${p} not on the gateway listener`).toBe(404)
    }
  })

  it('openProbes: the probes answer without the token (Kubernetes), /healthz and /metrics still need it', async () => {
    const { s } = await serverOnAnvil({
      operations: { token: TOKEN, openProbes: true, listen: { host: '127.0.0.1', port: 0 } },
    })
    const ops = s.app.operationsUrl!
    for (const p of ['livez', 'readyz', 'startupz']) expect((await get(`${ops}/${p}`)).status, p).toBe(200)
    for (const p of ['healthz', 'metrics']) {
      expect((await get(`${ops}/${p}`)).status, p).toBe(401)
      expect((await get(`${ops}/${p}`, TOKEN)).status, p).toBe(200)
    }
  })
})
