/** The dapp transport's pairing secret: where it is kept and what it presents (a real `ws` server on port 0). */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { WebSocketServer } from 'ws'
import { TransportError, TransportTimeoutError } from '@metamask/multichain-api-client'
import { getWebSocketTransport } from './websocket-transport.ts'

let server: WebSocketServer
let url: string
/** A server that accepts connections and never answers. */
let silent: WebSocketServer
let silentUrl: string
const seen: URLSearchParams[] = []
/** Connections open on `server`, by Origin. */
const open = new Map<string, number>()

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  server.on('connection', (ws, req) => {
    seen.push(new URL(req.url ?? '/', 'http://x').searchParams)
    const origin = req.headers.origin ?? ''
    open.set(origin, (open.get(origin) ?? 0) + 1)
    ws.on('close', () => open.set(origin, open.get(origin)! - 1))
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw))
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessionScopes: {} } }))
    })
  })
  await new Promise((r) => server.once('listening', r))
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`
  silent = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((r) => silent.once('listening', r))
  silentUrl = `ws://127.0.0.1:${(silent.address() as AddressInfo).port}/`
})
afterAll(async () => {
  await new Promise((r) => silent.close(r))
  await new Promise((r) => server.close(r))
})

async function connectAndGetPairing(t: ReturnType<typeof getWebSocketTransport>): Promise<string | null> {
  await t.connect()
  await t.request({ method: 'wallet_getSession' })
  await t.disconnect()
  return seen.at(-1)!.get('pairing')
}

describe('pairing secret', () => {
  test('Node default: in memory per transport, the same on every reconnect, different between transports', async () => {
    const a = getWebSocketTransport({ url, origin: 'https://a.example' })
    const first = await connectAndGetPairing(a)
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(await connectAndGetPairing(a)).toBe(first)
    expect(await connectAndGetPairing(getWebSocketTransport({ url, origin: 'https://a.example' }))).not.toBe(first)
  })

  test("a browser's localStorage: every transport of the page (and its reloads) presents the same secret", async () => {
    const items = new Map<string, string>()
    ;(globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
    }
    try {
      const first = await connectAndGetPairing(getWebSocketTransport({ url, origin: 'https://b.example' }))
      expect(await connectAndGetPairing(getWebSocketTransport({ url, origin: 'https://b.example' }))).toBe(first)
      expect([...items.entries()]).toEqual([[`chaingate-wallet-pairing:${url}`, first]])
    } finally {
      delete (globalThis as { localStorage?: unknown }).localStorage
    }
  })

  test('a caller-provided store is used; pairingStore: false presents none', async () => {
    const store = new Map<string, string>([[url, 'c'.repeat(40)]])
    const t = getWebSocketTransport({
      url,
      origin: 'https://c.example',
      pairingStore: { get: (k) => store.get(k), set: (k, v) => void store.set(k, v) },
    })
    expect(await connectAndGetPairing(t)).toBe('c'.repeat(40))
    expect(
      await connectAndGetPairing(getWebSocketTransport({ url, origin: 'https://c.example', pairingStore: false })),
    ).toBeNull()
  })
})

