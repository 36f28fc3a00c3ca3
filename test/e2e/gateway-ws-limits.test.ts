/**
 * Issue 26 item 5: WebSocket resources per key, per client address and per network are capped (docs/config.md,
 * docs/errors.md) — connections per key and per address at the upgrade (429), subscriptions per key across its
 * connections and distinct node subscriptions per network at eth_subscribe (-32005) — and every count is given back
 * when a connection ends, cleanly or not. Real gateway, real anvil, real `ws` clients (one in a child process that is
 * killed).
 */
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { startTestServer, call, type TestServer } from './helpers/server.ts'
import { waitFor } from './helpers/ws-subscribers.ts'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer({
    plans: {
      roomy: { creditsPerDay: 10_000_000, creditsPerSecond: 100_000, maxKeys: null, maxSubscriptionsPerKey: 5 },
      many: { creditsPerDay: 10_000_000, creditsPerSecond: 100_000, maxKeys: null, maxWsConnectionsPerKey: 4 },
    },
    networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
    gateway: {
      // 127.0.0.1 is a trusted proxy here: its X-Forwarded-For names the client. Other loopback addresses
      // (127.0.0.2, …) are clients themselves.
      trustProxy: '127.0.0.1',
      maxWsConnectionsPerKey: 3,
      maxWsConnectionsPerAddress: 4,
      maxSubscriptionsPerConnection: 3,
      maxSubscriptionsPerKey: 4,
      maxUpstreamSubscriptionsPerNetwork: 6,
    },
  })
})
afterAll(async () => s?.stop())

const wsUrl = (key: string) => `${s.url.replace('http', 'ws')}/networks/devnet-a/ws/v3/${key}`
const hub = () => s.parts.hubs.get('devnet-a')!
let clients = 0
/** A client address of its own per test (a forwarded one, through the trusted proxy 127.0.0.1). */
const newAddress = () => `198.51.100.${++clients}`

type Client = ReturnType<typeof clientOf>

/** Opens a connection; resolves with it, or with the refusal's status and body. */
function attempt(
  key: string,
  from: { forwardedFor?: string; localAddress?: string },
): Promise<{ client: Client } | { status: number; body: string; credits: string | undefined }> {
  const ws = new WebSocket(wsUrl(key), {
    ...(from.forwardedFor ? { headers: { 'x-forwarded-for': from.forwardedFor } } : {}),
    ...(from.localAddress ? { localAddress: from.localAddress } : {}),
  })
  const inbox: any[] = []
  ws.on('message', (d) => inbox.push(JSON.parse(d.toString())))
  const closed = new Promise<void>((r) => ws.on('close', () => r()))
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve({ client: clientOf(ws, inbox, closed) }))
    ws.once('unexpected-response', (_req, res) => {
      let body = ''
      res.on('data', (c: Buffer) => (body += c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body, credits: res.headers['x-credits-charged'] as string }),
      )
    })
    ws.once('error', (e) => {
      if (!/Unexpected server response/.test(e.message)) reject(e)
    })
  })
}

let nextId = 1
function clientOf(ws: WebSocket, inbox: any[], closed: Promise<void>) {
  return {
    ws,
    closed,
    async ask(method: string, params: unknown[]) {
      const id = nextId++
      ws.send(JSON.stringify(call(method, params, id)))
      return waitFor(() => inbox.find((m) => m.id === id), 10_000)
    },
  }
}

async function open(key: string, from: { forwardedFor?: string; localAddress?: string }) {
  const r = await attempt(key, from)
  if (!('client' in r)) throw new Error(`refused: ${r.status} ${r.body}`)
  return r.client
}

/** A logs filter of its own (a distinct node subscription): an address nobody else watches. */
let filters = 0
const logsFilter = () => ['logs', { address: `0x${(++filters).toString(16).padStart(40, '0')}` }]

const refusal = (message: string) => ({
  status: 429,
  credits: '0',
  body: JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32005, message } }),
})

/** Polls an async probe until it gives a value (not undefined or false). */
async function eventually<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await probe()
    if (v !== undefined && v !== false) return v
    if (Date.now() > deadline) throw new Error('timed out waiting')
    await new Promise((r) => setTimeout(r, 50))
  }
}

/** A connection once the caps admit it (a slot freed by a close is given back when its socket has closed). */
const admitted = (key: string, from: { forwardedFor?: string }) =>
  eventually(async () => {
    const r = await attempt(key, from)
    return 'client' in r ? r.client : undefined
  })

async function closeAll(cs: Client[]) {
  for (const c of cs) c.ws.close()
  await Promise.all(cs.map((c) => c.closed))
}

