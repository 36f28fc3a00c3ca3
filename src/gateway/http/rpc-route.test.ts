import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import type { Gateway } from '../pipeline/execute.ts'
import { outcome, type Outcome } from '../pipeline/types.ts'
import { createNetworkRegistry } from '../../networks/registry.ts'
import { createLogger, type Logger } from '../../observability/logger.ts'
import { acceptsGzip } from './accept-encoding.ts'
import { createRpcRoute } from './rpc-route.ts'
import { rpcTarget } from './rpc-target.ts'

const networks = createNetworkRegistry([
  { name: 'devnet-a', chainId: 1, embedded: { port: 0, blockTimeSeconds: 0 } },
  { name: 'devnet-b', chainId: 2, embedded: { port: 0, blockTimeSeconds: 0 } },
] as never)
const KEY = '0123456789abcdef0123456789abcdef'
const match = (url: string, host = 'devnet-a.localhost') => {
  const t = rpcTarget(url, host, 'http', networks)
  return t && { network: t.network?.name, label: t.label, key: t.key }
}

describe('matchRpcPath', () => {
  it('takes the network from the Host on /v3/<key>', () => {
    expect(match(`/v3/${KEY}`)).toEqual({ network: 'devnet-a', label: 'devnet-a.localhost', key: KEY })
    expect(match(`/v3/${KEY}?x=1`)).toEqual({ network: 'devnet-a', label: 'devnet-a.localhost', key: KEY })
    expect(match(`/v3/${KEY}`, 'devnet-b.localhost:8545')).toMatchObject({ network: 'devnet-b', key: KEY })
    expect(match(`/v3/${KEY}`, 'elsewhere.example')).toMatchObject({ network: undefined, label: 'elsewhere.example' })
  })

  it('takes the network from the path on /networks/<name>/v3/<key>', () => {
    expect(match(`/networks/devnet-b/v3/${KEY}`)).toEqual({ network: 'devnet-b', label: 'devnet-b', key: KEY })
    expect(match(`/networks/devnet-b/v3/${KEY}?a=b`)).toEqual({ network: 'devnet-b', label: 'devnet-b', key: KEY })
    expect(match(`/networks/devnet-%62/v3/${KEY}`)).toMatchObject({ network: 'devnet-b', label: 'devnet-b' })
    // malformed escape
    expect(match(`/networks/%E0%A4%A/v3/${KEY}`)).toMatchObject({ network: undefined, label: '%E0%A4%A' })
    expect(match(`/networks/nope/v3/${KEY}`)).toMatchObject({ network: undefined, label: 'nope', key: KEY })
  })

  it('has no key when it is missing or followed by more path (401 "project id required")', () => {
    for (const url of [
      '/v3',
      '/v3/',
      `/v3/${KEY}/`,
      `/v3/${KEY}/more`,
      '/v3?x=/y',
      '/networks/devnet-a/v3',
      '/networks/devnet-a/v3/',
      `/networks/devnet-a/v3/${KEY}/`,
    ])
      expect(match(url), url).toMatchObject({ key: undefined })
    expect(match('/v3?k=/')?.network).toBe('devnet-a')
  })

  it('is not an RPC path otherwise', () => {
    for (const url of [
      '/',
      '/v3x',
      `/v33/${KEY}`,
      '/healthz',
      '/networks/',
      '/networks/devnet-a',
      '/networks/devnet-a/v4/x',
      `/networks/devnet-a/v3x/${KEY}`,
      '/networks?x=/v3/',
    ])
      expect(match(url), url).toBeUndefined()
  })
})

/** The route over a stand-in gateway whose handleHttp is given (no request lines). */
const routeOver = (handleHttp: unknown, logger: Logger) =>
  createRpcRoute({
    gateway: { handleHttp } as unknown as Gateway,
    networks,
    maxBodyBytes: 1000,
    logRequests: false,
    requestLines: { write() {}, flush() {} },
    logger,
  })

