/**
 * eth_subscribe against a network's node over one shared WebSocket, opened on first use. Client subscriptions
 * map onto node subscriptions one to one (the connection itself is src/upstreams/ws-connection.ts). If the node connection drops, every subscription is told (`onLost`)
 * so the client side can close its socket with a reason instead of going silent (Infura users' top WebSocket
 * complaint, docs/errors.md, close code 1013); the next subscribe reconnects.
 */
import type { RpcErrorObject } from '../jsonrpc/envelope.ts'
import { errors } from '../errors/index.ts'
import { createWsRpcConnection } from './ws-connection.ts'

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
  readonly error: RpcErrorObject
  constructor(error: RpcErrorObject) {
    super(error.message)
    this.error = error
  }
}

export function createSubscriptionHub(network: string, wsUrl: string, opts: { timeoutMs: number }): SubscriptionHub {
  const handlers = new Map<string, { onEvent(result: unknown): void; onLost(reason: string): void }>()
  let closed = false
  const connection = createWsRpcConnection(wsUrl, {
    network,
    timeoutMs: opts.timeoutMs,
    onNotification(msg) {
      const params = msg.params as { subscription?: string; result?: unknown } | undefined
      if (msg.method === 'eth_subscription' && params?.subscription !== undefined) handlers.get(params.subscription)?.onEvent(params.result)
    },
    onClosed() {
      const lost = [...handlers.values()]
      handlers.clear()
      for (const h of lost) h.onLost(`the node of network ${network} closed the subscription connection; subscribe again`)
    },
  })

  const call = async (method: string, params: unknown[]): Promise<unknown> => {
    const answer = (await connection.request({ jsonrpc: '2.0', id: 1, method, params })) as { result?: unknown; error?: RpcErrorObject }
    if (answer.error) throw new NodeRpcError(answer.error)
    return answer.result
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
      connection.close()
    },
  }
}
