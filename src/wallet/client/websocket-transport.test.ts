/** The dapp transport's pairing secret: where it is kept and what it presents (a real `ws` server on port 0). */
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { WebSocketServer } from 'ws'
import { getWebSocketTransport } from './websocket-transport.ts'

let server: WebSocketServer
let url: string
const seen: URLSearchParams[] = []

beforeAll(async () => {
  server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  server.on('connection', (ws, req) => {
    seen.push(new URL(req.url ?? '/', 'http://x').searchParams)
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw))
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { sessionScopes: {} } }))
    })
  })
  await new Promise((r) => server.once('listening', r))
  url = `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(() => new Promise((r) => server.close(r)))

async function connectAndGetPairing(t: ReturnType<typeof getWebSocketTransport>): Promise<string | null> {
  await t.connect()
  await t.request({ method: 'wallet_getSession' })
  await t.disconnect()
  return seen.at(-1)!.get('pairing')
}

describe('pairing secret', () => {
  test('Node default: kept in memory per transport, the same on every reconnect, different between transports', async () => {
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

describe('a failed connection', () => {
  test('connect() resolves; the next request retries and rejects with the cause', async () => {
    const t = getWebSocketTransport({ url: 'ws://127.0.0.1:1/', origin: 'https://d.example' })
    await expect(t.connect()).resolves.toBeUndefined()
    expect(t.isConnected()).toBe(false)
    await expect(t.request({ method: 'wallet_getSession' })).rejects.toThrow(
      /^Failed to connect to the wallet at ws:\/\/127\.0\.0\.1:1\/: .*ECONNREFUSED/,
    )
  })
})
