/**
 * Overload (docs/errors.md, OVERLOADED; docs/config.md, gateway.maxInFlight and upstreamTimeoutMs): past
 * `gateway.maxInFlight` calls in flight the gateway answers at once with a 503 and `retry-after`, free, instead of
 * queuing; the calls it took finish; and a call's deadline counts the time it spent in the process before it was
 * sent (here: a body that arrives slowly), so no call waits longer than the deadline in all. Real server, a fake
 * slow node.
 */
import { connect } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { startFakeNode, type FakeNode, type FakeReply, type FakeRequest } from '../support/fake-node.ts'
import { call, startTestServer, type TestServer } from './helpers/server.ts'

const CHAIN = 31341
let node: FakeNode | undefined
let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  await node?.close()
  server = undefined
  node = undefined
})

/** eth_getBalance is answered after `ms` (never, for Infinity); everything else at once. */
const slowBalances =
  (ms: number) =>
  (req: FakeRequest): FakeReply | undefined =>
    req.body?.method === 'eth_getBalance'
      ? {
          raw: (res) => {
            if (ms === Number.POSITIVE_INFINITY) return
            setTimeout(() => {
              res.writeHead(200, { 'content-type': 'application/json' })
              res.end(JSON.stringify({ jsonrpc: '2.0', id: req.body.id, result: '0x1' }))
            }, ms)
          },
        }
      : undefined

async function start(script: (req: FakeRequest) => FakeReply | undefined, gateway: object) {
  node = await startFakeNode(`0x${CHAIN.toString(16)}`, script)
  server = await startTestServer({
    networks: [{ name: 'remote', chainId: CHAIN, upstreams: [{ url: node.url }] }],
    gateway,
  })
  return server
}

let n = 0
const balance = (s: TestServer) =>
  s.rpc(call('eth_getBalance', [`0x${(7000 + ++n).toString(16).padStart(40, '0')}`, 'latest'], n), {
    network: 'remote',
  })

describe('overload', () => {
  it('answers calls past gateway.maxInFlight at once with OVERLOADED (503, retry-after), free; the rest finish', async () => {
    const s = await start(slowBalances(600), { maxInFlight: 4, upstreamTimeoutMs: 5000 })
    const t0 = performance.now()
    const timed = Array.from({ length: 12 }, () => balance(s).then((r) => ({ r, ms: performance.now() - t0 })))
    const all = await Promise.all(timed)
    const ok = all.filter((a) => a.r.status === 200)
    const refused = all.filter((a) => a.r.status === 503)
    expect(ok).toHaveLength(4)
    expect(refused).toHaveLength(8)
    // Answered while the accepted calls still wait for the node (relative: a loaded machine delays both).
    const firstAccepted = Math.min(...ok.map((a) => a.ms))
    for (const { r, ms } of refused) {
      expect(r.json()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32005, message: 'server overloaded: too many calls in flight, retry shortly' },
      })
      expect(r.headers['retry-after']).toBe('1')
      expect(r.credits).toBe(0)
      expect(ms).toBeLessThan(firstAccepted)
    }
    for (const { r, ms } of ok) {
      expect(r.json().result).toBe('0x1')
      expect(r.credits).toBeGreaterThan(0)
      expect(ms).toBeGreaterThanOrEqual(550)
    }
    // The four are done: the process takes calls again.
    expect((await balance(s)).status).toBe(200)
    expect(s.logText()).toContain('overloaded: calls refused')
  })

  it('counts the time a call spent in the process (a slow body) against upstreamTimeoutMs', async () => {
    const s = await start(slowBalances(Number.POSITIVE_INFINITY), { upstreamTimeoutMs: 1000 })
    const url = new URL(s.endpoint('remote'))
    const body = JSON.stringify(call('eth_getBalance', [`0x${'9'.repeat(40)}`, 'latest'], 7))
    const socket = connect(Number(url.port), url.hostname)
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let text = ''
    socket.on('data', (c: Buffer) => (text += c.toString()))
    const answered = new Promise<number>((resolve) => socket.on('data', () => resolve(performance.now())))
    const t0 = performance.now()
    socket.write(
      `POST ${url.pathname} HTTP/1.1\r\nHost: ${url.host}\r\ncontent-type: application/json\r\n` +
        `content-length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    )
    await new Promise((r) => setTimeout(r, 600))
    socket.write(body.slice(10))
    const at = await answered
    socket.destroy()
    expect(text).toMatch(/^HTTP\/1\.1 504/)
    expect(text).toMatch(/no answer within \d+ ms/)
    // Without the time before the send counted, the node would have had 1000 ms after the body: ~1600 ms in all.
    expect(at - t0).toBeLessThan(1350)
    expect(at - t0).toBeGreaterThanOrEqual(950)
  })
})