describe('rpc route faults', () => {
  /** A real server around the route, with a gateway that misbehaves in the given way. */
  async function serve(handleHttp: () => Promise<Outcome>) {
    const logged: string[] = []
    const logger = createLogger('info', { write: (l: string) => void logged.push(l) })
    const route = routeOver(handleHttp, logger)
    const server = createServer((req, res) => {
      if (!route(req, res)) res.writeHead(404).end()
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/networks/devnet-a/v3/${KEY}`
    return { url, logged, close: () => new Promise((r) => server.close(r)) }
  }
  const post = async (url: string) => {
    const res = await request(url, { method: 'POST', body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}' })
    return { status: res.statusCode, text: await res.body.text() }
  }

  it('a failing gateway gets a JSON-RPC internal error (500) and a logged stack; the server goes on', async () => {
    const s = await serve(() => Promise.reject(new Error('boom')))
    for (let i = 0; i < 2; i++)
      expect(await post(s.url)).toEqual({
        status: 500,
        text: '{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"Internal error"}}',
      })
    expect(s.logged.join('')).toContain('boom')
    await s.close()
  })

  it('an answer that cannot be written (a body that is not bytes) also ends as a 500, not a crash', async () => {
    const bad = outcome({
      code: undefined,
      body: 42 as never,
      ids: undefined,
      batch: false,
      detail: undefined,
      credits: 0,
      keyId: undefined,
      method: 'eth_chainId',
      calls: 1,
    })
    const s = await serve(() => Promise.resolve(bad))
    expect((await post(s.url)).status).toBe(500)
    expect(s.logged.join('')).toContain('gateway request failed')
    await s.close()
  })
})

describe('rpc route targets', () => {
  it('reads each request target (the last one is kept: the same URL again, another, one not RPC)', async () => {
    const seen: string[] = []
    const handleHttp = (r: { networkLabel: string; key: string | undefined }) => {
      seen.push(`${r.networkLabel} ${r.key}`)
      return outcome({
        code: undefined,
        body: '{}',
        ids: undefined,
        batch: false,
        detail: undefined,
        credits: 0,
        keyId: undefined,
        method: 'm',
        calls: 1,
      })
    }
    const route = routeOver(handleHttp, createLogger('silent'))
    const server = createServer((req, res) => {
      if (!route(req, res)) res.writeHead(404).end()
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const paths = [`/networks/devnet-a/v3/${KEY}`, `/networks/devnet-a/v3/${KEY}`, `/networks/devnet-b/v3/x`, '/x']
    const statuses: number[] = []
    for (const path of [...paths, '/x', `/v3/${KEY}`, paths[0]!]) {
      const res = await request(`${origin}${path}`, { method: 'POST', body: '{}' })
      statuses.push(res.statusCode)
      await res.body.dump()
    }
    expect(statuses).toEqual([200, 200, 200, 404, 404, 200, 200])
    expect(seen).toEqual([
      `devnet-a ${KEY}`,
      `devnet-a ${KEY}`,
      'devnet-b x',
      `127.0.0.1:${(server.address() as AddressInfo).port} ${KEY}`,
      `devnet-a ${KEY}`,
    ])
    await new Promise((r) => server.close(r))
  })
})

describe('acceptsGzip', () => {
  it('reads Accept-Encoding as RFC 9110 does for gzip', () => {
    for (const yes of [
      'gzip',
      'GZIP',
      'br, gzip, deflate',
      'gzip;q=0.5',
      '*',
      'identity, *;q=0.1',
      ' deflate ,gzip ; q=1',
    ])
      expect(acceptsGzip(yes), yes).toBe(true)
    for (const no of [undefined, '', 'identity', 'br', 'gzip;q=0', 'gzip; q=0.0', 'x-gzip2'])
      expect(acceptsGzip(no), String(no)).toBe(false)
  })
})
