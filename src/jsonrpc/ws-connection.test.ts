import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { WebSocketServer, type WebSocket } from 'ws'
import { ChaingateError } from '../errors/index.ts'
import { createWsRpcConnection } from './ws-connection.ts'

/**
 * A fake node at the WebSocket boundary, for faults a real node does not produce on demand: silence, a dropped
 * connection mid-call. `answer` decides what the node does with each message.
 */
async function fakeNode(answer: (msg: any, socket: WebSocket, connection: number) => void) {
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' })
  await new Promise((r) => server.once('listening', r))
  let connections = 0
  server.on('connection', (socket) => {
    const n = ++connections
    socket.on('message', (data) => answer(JSON.parse(data.toString()), socket, n))
  })
  return {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    connections: () => connections,
    close: () => new Promise((r) => server.close(r)),
  }
}
const echo = (msg: any, socket: WebSocket) =>
  socket.send(
    JSON.stringify(
      Array.isArray(msg)
        ? msg.map((m) => ({ jsonrpc: '2.0', id: m.id, result: m.method })).reverse()
        : { jsonrpc: '2.0', id: msg.id, result: msg.method },
    ),
  )

const cleanup: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c()
})

describe('WebSocket JSON-RPC connection', () => {
  it('gives back the caller ids, for single calls and batches with repeated ids, many calls in flight', async () => {
    const seen: number[] = []
    const node = await fakeNode((msg, socket) => {
      for (const m of [msg].flat()) seen.push(m.id)
      echo(msg, socket)
    })
    const c = createWsRpcConnection(node.url, { network: 'n', timeoutMs: 2000 })
    cleanup.push(() => c.close(), node.close)
    const [a, b, batch] = await Promise.all([
      c.request({ jsonrpc: '2.0', id: 1, method: 'm1' }),
      c.request({ jsonrpc: '2.0', id: 1, method: 'm2' }),
      c.request([
        { jsonrpc: '2.0', id: 'x', method: 'b1' },
        { jsonrpc: '2.0', id: 'x', method: 'b2' },
        { jsonrpc: '2.0', method: 'b3' },
      ]),
    ])
    expect(a).toEqual({ jsonrpc: '2.0', id: 1, result: 'm1' })
    expect(b).toEqual({ jsonrpc: '2.0', id: 1, result: 'm2' })
    // The node answered the batch in reverse order; ids are restored per call.
    expect(batch).toEqual([
      { jsonrpc: '2.0', id: null, result: 'b3' },
      { jsonrpc: '2.0', id: 'x', result: 'b2' },
      { jsonrpc: '2.0', id: 'x', result: 'b1' },
    ])
    expect(new Set(seen).size).toBe(5) // the node saw five distinct ids
    expect(node.connections()).toBe(1)
  })

  it('a node that never answers gives a timeout error naming the network', async () => {
    const node = await fakeNode(() => {})
    const c = createWsRpcConnection(node.url, { network: 'quiet-net', timeoutMs: 100 })
    cleanup.push(() => c.close(), node.close)
    const err = await c.request({ jsonrpc: '2.0', id: 1, method: 'm' }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ChaingateError)
    expect((err as ChaingateError).message).toContain('quiet-net')
  })

  it('a dropped connection fails the calls in flight and is opened again for the next call', async () => {
    let closed = 0
    const node = await fakeNode((msg, socket, connection) =>
      connection === 1 ? socket.terminate() : echo(msg, socket),
    )
    const c = createWsRpcConnection(node.url, { network: 'n', timeoutMs: 2000, onClosed: () => closed++ })
    cleanup.push(() => c.close(), node.close)
    const err = await c.request({ jsonrpc: '2.0', id: 1, method: 'm' }).catch((e: unknown) => e)
    expect((err as ChaingateError).code).toBe('UPSTREAM_UNAVAILABLE')
    expect(closed).toBe(1)
    expect(await c.request({ jsonrpc: '2.0', id: 2, method: 'again' })).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: 'again',
    })
    expect(node.connections()).toBe(2)
  })

  it('routes messages without an id to the notification handler', async () => {
    const notes: unknown[] = []
    const node = await fakeNode((msg, socket) => {
      socket.send(
        JSON.stringify({ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: 42 } }),
      )
      echo(msg, socket)
    })
    const c = createWsRpcConnection(node.url, { network: 'n', timeoutMs: 2000, onNotification: (m) => notes.push(m) })
    cleanup.push(() => c.close(), node.close)
    await c.request({ jsonrpc: '2.0', id: 1, method: 'eth_subscribe' })
    expect(notes).toEqual([{ jsonrpc: '2.0', method: 'eth_subscription', params: { subscription: '0x1', result: 42 } }])
  })

  it('a node that cannot be reached, or a closed connection, refuses at once', async () => {
    const c = createWsRpcConnection('ws://127.0.0.1:1/', { network: 'gone', timeoutMs: 2000 })
    const err = await c.request({ jsonrpc: '2.0', id: 1, method: 'm' }).catch((e: unknown) => e)
    expect((err as ChaingateError).message).toMatch(/gone.*ECONNREFUSED/)
    c.close()
    await expect(c.request({ jsonrpc: '2.0', id: 1, method: 'm' })).rejects.toThrow(/shutting down/)
  })
})
