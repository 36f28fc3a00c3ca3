import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Duplex } from 'node:stream'
import { afterAll, describe, expect, it } from 'vitest'
import WebSocket, { WebSocketServer } from 'ws'
import { FRAME_HEAD, type Notification } from '../pipeline/event-charges.ts'
import { type WsWriter, wsWriter } from './ws-send.ts'

const http = createServer()
const wss = new WebSocketServer({ server: http, perMessageDeflate: false })
const writers: WsWriter[] = []
const sockets: Duplex[] = []
wss.on('connection', (ws) => {
  const socket = (ws as unknown as { _socket: Duplex })._socket
  sockets.push(socket)
  writers.push(wsWriter(ws, socket, 64 << 20))
})
await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
afterAll(async () => {
  for (const c of wss.clients) c.terminate()
  await new Promise((r) => http.close(r))
})

interface Client {
  ws: WebSocket
  messages: string[]
  writer: WsWriter
  /** The server's end. */
  socket: Duplex
}

async function client(): Promise<Client> {
  const before = writers.length
  const ws = new WebSocket(`ws://127.0.0.1:${(http.address() as AddressInfo).port}`)
  const messages: string[] = []
  ws.on('message', (d, binary) => {
    expect(binary).toBe(false)
    messages.push(d.toString())
  })
  await new Promise((r) => ws.once('open', r))
  await until(() => writers.length === before + 1)
  return { ws, messages, writer: writers[writers.length - 1]!, socket: sockets[sockets.length - 1]! }
}

async function until(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(ok()).toBe(true)
}

const ids = ['0x0123456789abcdef0123456789abcdef', '0xfedcba9876543210fedcba9876543210']
const event = (result: unknown): Notification => ({ tail: `","result":${JSON.stringify(result)}}}` })

describe('notifications written as whole WebSocket frames', () => {
  it('each subscriber gets its own id in a text frame a ws client reads, at every payload length form', async () => {
    const a = await client()
    const b = await client()
    // Payloads of under 126 bytes, under 64 KiB and over it (7-, 16- and 64-bit lengths), and text beyond latin1.
    const results = [1, { number: '0x10', extra: 'é€😀' }, { data: `0x${'ab'.repeat(40_000)}` }]
    for (const result of results) {
      const n = event(result)
      expect(a.writer.notification(ids[0]!, n)).toBe(true)
      expect(b.writer.notification(ids[1]!, n)).toBe(true)
      // Answers through ws in between stay whole and in order.
      expect(a.writer.text('{"jsonrpc":"2.0","id":7,"result":"0x1"}')).toBe(true)
    }
    expect(Buffer.byteLength(`${FRAME_HEAD}${ids[0]}${event(1).tail}`)).toBeLessThan(126)
    await until(() => a.messages.length === 6 && b.messages.length === 3)
    for (const [c, id] of [
      [a, ids[0]],
      [b, ids[1]],
    ] as const) {
      const notes = c.messages.map((m) => JSON.parse(m)).filter((m) => m.method === 'eth_subscription')
      expect(notes).toEqual(
        results.map((result) => ({
          jsonrpc: '2.0',
          method: 'eth_subscription',
          params: { subscription: id, result },
        })),
      )
    }
    expect(a.messages.filter((m) => m.includes('"id":7'))).toHaveLength(3)
    // Another id length than chaingate's still gets a correct frame.
    a.writer.notification('0x1', event(2))
    await until(() => a.messages.length === 7)
    expect(JSON.parse(a.messages[6]!).params).toEqual({ subscription: '0x1', result: 2 })
    a.ws.close()
    b.ws.close()
  })

  it('Solana: integer ids of several lengths, last in the notification, each its own, at every length form', async () => {
    const clients = [await client(), await client(), await client()]
    const solanaIds = ['0', '7', '12345']
    const results = [{ slot: 5, parent: 4, root: 1 }, { data: 'é€😀' }, { data: 'ab'.repeat(40_000) }]
    for (const result of results) {
      const head = `{"jsonrpc":"2.0","method":"slotNotification","params":{"result":${JSON.stringify(result)},`
      const n: Notification = { head: `${head}"subscription":`, tail: '}}' }
      clients.forEach((c, i) => expect(c.writer.notification(solanaIds[i]!, n)).toBe(true))
    }
    await until(() => clients.every((c) => c.messages.length === results.length))
    clients.forEach((c, i) => {
      expect(c.messages.map((m) => JSON.parse(m))).toEqual(
        results.map((result) => ({
          jsonrpc: '2.0',
          method: 'slotNotification',
          params: { result, subscription: Number(solanaIds[i]) },
        })),
      )
      // The id is the last member, as a validator writes it.
      expect(c.messages[0]!.endsWith(`"subscription":${solanaIds[i]}}}`)).toBe(true)
      c.ws.close()
    })
  })

  it('a write the kernel did not take whole keeps its own id: the next subscriber is written from a copy', async () => {
    const a = await client()
    const b = await client()
    ;(a.ws as unknown as { _socket: Duplex })._socket.pause()
    let pending = 0
    const events = 6
    for (let i = 0; i < events; i++) {
      const n = event({ i, data: `0x${'cd'.repeat(512 * 1024)}` })
      a.writer.notification(ids[0]!, n)
      if (a.socket.writableLength > 0) pending++
      b.writer.notification(ids[1]!, n)
    }
    // a does not read: its megabyte frames wait in its socket, while b's are written from the same event.
    expect(pending).toBeGreaterThan(0)
    ;(a.ws as unknown as { _socket: Duplex })._socket.resume()
    await until(() => a.messages.length === events && b.messages.length === events)
    for (const [c, id] of [
      [a, ids[0]],
      [b, ids[1]],
    ] as const)
      expect(c.messages.map((m) => [JSON.parse(m).params.subscription, JSON.parse(m).params.result.i])).toEqual(
        Array.from({ length: events }, (_, i) => [id, i]),
      )
    a.ws.close()
    b.ws.close()
  })

  it('a closed socket is not written to', async () => {
    const c = await client()
    c.ws.close()
    await until(() => !c.writer.text('x'))
    expect(c.writer.notification(ids[0]!, event(1))).toBe(false)
  })
})
