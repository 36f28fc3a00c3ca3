/**
 * What an outside audit broke on the gateway (issue 8: slow clients, WebSocket backpressure, charges beyond the
 * balance, non-RPC paths, operator endpoints), each against the real server with real clients. A fake node only
 * where a real one cannot be observed that way (counting /healthz probes).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { connect as tcpConnect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { request } from 'undici'
import { startTestServer, call, type TestServer } from './helpers/server.ts'
import { rotateKeySecret, setSecurityFlags } from '../../src/keys/security/repository.ts'

const TOKEN = 'operations-token-0123456789'
let s: TestServer

beforeAll(async () => {
  s = await startTestServer({
    plans: {
      hundred: { creditsPerDay: 100, creditsPerSecond: 100_000, maxKeys: null },
      tiny: { creditsPerDay: 300, creditsPerSecond: 100_000, maxKeys: null },
    },
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
    gateway: {
      requestTimeoutMs: 1000,
      headersTimeoutMs: 1000,
      keepAliveTimeoutMs: 500,
      maxWsBufferedBytes: 64 * 1024,
      maxSubscriptionsPerConnection: 2,
      operations: { token: TOKEN },
    },
  })
})
afterAll(async () => s?.stop())

const port = () => Number(new URL(s.url).port)
const wsUrl = (key = s.key.key) => `${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`
const anvil = (method: string, params: unknown[]) =>
  fetch(s.app.upstreamUrls.get('devnet-a')!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(call(method, params)),
  })

/**
 * Opens a raw TCP connection, writes `parts` with `gapMs` between them, and resolves with what came back when the
 * server closed it.
 */
function slowClient(parts: string[], gapMs: number): Promise<{ text: string; ms: number }> {
  return new Promise((resolve) => {
    const started = Date.now()
    const socket = tcpConnect(port(), '127.0.0.1')
    let text = ''
    let i = 0
    const timer = setInterval(() => {
      if (i < parts.length && !socket.destroyed) socket.write(parts[i++]!)
    }, gapMs)
    socket.on('data', (d) => (text += d.toString()))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ text, ms: Date.now() - started })
    })
  })
}

describe('slow clients (gateway.requestTimeoutMs, headersTimeoutMs)', () => {
  it('a body that trickles in is cut off after the request timeout', async () => {
    const head =
      `POST /networks/devnet-a/v3/${s.key.key} HTTP/1.1\r\nhost: x\r\n` +
      'content-type: application/json\r\ncontent-length: 1000\r\n\r\n'
    const out = await slowClient([head, ...Array.from({ length: 100 }, () => ' ')], 200)
    expect(out.ms).toBeLessThan(5000)
    expect(out.text).toMatch(/^HTTP\/1.1 408/)
  })

  it('headers sent a line at a time (slowloris) are cut off after the headers timeout', async () => {
    const lines = [`POST /v3/${s.key.key} HTTP/1.1\r\n`, ...Array.from({ length: 100 }, (_, i) => `x-slow-${i}: a\r\n`)]
    const out = await slowClient(lines, 200)
    expect(out.ms).toBeLessThan(5000)
    expect(out.text).toMatch(/^HTTP\/1.1 408/)
  })
})

describe('key security is part of the gateway', () => {
  it('startApp without any security option still refuses a key that requires its secret (fail closed)', async () => {
    // This server was started with no `security` option at all.
    const { key } = await s.newKey('team')
    const secret = await rotateKeySecret(s.parts.database.db, key.id, Date.now())
    await setSecurityFlags(s.parts.database.db, key.id, { requireSecret: true }, Date.now())
    await s.parts.keySnapshot.reload()
    const refused = await s.rpc(call('eth_chainId'), { key: key.key })
    expect(refused.status).toBe(401)
    expect(refused.text).toBe('invalid project id or project secret')
    const ok = await s.rpc(call('eth_chainId'), {
      key: key.key,
      headers: { authorization: `Basic ${Buffer.from(`:${secret}`).toString('base64')}` },
    })
    expect(ok.status).toBe(200)
  })
})