describe('pairing under concurrency (issue 20)', () => {
  const delay = (ms: number) => new Promise((r) => setTimeout(r, ms))
  const pairingsOfLast = (n: number) => seen.slice(-n).map((p) => p.get('pairing'))

  test('two transports created together with one async store present one secret, the stored one', async () => {
    const stored = new Map<string, string>()
    const store = {
      get: async (k: string) => (await delay(5), stored.get(k)),
      set: async (k: string, v: string) => void (await delay(5), stored.set(k, v)),
    }
    const a = getWebSocketTransport({ url, origin: 'https://e.example', pairingStore: store })
    const b = getWebSocketTransport({ url, origin: 'https://e.example', pairingStore: store })
    await Promise.all([a.connect(), b.connect()])
    const [first, second] = pairingsOfLast(2)
    await Promise.all([a.disconnect(), b.disconnect()])
    expect(first).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(second).toBe(first)
    expect([...stored.values()]).toEqual([first])
  })

  test('two tabs (two stores over one localStorage) both present what ends up stored', async () => {
    const shared = new Map<string, string>()
    // Both tabs read before either writes, and both write before either reads again: each made a secret, and
    // the later write is the one that stays.
    let writes = 0
    let bothWrote!: () => void
    const barrier = new Promise<void>((r) => (bothWrote = r))
    const tab = () => ({
      get: async (k: string) => {
        const stored = shared.get(k)
        await delay(1)
        return stored
      },
      set: async (k: string, v: string) => {
        shared.set(k, v)
        if (++writes === 2) bothWrote()
        await barrier
      },
    })
    const a = getWebSocketTransport({ url, origin: 'https://f.example', pairingStore: tab() })
    const b = getWebSocketTransport({ url, origin: 'https://f.example', pairingStore: tab() })
    await Promise.all([a.connect(), b.connect()])
    const presented = pairingsOfLast(2)
    await Promise.all([a.disconnect(), b.disconnect()])
    expect(presented).toEqual([shared.get(url), shared.get(url)])
  })

  test('two default transports of one browser page share one lookup', async () => {
    const items = new Map<string, string>()
    ;(globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => items.get(k) ?? null,
      setItem: (k: string, v: string) => void items.set(k, v),
    }
    try {
      const a = getWebSocketTransport({ url: `${url}?page=g`, origin: 'https://g.example' })
      const b = getWebSocketTransport({ url: `${url}?page=g`, origin: 'https://g.example' })
      await Promise.all([a.connect(), b.connect()])
      const [first, second] = pairingsOfLast(2)
      await Promise.all([a.disconnect(), b.disconnect()])
      expect(second).toBe(first)
      expect([...items.values()]).toEqual([first])
    } finally {
      delete (globalThis as { localStorage?: unknown }).localStorage
    }
  })
})

describe('a failed connection', () => {
  test('connect() resolves; the next request retries and rejects with the cause', async () => {
    const t = getWebSocketTransport({ url: 'ws://127.0.0.1:1/', origin: 'https://d.example' })
    await expect(t.connect()).resolves.toBeUndefined()
    expect(t.isConnected()).toBe(false)
    await expect(t.request({ method: 'wallet_getSession' })).rejects.toThrow(
      /^Failed to connect to the wallet at ws:\/\/127\.0\.0\.1:1\/: .*ECONNREFUSED/,
    )
    // A dapp's catch reads `code` (EIP-1193 4900 "Disconnected"), as on the wallet's own errors.
    const failure = await t.request({ method: 'wallet_getSession' }).catch((e: unknown) => e)
    expect(failure).toBeInstanceOf(TransportError)
    expect(failure).toMatchObject({ code: 4900 })
  })

  test('a timed-out request carries code -32603 and is a TransportTimeoutError', async () => {
    const t = getWebSocketTransport({ url: silentUrl, origin: 'https://h.example', pairingStore: false })
    await t.connect()
    const failure = await t.request({ method: 'wallet_getSession' }, { timeout: 50 }).catch((e: unknown) => e)
    await t.disconnect()
    expect(failure).toBeInstanceOf(TransportTimeoutError)
    expect(failure).toMatchObject({ code: -32603 })
  })
})

describe('disconnect() while connecting (issue 26)', () => {
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms))

  test('the attempt under way does not connect afterwards; requests queued on it fail with 4900', async () => {
    for (const when of ['at once', 'after a tick']) {
      const origin = `https://early-${when.replace(/ /g, '-')}.example`
      const t = getWebSocketTransport({ url, origin, pairingStore: false })
      const connecting = t.connect()
      const queued = t.request({ method: 'wallet_createSession' }).catch((e: unknown) => e)
      if (when === 'after a tick') await pause(0)
      await t.disconnect()
      await connecting
      expect(await queued).toMatchObject({ code: 4900, message: 'Transport disconnected' })
      expect(t.isConnected()).toBe(false)
      await pause(200)
      expect(open.get(origin) ?? 0).toBe(0)
      // A request does not reconnect a transport the dapp disconnected (the client's retries would); connect() does.
      await expect(t.request({ method: 'wallet_getSession' })).rejects.toMatchObject({ code: 4900 })
      await pause(100)
      expect(open.get(origin) ?? 0).toBe(0)
      await t.connect()
      expect((await t.request({ method: 'wallet_getSession' })).result).toEqual({ sessionScopes: {} })
      expect(open.get(origin)).toBe(1)
      await t.disconnect()
    }
  })
})
