/**
 * One JSON-RPC connection to a node over WebSocket, opened on first use and again on the next request after it
 * drops: the project's one JSON-RPC-over-WebSocket client. Used for subscriptions (src/upstreams/subscriptions/hub.ts),
 * for a node reached only by ws(s) for every call (src/upstreams/pool/pool.ts), and by the wallet reaching nodes
 * without the gateway (src/wallet/direct-chain-access.ts). It lives in the base so that none of them reaches into
 * another's internals. Requests get the connection's own ids, so callers' ids can repeat; answers come
 * back with the caller's ids restored. Every request has a deadline.
 */
import WebSocket from 'ws'
import { errors } from '../errors/index.ts'
import { ChurnMap } from '../shared/churn-map.ts'

type Id = string | number | null
interface RpcMessage {
  id?: Id
  method?: string
  [member: string]: unknown
}

export interface WsRpcConnection {
  /** Sends one call or a batch; resolves with the node's answer (object or array) carrying the caller's ids. */
  request(payload: RpcMessage | RpcMessage[], timeoutMs?: number): Promise<unknown>
  close(): void
}

interface Pending {
  /** Connection id → the caller's id. */
  ids: Map<number, Id>
  resolve(answer: unknown): void
  reject(err: Error): void
  timer: NodeJS.Timeout
}

export function createWsRpcConnection(
  url: string,
  opts: {
    network: string
    timeoutMs: number
    /** Messages without an id that the node sends on its own (eth_subscription). */
    onNotification?: (message: RpcMessage) => void
    /** The connection dropped; pending requests have been rejected. */
    onClosed?: () => void
  },
): WsRpcConnection {
  const { network } = opts
  let socket: WebSocket | undefined
  let opening: Promise<WebSocket> | undefined
  let nextId = 1
  let closed = false
  // Set and removed per call: a ChurnMap, so a long-lived Map's stale tables do not promote every call's entry.
  const pending = new ChurnMap<number, Pending>()

  const open = (): Promise<WebSocket> => {
    if (socket?.readyState === WebSocket.OPEN) return Promise.resolve(socket)
    if (opening) return opening
    opening = new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url, { handshakeTimeout: Math.min(opts.timeoutMs, 10_000) })
      let opened = false
      const refuse = (why: string) => {
        if (opened) return
        opened = true // settled: this attempt is over
        opening = undefined
        reject(errors.upstreamUnavailable(network, why))
      }
      ws.on('open', () => {
        opened = true
        socket = ws
        opening = undefined
        resolve(ws)
      })
      ws.on('message', (data) => onMessage(data.toString()))
      ws.on('error', (err) =>
        refuse(`WebSocket connection failed: ${(err as NodeJS.ErrnoException).code ?? err.message}`),
      )
      ws.on('close', () => {
        // Closed before it opened without an 'error' first: refuse rather than leave callers waiting on `opening`.
        refuse('the node closed the WebSocket connection while opening it')
        if (socket === ws) socket = undefined
        const lost = [...new Set(pending.values())]
        pending.clear()
        for (const p of lost)
          settle(p, () => p.reject(errors.upstreamUnavailable(network, 'the node closed the WebSocket connection')))
        opts.onClosed?.()
      })
    })
    return opening
  }

  const settle = (p: Pending, done: () => void) => {
    clearTimeout(p.timer)
    for (const id of p.ids.keys()) pending.delete(id)
    done()
  }

  const restore = (p: Pending, answer: RpcMessage) => {
    if (typeof answer?.id === 'number' && p.ids.has(answer.id)) answer.id = p.ids.get(answer.id)!
    return answer
  }

  const onMessage = (text: string) => {
    let msg: RpcMessage | RpcMessage[]
    try {
      msg = JSON.parse(text) as RpcMessage | RpcMessage[]
    } catch {
      return
    }
    if (Array.isArray(msg)) {
      const first = msg.find((m) => typeof m?.id === 'number')
      const p = first && pending.get(first.id as number)
      if (p) settle(p, () => p.resolve(msg.map((m) => restore(p, m))))
      return
    }
    if (msg === null || typeof msg !== 'object') return
    if (typeof msg.id === 'number') {
      const p = pending.get(msg.id)
      if (p) settle(p, () => p.resolve(restore(p, msg)))
    } else if (msg.id === undefined && typeof msg.method === 'string') opts.onNotification?.(msg)
  }

  return {
    async request(payload, timeoutMs = opts.timeoutMs) {
      if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
      const ws = await open()
      return new Promise((resolve, reject) => {
        const calls = Array.isArray(payload) ? payload : [payload]
        const p: Pending = {
          ids: new Map(),
          resolve,
          reject,
          timer: setTimeout(() => settle(p, () => reject(errors.upstreamTimeout(network, timeoutMs))), timeoutMs),
        }
        const outgoing = calls.map((c) => {
          const id = nextId++
          p.ids.set(id, c.id ?? null)
          pending.set(id, p)
          return { ...c, id }
        })
        ws.send(JSON.stringify(Array.isArray(payload) ? outgoing : outgoing[0]), (err) => {
          if (err)
            settle(p, () =>
              reject(errors.upstreamUnavailable(network, `sending over WebSocket failed: ${err.message}`)),
            )
        })
      })
    },
    close() {
      closed = true
      socket?.close()
      socket = undefined
    },
  }
}