describe('paths that are not RPC endpoints', () => {
  const expectDocumented404 = (res: { statusCode: number; headers: Record<string, unknown> }, text: string) => {
    expect(res.statusCode).toBe(404)
    expect(res.headers['x-credits-charged']).toBe('0')
    expect(res.headers['content-type']).toContain('text/plain')
    expect(text).toContain('no JSON-RPC endpoint here')
  }

  it('a POST to a WebSocket path, dot segments and unknown paths answer the documented 404 with x-credits-charged', async () => {
    for (const path of [
      `/ws/v3/${s.key.key}`,
      `/networks/devnet-a/ws/v3/${s.key.key}`,
      `/networks/devnet-a/../v3/${s.key.key}`,
      '/v3x',
      '/nothing-here',
    ]) {
      const res = await request(`${s.url}${path}`, { method: 'POST', body: JSON.stringify(call('eth_chainId')) })
      expectDocumented404(res, await res.body.text())
    }
  })

  it('an odd verb on an RPC path answers 405 with Allow', async () => {
    const res = await request(`${s.url}/networks/devnet-a/v3/${s.key.key}`, { method: 'PROPFIND' })
    await res.body.text()
    expect(res.statusCode).toBe(405)
    expect(res.headers.allow).toContain('POST')
    expect(res.headers['x-credits-charged']).toBe('0')
  })
})

describe('charges never go beyond the balance', () => {
  it('after the balance runs out, input errors cost what was left, then nothing', async () => {
    const { account, key } = await s.newKey('hundred')
    let total = (await s.rpc(call('eth_blockNumber'), { key: key.key })).credits // 80
    const fees: number[] = []
    for (let i = 0; i < 8; i++) fees.push((await s.rpc('{not json', { key: key.key })).credits)
    total += fees.reduce((a, b) => a + b, 0)
    expect(fees).toEqual([5, 5, 5, 5, 0, 0, 0, 0])
    expect(total).toBe(100)
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(100)
    expect((await s.rpc(call('eth_blockNumber'), { key: key.key })).status).toBe(402)
  })

  it('subscription events stop exactly at the balance', async () => {
    const { account, key } = await s.newKey('tiny')
    const ws = new WebSocket(wsUrl(key.key))
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)))
    await new Promise((r) => ws.once('open', r))
    ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'])))
    await new Promise((r) => ws.once('message', r))
    await anvil('anvil_mine', ['0x8']) // 5 + 8 × 50 would be 405 on a 300 balance
    expect(await closed).toBe(1008)
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(300)
  })
})

describe('WebSocket calls in flight when the balance runs out', () => {
  it('are not charged when their answers can no longer be delivered', async () => {
    const { account, key } = await s.newKey('tiny') // 300 credits
    const ws = new WebSocket(wsUrl(key.key))
    await new Promise((r) => ws.once('open', r))
    const received: any[] = []
    ws.on('message', (d) => received.push(JSON.parse(d.toString())))
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)))
    // Sent together: three are admitted (240) and go to the node; the fourth finds the balance short (402) and
    // closes the account's sockets before the node answers the three.
    for (let id = 1; id <= 6; id++) ws.send(JSON.stringify(call('eth_getBlockByNumber', ['latest', false], id)))
    expect(await closed).toBe(1008)
    await new Promise((r) => setTimeout(r, 300)) // the three answers arrive from the node after the close
    const answered = received.filter((m) => m.result !== undefined).length
    expect(answered).toBeLessThan(3) // the case this test is about: admitted calls that were never delivered
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(answered * 80)
    expect(received.some((m) => m.error?.event === -33000)).toBe(true)
  })
})

