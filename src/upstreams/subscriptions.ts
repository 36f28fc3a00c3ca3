/**
 * eth_subscribe against a network's node over one shared WebSocket, opened on first use. Client subscriptions
 * map onto node subscriptions one to one. If the node connection drops, every subscription is told (`onLost`)
 * so the client side can close its socket with a reason instead of going silent (Infura users' top WebSocket
 * complaint, ../shared/reference/infura.md §8.6); the next subscribe reconnects.
 */
import WebSocket from 'ws'
import type { RpcErrorObject } from '../jsonrpc/envelope.ts'
import { errors } from '../errors/index.ts'

export interface NodeSubscription {
  /** The node's subscription id. */
  id: string
  unsubscribe(): Promise<void>
}

export interface SubscriptionHub {
  subscribe(params: unknown[], onEvent: (result: unknown) => void, onLost: (reason: string) => void): Promise<NodeSubscription>
  close(): Promise<void>
}

/** A JSON-RPC error answer from the node, passed through to the client unchanged. */
export class NodeRpcError extends Error {
  constructor(readonly error: RpcErrorObject) {
    super(error.message)
  }
}

interface Pending {
  resolve(result: unknown): void
  reject(err: unknown): void
}

export function createSubscriptionHub(network: string, wsUrl: string, opts: { timeoutMs: number }): SubscriptionHub {
  let socket: WebSocket | undefined
  let opening: Promise<WebSocket> | undefined
  let nextId = 1
  const pending = new Map<number, Pending>()
  const handlers = new Map<string, { onEvent(result: unknown): void; onLost(reason: string): void }>()
  let closed = false

  const open = (): Promise<WebSocket> => {
    if (socket?.readyState === WebSocket.OPEN) return Promise.resolve(socket)
    if (opening) return opening
    opening = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, { handshakeTimeout: Math.min(opts.timeoutMs, 10_000) })
      ws.on('open', () => {
        socket = ws
        opening = undefined
        resolve(ws)
      })
      ws.on('message', (data) => onMessage(data.toString()))
      ws.on('error', (err) => {
        if (opening) {
          opening = undefined
          reject(errors.upstreamUnavailable(network, `subscription connection failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`))
        }
      })
      ws.on('close', () => {
        if (socket === ws) socket = undefined
        for (const p of pending.values()) p.reject(errors.upstreamUnavailable(network, 'the node closed the subscription connection'))
        pending.clear()
        const lost = [...handlers.values()]
        handlers.clear()
        for (const h of lost) h.onLost(`the node of network ${network} closed the subscription connection; subscribe again`)
      })
    })
    return opening
  }

  const onMessage = (text: string) => {
    let msg: { id?: number; result?: unknown; error?: RpcErrorObject; method?: string; params?: { subscription: string; result: unknown } }
    try {
      msg = JSON.parse(text)
    } catch {
      return
    }
    if (msg.method === 'eth_subscription' && msg.params) {
      handlers.get(msg.params.subscription)?.onEvent(msg.params.result)
      return
    }
    if (typeof msg.id === 'number') {
      const p = pending.get(msg.id)
      if (!p) return
      pending.delete(msg.id)
      if (msg.error) p.reject(new NodeRpcError(msg.error))
      else p.resolve(msg.result)
    }
  }

  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const ws = await open()
    const id = nextId++
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id)
        reject(errors.upstreamTimeout(network, opts.timeoutMs))
      }, opts.timeoutMs)
      pending.set(id, {
        resolve: (r) => {
          clearTimeout(timer)
          resolve(r)
        },
        reject: (e) => {
          clearTimeout(timer)
          reject(e)
        },
      })
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    })
  }

  return {
    async subscribe(params, onEvent, onLost) {
      if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
      const id = (await call('eth_subscribe', params)) as string
      handlers.set(id, { onEvent, onLost })
      return {
        id,
        async unsubscribe() {
          if (!handlers.delete(id)) return
          await call('eth_unsubscribe', [id]).catch(() => undefined)
        },
      }
    },
    async close() {
      closed = true
      handlers.clear()
      socket?.close()
      socket = undefined
    },
  }
}