describe('connections per key (gateway.maxWsConnectionsPerKey, plans.*.maxWsConnectionsPerKey)', () => {
  it('the 4th connection of a key is refused at the upgrade with 429; other keys are not; a close frees a slot', async () => {
    const { key } = await s.newKey('team')
    const { key: other } = await s.newKey('team')
    // Two client addresses, so the per-address cap (4) is not what refuses.
    const a = { forwardedFor: newAddress() }
    const b = { forwardedFor: newAddress() }
    const held = [await open(key.key, a), await open(key.key, a), await open(key.key, b)]
    expect(await attempt(key.key, b)).toEqual(
      refusal('limit exceeded: at most 3 WebSocket connections per API key (close one first)'),
    )
    const another = await open(other.key, b)
    held[0]!.ws.close()
    await held[0]!.closed
    const again = await admitted(key.key, b)
    await closeAll([...held.slice(1), another, again])
  })

  it("a plan's maxWsConnectionsPerKey wins over the gateway's", async () => {
    const { key } = await s.newKey('many')
    const from = [newAddress(), newAddress()].map((forwardedFor) => ({ forwardedFor }))
    const held = [await open(key.key, from[0]!), await open(key.key, from[0]!), await open(key.key, from[1]!)]
    held.push(await open(key.key, from[1]!))
    expect(await attempt(key.key, from[1]!)).toEqual(
      refusal('limit exceeded: at most 4 WebSocket connections per API key (close one first)'),
    )
    await closeAll(held)
  })
})

describe('connections per client address (gateway.maxWsConnectionsPerAddress)', () => {
  it('the 5th connection from one address, over any keys, is refused; another address is not', async () => {
    const keys = await Promise.all([1, 2, 3].map(() => s.newKey('team')))
    const from = { forwardedFor: newAddress() }
    const held = [
      await open(keys[0]!.key.key, from),
      await open(keys[0]!.key.key, from),
      await open(keys[1]!.key.key, from),
      await open(keys[1]!.key.key, from),
    ]
    expect(await attempt(keys[2]!.key.key, from)).toEqual(
      refusal('limit exceeded: at most 4 WebSocket connections per client address (close one first)'),
    )
    // The proxy's own address is not the client's: another forwarded client is admitted through it.
    held.push(await open(keys[2]!.key.key, { forwardedFor: newAddress() }))
    await closeAll(held)
  })

  it('a peer that is not a trusted proxy is counted by its own address, whatever X-Forwarded-For claims', async () => {
    const { key } = await s.newKey('many')
    const { key: key2 } = await s.newKey('many')
    const held: Client[] = []
    for (let i = 0; i < 4; i++)
      held.push(await open(i < 2 ? key.key : key2.key, { localAddress: '127.0.0.2', forwardedFor: newAddress() }))
    expect(await attempt(key2.key, { localAddress: '127.0.0.2', forwardedFor: newAddress() })).toEqual(
      refusal('limit exceeded: at most 4 WebSocket connections per client address (close one first)'),
    )
    await closeAll(held)
  })
})