describe('WebSocket backpressure', () => {
  it('subscriptions per connection are capped with a clear JSON-RPC error', async () => {
    const ws = new WebSocket(wsUrl())
    await new Promise((r) => ws.once('open', r))
    const answers: any[] = []
    ws.on('message', (d) => answers.push(JSON.parse(d.toString())))
    for (let id = 1; id <= 3; id++) ws.send(JSON.stringify(call('eth_subscribe', ['newHeads'], id)))
    while (answers.length < 3) await new Promise((r) => setTimeout(r, 20))
    const third = answers.find((a) => a.id === 3)
    expect(third.error).toEqual({
      code: -32005,
      message: expect.stringContaining('at most 2 subscriptions per connection'),
    })
    expect(answers.filter((a) => typeof a.result === 'string')).toHaveLength(2)
    ws.close()
  })

  it('a client that stops reading is closed with 1008, and only what was written to it is charged', async () => {
    // 512 KiB of code: each eth_getCode answer is ~1 MiB, so unread answers pile up fast.
    const address = '0x00000000000000000000000000000000000c0de1'
    await anvil('anvil_setCode', [address, `0x${'ab'.repeat(512 * 1024)}`])
    const { account, key } = await s.newKey('team')
    const ws = new WebSocket(wsUrl(key.key), { maxPayload: 64 * 1024 * 1024 })
    await new Promise((r) => ws.once('open', r))
    const received: any[] = []
    ws.on('message', (d) => received.push(JSON.parse(d.toString())))
    const closed = new Promise<{ code: number; reason: string }>((r) =>
      ws.on('close', (code, reason) => r({ code, reason: reason.toString() })),
    )
    ;(ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause()
    const calls = 40
    for (let id = 1; id <= calls; id++) ws.send(JSON.stringify(call('eth_getCode', [address, 'latest'], id)))
    // Wait until the gateway has answered (or dropped) every call, then read again.
    const before = Date.now()
    let used = -1
    for (;;) {
      await new Promise((r) => setTimeout(r, 300))
      const now = s.parts.limits.usedToday(account.id, Date.now())
      if (now === used || Date.now() - before > 15_000) break
      used = now
    }
    ;(ws as unknown as { _socket: { resume(): void } })._socket.resume()
    const c = await closed
    expect(c).toEqual({ code: 1008, reason: 'too much unread data: the client is not reading its messages' })
    expect(received.length).toBeGreaterThan(0)
    expect(received.length).toBeLessThan(calls)
    // Every call reserved its price when admitted; those still at the node settle when they answer. Once all
    // have, what stays charged is exactly what the client received.
    const price = s.parts.costs.method('devnet-a', 'eth_getCode')
    const deadline = Date.now() + 20_000
    while (s.parts.limits.usedToday(account.id, Date.now()) !== received.length * price && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 100))
    expect(s.parts.limits.usedToday(account.id, Date.now())).toBe(received.length * price)
  }, 60_000)
})

describe('operator endpoints (gateway.operations)', () => {
  it('/metrics and /healthz need the bearer token when one is set', async () => {
    for (const path of ['/metrics', '/healthz']) {
      const refused = await request(`${s.url}${path}`)
      expect(refused.statusCode, path).toBe(401)
      expect(await refused.body.text()).toContain('unauthorized')
      const wrong = await request(`${s.url}${path}`, { headers: { authorization: 'Bearer nope' } })
      await wrong.body.text()
      expect(wrong.statusCode, path).toBe(401)
      const ok = await request(`${s.url}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } })
      await ok.body.text()
      expect(ok.statusCode, path).toBe(200)
    }
  })

  describe('with a separate listener and a node that counts probes', () => {
    let node: Server
    let probes = 0
    let t: TestServer
    beforeAll(async () => {
      node = createServer((req, res) => {
        let body = ''
        req.on('data', (d) => (body += d))
        req.on('end', () => {
          if (body.includes('eth_chainId')) probes++
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":"0x1"}')
        })
      })
      await new Promise<void>((r) => node.listen(0, '127.0.0.1', r))
      t = await startTestServer({
        networks: [
          {
            name: 'fake',
            chainId: 1,
            upstreams: [{ url: `http://127.0.0.1:${(node.address() as AddressInfo).port}` }],
          },
        ],
        gateway: { operations: { listen: { host: '127.0.0.1', port: 0 }, healthCacheMs: 60_000 } },
      })
    })
    afterAll(async () => {
      await t?.stop()
      await new Promise((r) => node.close(r))
    })

    it('/healthz and /metrics move to the operations listener, and /healthz reuses its probe', async () => {
      expect(t.app.operationsUrl).toBeDefined()
      for (const path of ['/metrics', '/healthz']) {
        const onGateway = await request(`${t.url}${path}`)
        await onGateway.body.text()
        expect(onGateway.statusCode, path).toBe(404)
      }
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => request(`${t.app.operationsUrl}/healthz`).then((r) => r.body.json())),
      )
      for (const a of answers)
        expect(a).toMatchObject({
          status: 'ok',
          networks: { fake: 'up' },
          upstreams: { fake: [{ upstream: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), state: 'healthy' }] },
        })
      expect(probes).toBe(2) // the start-up chain id check, then one probe shared by the five /healthz
      const metrics = await request(`${t.app.operationsUrl}/metrics`)
      expect(await metrics.body.text()).toContain('chaingate_requests_total')
    })
  })
})
