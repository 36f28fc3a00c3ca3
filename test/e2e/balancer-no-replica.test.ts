/**
 * deploy/haproxy/haproxy.cfg when no replica is ready (the network's only node down: every replica's /readyz
 * answers 503): clients get the shipped errorfile, a JSON-RPC error with chaingate's own code for an unavailable
 * network, not HAProxy's HTML page. Real HAProxy (./helpers/haproxy.ts) in front of two stand-in replicas that are
 * alive but not ready, then of nothing at all (both stopped).
 */
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { errors } from '../../src/errors/index.ts'
import { HAPROXY_CFG, startHaproxy, type Haproxy } from './helpers/haproxy.ts'
import { ROOT, waitFor } from './helpers/process.ts'
import { describeWithPrograms } from '../support/programs.ts'

const ERRORFILE = join(ROOT, 'deploy', 'haproxy', '503-no-replica.http')
const CALL = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'eth_blockNumber', params: [] })

/** A replica that is alive but not ready: /readyz 503 (as chaingate answers with its network's nodes down). */
function notReadyReplica(): Promise<{ server: Server; address: string; readyzHits: () => number }> {
  let hits = 0
  const server = createServer((req, res) => {
    if (req.url === '/readyz') hits++
    res.writeHead(req.url === '/readyz' ? 503 : 200, { 'content-type': 'application/json' }).end('{}')
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      resolve({ server, address: `127.0.0.1:${port}`, readyzHits: () => hits })
    }),
  )
}

async function post(url: string) {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: CALL })
  return { status: res.statusCode, headers: res.headers, body: await res.body.text() }
}

it('the errorfile is a whole HTTP answer whose length header matches its JSON body', () => {
  expect(readFileSync(HAPROXY_CFG, 'utf8')).toMatch(/^\s*errorfile 503 503-no-replica\.http$/m)
  const text = readFileSync(ERRORFILE, 'utf8')
  const [head, body] = text.split('\r\n\r\n') as [string, string]
  expect(head.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable')
  expect(head).toContain(`content-length: ${Buffer.byteLength(body)}`)
  const answer = JSON.parse(body)
  // The code chaingate answers itself when a network's nodes are all unreachable.
  expect(answer.error.code).toBe(errors.upstreamUnavailable('mainnet', 'x').rpcCode)
})

describeWithPrograms(['haproxy'], 'HAProxy with no replica ready answers a JSON-RPC error', () => {
  const replicas: Awaited<ReturnType<typeof notReadyReplica>>[] = []
  let lb: Haproxy

  beforeAll(async () => {
    replicas.push(await notReadyReplica(), await notReadyReplica())
    lb = await startHaproxy([replicas[0]!.address, replicas[1]!.address])
  }, 30_000)

  afterAll(async () => {
    await lb?.stop()
    for (const r of replicas) r.server.close()
  })

  it('both replicas out after their failed checks: 503 with the JSON-RPC body', async () => {
    // fall 2 at 500 ms: both are taken out within about a second of their first check.
    await waitFor(() => replicas.every((r) => r.readyzHits() >= 2), 10_000, 'two failed checks each')
    await waitFor(async () => (await post(lb.url)).status === 503, 5_000, 'a 503 from the balancer')
    const res = await post(`${lb.url}/networks/mainnet/v3/somekey`)
    expect(res.status).toBe(503)
    expect(res.headers['content-type']).toBe('application/json')
    expect(res.headers['retry-after']).toBe('1')
    expect(JSON.parse(res.body)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32603, message: expect.stringContaining('no gateway replica is ready') },
    })
  }, 30_000)

  it('both replicas gone (connections refused): the same answer', async () => {
    for (const r of replicas) {
      r.server.closeAllConnections()
      await new Promise((resolve) => r.server.close(resolve))
    }
    const res = await post(lb.url)
    expect(res.status).toBe(503)
    expect(JSON.parse(res.body).error.code).toBe(-32603)
    expect(res.body).not.toContain('<html>')
  }, 30_000)
})