describe('subscriptions per key across its connections (gateway.maxSubscriptionsPerKey)', () => {
  it('the 5th subscription of a key over two connections answers -32005; an unsubscribe or a close frees slots', async () => {
    const { key } = await s.newKey('team')
    const from = { forwardedFor: newAddress() }
    const [a, b] = [await open(key.key, from), await open(key.key, from)]
    const ids: string[] = []
    for (const c of [a, a, a, b]) ids.push((await c!.ask('eth_subscribe', ['newHeads'])).result)
    expect(ids.every((id) => /^0x[0-9a-f]{32}$/.test(id))).toBe(true)
    expect((await b!.ask('eth_subscribe', ['newHeads'])).error).toEqual({
      code: -32005,
      message: 'limit exceeded: at most 4 subscriptions per API key across its connections (unsubscribe first)',
    })
    // Another key is not held back by this one.
    const { key: other } = await s.newKey('team')
    const c = await open(other.key, from)
    expect((await c.ask('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/)
    expect((await a!.ask('eth_unsubscribe', [ids[0]])).result).toBe(true)
    expect((await b!.ask('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/)
    // An abrupt end (no close frame) gives back the two subscriptions `a` still held.
    a!.ws.terminate()
    await a!.closed
    // (b holds 2 of its 3; one more fits the connection's cap once a's two are back.)
    expect(await eventually(async () => (await b!.ask('eth_subscribe', ['newHeads'])).result)).toMatch(/^0x/)
    await closeAll([b!, c])
  })

  it("a plan's maxSubscriptionsPerKey wins over the gateway's", async () => {
    const { key } = await s.newKey('roomy')
    const from = { forwardedFor: newAddress() }
    const [a, b] = [await open(key.key, from), await open(key.key, from)]
    for (const c of [a, a, a, b, b]) expect((await c!.ask('eth_subscribe', ['newHeads'])).result).toMatch(/^0x/)
    expect((await b!.ask('eth_subscribe', ['newHeads'])).error.message).toBe(
      'limit exceeded: at most 5 subscriptions per API key across its connections (unsubscribe first)',
    )
    await closeAll([a!, b!])
  })
})

describe('distinct node subscriptions per network (gateway.maxUpstreamSubscriptionsPerNetwork)', () => {
  it('a 7th distinct filter answers -32005 while identical ones still share; one released frees room', async () => {
    await waitFor(() => hub().size === 0, 5000)
    const keys = await Promise.all([1, 2, 3].map(() => s.newKey('team')))
    const from = { forwardedFor: newAddress() }
    const [a, b, c] = [await open(keys[0]!.key.key, from), await open(keys[1]!.key.key, from)].concat(
      await open(keys[2]!.key.key, { forwardedFor: newAddress() }),
    )
    const filters6 = Array.from({ length: 6 }, logsFilter)
    const subs: string[] = []
    for (const [i, f] of filters6.entries()) subs.push((await [a, a, a, b, b, b][i]!.ask('eth_subscribe', f)).result)
    expect(hub().size).toBe(6)
    const full = await c!.ask('eth_subscribe', logsFilter())
    expect(full.error).toEqual({
      code: -32005,
      message:
        'limit exceeded: at most 6 distinct subscriptions on network devnet-a (subscribe to a filter already in use, ' +
        'or try again later)',
    })
    // The same filter as one held joins it (no new node subscription).
    expect((await c!.ask('eth_subscribe', filters6[0]!)).result).toMatch(/^0x/)
    expect(hub().size).toBe(6)
    expect(s.logText()).toContain('node subscriptions at gateway.maxUpstreamSubscriptionsPerNetwork')
    // The last client of a filter leaves: its node subscription ends and a new filter fits.
    expect((await b!.ask('eth_unsubscribe', [subs[5]])).result).toBe(true)
    await waitFor(() => hub().size === 5, 5000)
    expect((await c!.ask('eth_subscribe', logsFilter())).result).toMatch(/^0x/)
    await closeAll([a!, b!, c!])
    await waitFor(() => hub().size === 0, 5000)
  })
})

describe('counts are given back however a connection ends', () => {
  it('a client process killed (SIGKILL) while holding connections and subscriptions frees them all', async () => {
    await waitFor(() => hub().size === 0, 5000)
    const { key } = await s.newKey('team')
    const address = newAddress()
    // Three connections (the key's cap), four subscriptions (the key's cap), four distinct node subscriptions.
    const script = `
      const WebSocket = require('ws')
      const url = ${JSON.stringify(wsUrl(key.key))}
      const open = () => new Promise((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { 'x-forwarded-for': ${JSON.stringify(address)} } })
        ws.once('open', () => resolve(ws))
        ws.once('error', reject)
      })
      const ask = (ws, id, params) => new Promise((resolve) => {
        ws.on('message', (d) => { const m = JSON.parse(d); if (m.id === id) resolve(m) })
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_subscribe', params }))
      })
      ;(async () => {
        const socks = [await open(), await open(), await open()]
        const filter = (i) => ['logs', { address: '0x' + (0xdead00 + i).toString(16).padStart(40, '0') }]
        const answers = [await ask(socks[0], 1, filter(1)), await ask(socks[0], 2, filter(2)),
          await ask(socks[1], 3, filter(3)), await ask(socks[2], 4, filter(4))]
        console.log(answers.every((a) => a.result) ? 'READY' : 'FAILED ' + JSON.stringify(answers))
      })().catch((e) => console.log('FAILED ' + e.message))
      setInterval(() => {}, 1000)
    `
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
    let out = ''
    child.stdout.on('data', (d) => (out += d))
    await waitFor(() => out.includes('READY') || out.includes('FAILED'), 15_000)
    expect(out.trim()).toBe('READY')
    expect(hub().size).toBe(4)
    expect(await attempt(key.key, { forwardedFor: newAddress() })).toEqual(
      refusal('limit exceeded: at most 3 WebSocket connections per API key (close one first)'),
    )
    child.kill('SIGKILL')
    await new Promise((r) => child.once('exit', r))
    // Everything the dead client held is back: its node subscriptions end, the key connects and subscribes again.
    await waitFor(() => hub().size === 0, 5000)
    const held: Client[] = []
    for (let i = 0; i < 3; i++) held.push(await admitted(key.key, { forwardedFor: address }))
    for (const c of [held[0], held[0], held[1], held[2]])
      expect((await c!.ask('eth_subscribe', logsFilter())).result).toMatch(/^0x/)
    await closeAll(held)
    await waitFor(() => hub().size === 0, 5000)
  })
})
