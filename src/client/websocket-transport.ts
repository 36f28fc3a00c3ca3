/**
 * A WebSocket Transport for `@metamask/multichain-api-client` (its `Transport` type: connect, disconnect,
 * isConnected, request, onNotification), to reach chaingate's wallet — or any wallet speaking JSON-RPC 2.0 over
 * WebSocket. Works in browsers (native WebSocket, the browser sends the page's Origin) and in Node (the `ws`
 * package; the `origin` option is sent as the Origin header, which is how a non-browser dapp declares its origin).
 *
 * @example
 * ```ts
 * import { getMultichainClient } from '@metamask/multichain-api-client'
 * import { getWebSocketTransport } from 'chaingate/client'
 * const client = getMultichainClient({
 *   transport: getWebSocketTransport({ url: 'ws://127.0.0.1:8546/', origin: 'https://my-dapp.example' }),
 * })
 * const session = await client.createSession({ optionalScopes: { 'eip155:31337': { methods: ['eth_blockNumber'], notifications: [] } } })
 * ```
 */
import { TransportError, TransportTimeoutError, type Transport, type TransportResponse } from '@metamask/multichain-api-client'

export interface WebSocketTransportOptions {
  /** ws:// or wss:// URL of the wallet, e.g. `ws://127.0.0.1:8546/`. */
  url: string
  /**
   * The dapp's origin when not running in a browser (sent as the Origin header). Ignored by browsers, which
   * always send the page's own origin.
   */
  origin?: string
  /** Default per-request timeout in ms; -1 (default) waits forever, since approvals can take minutes. */
  defaultTimeout?: number
  /** Timeout of the client's warm-up `wallet_getSession` right after connecting (default 1000 ms). */
  warmupTimeout?: number
}

/** The subset of the WHATWG WebSocket both the browser's and `ws`'s implement. */
interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (ev: any) => void): void
  removeEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (ev: any) => void): void
}

const OPEN = 1

async function openSocket(url: string, origin: string | undefined): Promise<SocketLike> {
  const Native = (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket
  const isBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined'
  if (Native && (isBrowser || origin === undefined)) return new Native(url)
  const { WebSocket } = await import('ws')
  return new WebSocket(url, origin === undefined ? {} : { origin }) as unknown as SocketLike
}

export function getWebSocketTransport(options: WebSocketTransportOptions): Transport {
  let socket: SocketLike | undefined
  let nextId = Math.floor(Math.random() * 0x7fffffff)
  const pending = new Map<number, { resolve(m: TransportResponse): void; reject(e: unknown): void; timer?: ReturnType<typeof setTimeout> }>()
  const callbacks = new Set<(data: unknown) => void>()

  const failPending = (why: string) => {
    for (const p of pending.values()) {
      if (p.timer) clearTimeout(p.timer)
      p.reject(new TransportError(why))
    }
    pending.clear()
  }

  const onMessage = (ev: { data: unknown }) => {
    let msg: any
    try {
      msg = JSON.parse(typeof ev.data === 'string' ? ev.data : String(ev.data))
    } catch {
      return
    }
    if (msg?.id === null || msg?.id === undefined) {
      // Notifications (wallet_notify, wallet_sessionChanged) and id-less errors go to every callback.
      for (const cb of [...callbacks]) {
        try {
          cb(msg)
        } catch {}
      }
      return
    }
    const p = pending.get(msg.id)
    if (!p) return
    pending.delete(msg.id)
    if (p.timer) clearTimeout(p.timer)
    p.resolve(msg as TransportResponse)
  }
  const onClose = () => {
    socket = undefined
    failPending('The wallet connection closed')
  }

  async function disconnect(): Promise<void> {
    const s = socket
    socket = undefined
    if (s) {
      s.removeEventListener('message', onMessage)
      s.removeEventListener('close', onClose)
      s.close()
    }
    failPending('Transport disconnected')
  }

  return {
    warmupTimeout: options.warmupTimeout ?? 1000,

    async connect() {
      if (socket) await disconnect()
      let s: SocketLike
      try {
        s = await openSocket(options.url, options.origin)
      } catch (e) {
        throw new TransportError('Failed to connect to the wallet', e)
      }
      await new Promise<void>((resolve, reject) => {
        const opened = () => {
          cleanup()
          resolve()
        }
        const failed = (ev: unknown) => {
          cleanup()
          reject(new TransportError(`Failed to connect to the wallet at ${options.url}`, ev))
        }
        const cleanup = () => {
          s.removeEventListener('open', opened)
          s.removeEventListener('error', failed)
          s.removeEventListener('close', failed)
        }
        s.addEventListener('open', opened)
        s.addEventListener('error', failed)
        s.addEventListener('close', failed)
      })
      s.addEventListener('message', onMessage)
      s.addEventListener('close', onClose)
      s.addEventListener('error', () => {})
      socket = s
    },

    disconnect,

    isConnected: () => socket !== undefined && socket.readyState === OPEN,

    request(request, requestOptions) {
      const s = socket
      if (!s || s.readyState !== OPEN) return Promise.reject(new TransportError('Transport not connected'))
      nextId = nextId >= 0x7fffffff ? 1 : nextId + 1
      const id = nextId
      const timeout = requestOptions?.timeout ?? options.defaultTimeout ?? -1
      return new Promise((resolve, reject) => {
        const entry: { resolve(m: any): void; reject(e: unknown): void; timer?: ReturnType<typeof setTimeout> } = { resolve, reject }
        if (timeout !== -1)
          entry.timer = setTimeout(() => {
            pending.delete(id)
            reject(new TransportTimeoutError())
          }, timeout)
        pending.set(id, entry)
        try {
          s.send(JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params }))
        } catch (e) {
          pending.delete(id)
          if (entry.timer) clearTimeout(entry.timer)
          reject(new TransportError('Failed to send the request', e))
        }
      })
    },

    /** Callbacks survive disconnect/connect (a reconnecting dapp keeps its listeners); call the returned function to remove one. */
    onNotification(callback) {
      callbacks.add(callback)
      return () => {
        callbacks.delete(callback)
      }
    },
  }
}
