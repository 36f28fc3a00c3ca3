import { createServer, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { request } from 'undici'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

let s: TestServer
let blackhole: Server
let blackholePort: number
let closedPort: number

beforeAll(async () => {
  // A node that accepts connections and never answers, and a port where nothing listens.
  blackhole = createServer(() => undefined)
  await new Promise<void>((r) => blackhole.listen(0, '127.0.0.1', r))
  blackholePort = (blackhole.address() as { port: number }).port
  const probe = createServer()
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
  closedPort = (probe.address() as { port: number }).port
  await new Promise((r) => probe.close(r))
  s = await startTestServer({
    gateway: { maxBatchSize: 5, maxBodyBytes: 2048, upstreamTimeoutMs: 700 },
    networks: [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      { name: 'hanging', chainId: 5, upstreams: [{ url: `http://127.0.0.1:${blackholePort}` }] },
      { name: 'down', chainId: 6, upstreams: [{ url: `http://127.0.0.1:${closedPort}` }] },
    ],
  })
})
afterAll(async () => {
  await s?.stop()
  blackhole?.close()
})

/** After every bad request, the server must still serve a good one. */
async function stillServes() {
  const ok = await s.rpc(call('eth_chainId'))
  expect(ok.status).toBe(200)
  expect(ok.json().result).toBe('0x7a69')
}

const raw = async (path: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) => {
  const res = await request(`${s.url}${path}`, {
    method: (init.method ?? 'POST') as 'POST',
    body: init.body,
    headers: init.headers,
  })
  const text = await res.body.text()
  return { status: res.statusCode, headers: res.headers, text }
}

describe('bad input gets a clear answer and the server keeps serving', () => {
  it('invalid JSON: -32700, HTTP 400', async () => {
    const res = await s.rpc('{"jsonrpc":"2.0",')
    expect(res.status).toBe(400)
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })
    await stillServes()
  })

  it('a body that is neither an object nor an array: -32600', async () => {
    for (const body of ['"hello"', '42', 'null', 'true']) {
      const res = await s.rpc(body)
      expect(res.status).toBe(400)
      expect(res.json().error.code).toBe(-32600)
      expect(res.json().error.message).toContain('JSON object or a batch array')
    }
    await stillServes()
  })

  it('missing jsonrpc, missing method, bad id, bad params: -32600 naming the member', async () => {
    const cases: [unknown, string][] = [
      [{ id: 1, method: 'eth_chainId', params: [] }, '"jsonrpc"'],
      [{ jsonrpc: '1.0', id: 1, method: 'eth_chainId' }, '"jsonrpc"'],
      [{ jsonrpc: '2.0', id: 1, params: [] }, '"method"'],
      [{ jsonrpc: '2.0', id: 1, method: 42 }, '"method"'],
      [{ jsonrpc: '2.0', id: { a: 1 }, method: 'eth_chainId' }, '"id"'],
      [{ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: 'x' }, '"params"'],
    ]
    for (const [body, member] of cases) {
      const res = await s.rpc(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.json().error.code).toBe(-32600)
      expect(res.json().error.message).toContain(member)
    }
    await stillServes()
  })

  it('wrong parameter types for eth_getBlockByNumber: -32602 naming the parameter', async () => {
    const cases: [unknown[], string][] = [
      [[1, false], 'parameter 1'],
      [['0xzz', false], 'parameter 1'],
      [['latest', 'yes'], 'parameter 2'],
      [['latest'], 'two parameters'],
    ]
    for (const [params, text] of cases) {
      const res = await s.rpc(call('eth_getBlockByNumber', params))
      expect(res.status).toBe(200)
      expect(res.json().error.code).toBe(-32602)
      expect(res.json().error.message).toContain(text)
      expect(res.credits).toBe(5)
    }
    await stillServes()
  })

  it('empty batch: one -32600 error', async () => {
    const res = await s.rpc('[]')
    expect(res.status).toBe(400)
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid request: empty batch' },
    })
    await stillServes()
  })

  it('a batch over the cap: one error naming the cap', async () => {
    const res = await s.rpc(Array.from({ length: 6 }, (_, i) => call('eth_chainId', [], i)))
    expect(res.status).toBe(400)
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'batch too large: at most 5 calls per batch' },
    })
    await stillServes()
  })

  it('invalid entries inside a batch get their own errors; the valid ones are answered', async () => {
    const res = await s.rpc([call('eth_chainId', [], 1), { jsonrpc: '2.0', id: 2 }, 5])
    expect(res.status).toBe(200)
    const out = res.json()
    expect(out[0]).toEqual({ jsonrpc: '2.0', id: 1, result: '0x7a69' })
    expect(out[1].id).toBe(2)
    expect(out[1].error.code).toBe(-32600)
    expect(out[2]).toMatchObject({ id: null, error: { code: -32600 } })
  })

  it('a body over the size limit: 413', async () => {
    const res = await s.rpc(JSON.stringify(call('eth_call', [{ data: `0x${'00'.repeat(2000)}` }, 'latest'])))
    expect(res.status).toBe(413)
    expect(res.headers['x-credits-charged']).toBe('0')
    expect(res.json().error.message).toContain('at most 2048 bytes')
    await stillServes()
  })

  it('unknown key: 401 "invalid project id" exactly as Infura', async () => {
    for (const key of ['0123456789abcdef0123456789abcdef', 'not-a-key', 'ABCDEF0123456789ABCDEF0123456789']) {
      const res = await s.rpc(call('eth_chainId'), { key })
      expect(res.status).toBe(401)
      expect(res.text).toBe('invalid project id\n')
      expect(res.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(res.headers['www-authenticate']).toBe('Basic realm="Auth failure, invalid project id"')
    }
    await stillServes()
  })

  it('no key, or a trailing slash after the key: 401 "project id required in the url"', async () => {
    for (const path of [
      '/networks/devnet-a/v3',
      '/networks/devnet-a/v3/',
      `/networks/devnet-a/v3/${s.key.key}/`,
      `/networks/devnet-a/v3/${s.key.key}/extra`,
    ]) {
      const res = await raw(path, { body: JSON.stringify(call('eth_chainId')) })
      expect(res.status, path).toBe(401)
      expect(res.text).toBe('project id required in the url\n')
    }
    const hostForm = await raw(`/v3/${s.key.key}/`, {
      body: JSON.stringify(call('eth_chainId')),
      headers: { host: 'devnet-a.localhost' },
    })
    expect(hostForm.status).toBe(401)
    expect(hostForm.text).toBe('project id required in the url\n')
    await stillServes()
  })

  it('a key without the network: 401 with Infura text, charged as an input error', async () => {
    const { key } = await s.newKey('team', ['down'])
    const res = await s.rpc(call('eth_chainId'), { key: key.key })
    expect(res.status).toBe(401)
    expect(res.text).toBe('project ID does not have access to this network\n')
    expect(res.credits).toBe(5)
    await stillServes()
  })

  it('unknown host or network: 404 naming the known networks', async () => {
    const byHost = await raw(`/v3/${s.key.key}`, {
      body: JSON.stringify(call('eth_chainId')),
      headers: { host: 'nope.localhost' },
    })
    expect(byHost.status).toBe(404)
    expect(byHost.text).toContain('unknown network "nope.localhost"')
    expect(byHost.text).toContain('devnet-a (host devnet-a.localhost')
    const byPath = await raw(`/networks/nope/v3/${s.key.key}`, { body: JSON.stringify(call('eth_chainId')) })
    expect(byPath.status).toBe(404)
    expect(byPath.text).toContain('known networks are devnet-a')
    await stillServes()
  })

  it('a malformed %-escape in the network name: 404, and the process keeps serving', async () => {
    const res = await raw(`/networks/%E0%A4%A/v3/${s.key.key}`, { body: JSON.stringify(call('eth_chainId')) })
    expect(res.status).toBe(404)
    expect(res.text).toContain('unknown network "%E0%A4%A"')
    await stillServes()
  })

  it('GET (and other methods) on the endpoint: 405 with Allow: POST', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await raw(`/networks/devnet-a/v3/${s.key.key}`, { method })
      expect(res.status).toBe(405)
      expect(res.headers.allow).toContain('POST')
      expect(res.headers['x-credits-charged']).toBe('0')
    }
    await stillServes()
  })

  it('eth_subscribe over HTTP says to use the WebSocket endpoint', async () => {
    const res = await s.rpc(call('eth_subscribe', ['newHeads']))
    expect(res.json().error.code).toBe(-32601)
    expect(res.json().error.message).toContain('/ws/v3/')
  })

  it('Content-Type is not required (curl -d sends form-urlencoded)', async () => {
    const res = await raw(`/networks/devnet-a/v3/${s.key.key}`, {
      body: JSON.stringify(call('eth_chainId')),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(res.status).toBe(200)
    expect(JSON.parse(res.text).result).toBe('0x7a69')
    const none = await raw(`/networks/devnet-a/v3/${s.key.key}`, { body: JSON.stringify(call('eth_chainId')) })
    expect(JSON.parse(none.text).result).toBe('0x7a69')
  })

  it('a node that does not answer: a JSON-RPC error saying the network is unavailable, within the timeout, free', async () => {
    const started = Date.now()
    const res = await s.rpc(call('eth_blockNumber'), { network: 'hanging' })
    expect(Date.now() - started).toBeLessThan(5000)
    expect(res.status).toBe(504)
    expect(res.json()).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'network hanging is unavailable: no answer within 700 ms' },
    })
    expect(res.credits).toBe(0)
    await stillServes()
  })

  it('a node that refuses connections: 503 saying the network is unavailable, free', async () => {
    const res = await s.rpc(call('eth_blockNumber'), { network: 'down' })
    expect(res.status).toBe(503)
    expect(res.json().error).toEqual({
      code: -32603,
      message: 'network down is unavailable: the node refused the connection',
    })
    expect(res.credits).toBe(0)
    const batch = await s.rpc([call('eth_blockNumber', [], 1), call('eth_accounts', [], 2)], { network: 'down' })
    expect(batch.status).toBe(200)
    expect(batch.json()[0].error.message).toContain('network down is unavailable')
    expect(batch.json()[1].result).toEqual([])
    expect(batch.credits).toBe(80)
    await stillServes()
  })

  it('/healthz reports each network', async () => {
    const res = await raw('/healthz', { method: 'GET' })
    expect(res.status).toBe(200)
    const health = JSON.parse(res.text)
    expect({ status: health.status, networks: health.networks }).toEqual({
      status: 'degraded',
      networks: { 'devnet-a': 'up', hanging: 'down', down: 'down' },
    })
    // Nodes never reached have no confirmed chain id: out of rotation, with the reason.
    expect(health.upstreams.down).toMatchObject([
      {
        upstream: `http://127.0.0.1:${closedPort}`,
        state: 'down',
        cause: 'unverified',
        reason: expect.stringContaining('not reachable'),
      },
    ])
    expect(health.upstreams['devnet-a']).toMatchObject([
      // No token: the embedded chain's URL is not shown (docs/config.md, "operations.token").
      { upstream: 'embedded', state: 'healthy' },
    ])
  })
})
