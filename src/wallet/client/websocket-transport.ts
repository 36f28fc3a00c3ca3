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
 * const session = await client.createSession({ optionalScopes: { 'eip155:31337': { methods: ['eth_blockNumber'],
 * notifications: [] } } })
 * ```
 *
 * Pairing (docs/wallet.md): the transport keeps a random pairing secret per wallet URL and presents it on every
 * connection; only connections with the secret of the connection that created a session may use that session. It
 * lives in the page's localStorage in a browser, in memory in Node, or in the `pairingStore` you pass.
 *
 * Failures: the client calls `connect()` on its own as soon as it is created, where a rejection would be
 * unhandled (and end a Node process). So `connect()` never rejects: a failed attempt is kept, and the next request
 * tries again and rejects with that failure (`TransportError`), which reaches the caller of the client's method.
 * `disconnect()` holds until `connect()`: an attempt under way does not connect afterwards, and requests fail
 * instead of reconnecting (docs/wallet.md).
 */
import {
  TransportError,
  TransportTimeoutError,
  type Transport,
  type TransportRequest,
  type TransportResponse,
} from '@metamask/multichain-api-client'
import { type PairingStore, defaultPairingStore, pairedUrl } from './pairing.ts'
import { OPEN, openSocket, type SocketLike } from './socket.ts'

export type { PairingStore } from './pairing.ts'

/** `code` of the transport's own failures: EIP-1193's "Disconnected" (could not connect or send, or it closed). */
export const TRANSPORT_DISCONNECTED = 4900
/** `code` of a request that timed out (`TransportTimeoutError`): JSON-RPC's internal error. */
export const TRANSPORT_TIMEOUT = -32603

/** The client package's error classes (so `instanceof` works) with a `code`, as a dapp's catch reads it. */
export type CodedTransportError = TransportError & { code: number }

const transportError = (message: string, cause?: unknown): CodedTransportError =>
  Object.assign(new TransportError(message, cause), { code: TRANSPORT_DISCONNECTED })
const timeoutError = (): CodedTransportError => Object.assign(new TransportTimeoutError(), { code: TRANSPORT_TIMEOUT })

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
  /**
   * Where the pairing secret is kept (default: localStorage in a browser, memory in Node). `false` connects
   * without one: such a connection can only use a session it created itself, while it stays open.
   */
  pairingStore?: PairingStore | false
}

interface PendingRequest {
  resolve(m: TransportResponse): void
  reject(e: unknown): void
  timer?: ReturnType<typeof setTimeout>
}

export function getWebSocketTransport(options: WebSocketTransportOptions): Transport {
  const pairingStore = options.pairingStore ?? defaultPairingStore()
  let socket: SocketLike | undefined
  /** Why the last connection attempt failed; the next request retries and reports it. */
  let lastFailure: TransportError | undefined
  let connecting: Promise<void> | undefined
  /**
   * Bumped by disconnect(): an attempt started before it must not connect afterwards. The client connects on its
   * own when created, so a dapp that disconnects at once would otherwise get a connection it believes closed, and
   * the requests it queued meanwhile would be sent on it and wait for the user there.
   */
  let generation = 0
  /** The socket of the attempt under way, closed by disconnect(). */
  let opening: SocketLike | undefined
  /**
   * Set by disconnect(), cleared by connect(): until then a request does not reconnect on its own (the client
   * retries its warm-up call for ~2 s, which would otherwise open a new connection for calls made before it).
   */
  let disconnectedByDapp = false
  let nextId = Math.floor(Math.random() * 0x7fffffff)
  const pending = new Map<number, PendingRequest>()
  const callbacks = new Set<(data: unknown) => void>()

  const failPending = (why: string) => {
    for (const p of pending.values()) {
      if (p.timer) clearTimeout(p.timer)
      p.reject(transportError(why))
    }
    pending.clear()
  }

  const onMessage = (ev: { data: unknown }) => {
    let msg: { id?: unknown } | null
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
    const id = msg.id
    if (typeof id !== 'number') return // the transport's ids are numbers
    const p = pending.get(id)
    if (!p) return
    pending.delete(id)
    if (p.timer) clearTimeout(p.timer)
    p.resolve(msg as TransportResponse)
  }
  const onClose = () => {
    socket = undefined
    failPending('The wallet connection closed')
  }

  async function disconnect(): Promise<void> {
    generation++
    disconnectedByDapp = true
    connecting = undefined
    const s = socket
    socket = undefined
    if (s) {
      s.removeEventListener('message', onMessage)
      s.removeEventListener('close', onClose)
      s.close()
    }
    const o = opening
    opening = undefined
    try {
      o?.close()
    } catch {}
    failPending('Transport disconnected')
  }

  /** The attempt under way, or a new one; a request waiting on it fails if the transport disconnects meanwhile. */
  function attempt(): Promise<void> {
    if (connecting) return connecting
    const p = open().finally(() => {
      if (connecting === p) connecting = undefined
    })
    connecting = p
    return p
  }

  /** One connection attempt; never rejects (see the top comment): a failure is kept in lastFailure. */
  async function open(): Promise<void> {
    const started = generation
    const disconnected = () => {
      lastFailure = transportError('Transport disconnected')
    }
    let s: SocketLike
    try {
      s = await openSocket(await pairedUrl(options.url, pairingStore), options.origin)
    } catch (e) {
      if (started !== generation) return disconnected()
      lastFailure = transportError('Failed to connect to the wallet', e)
      return
    }
    // An error event after a failed or abandoned attempt must not be an uncaught 'error' on the `ws` socket.
    s.addEventListener('error', () => {})
    if (started !== generation) {
      s.close()
      return disconnected()
    }
    opening = s
    let cause: unknown
    const opened = await new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => (ev: unknown) => {
        cause ??= ok ? undefined : ((ev as { error?: unknown })?.error ?? ev)
        s.removeEventListener('open', onOpen)
        s.removeEventListener('error', onFail)
        s.removeEventListener('close', onFail)
        resolve(ok)
      }
      const onOpen = done(true)
      const onFail = done(false)
      s.addEventListener('open', onOpen)
      s.addEventListener('error', onFail)
      s.addEventListener('close', onFail)
    })
    if (opening === s) opening = undefined
    if (started !== generation) {
      // disconnect() came while connecting: it closed this socket, or closes it now that it is open.
      if (opened) s.close()
      return disconnected()
    }
    if (!opened) {
      const why = (cause as { message?: unknown })?.message
      lastFailure = transportError(
        `Failed to connect to the wallet at ${options.url}${typeof why === 'string' ? `: ${why}` : ''}`,
        cause,
      )
      return
    }
    lastFailure = undefined
    s.addEventListener('message', onMessage)
    s.addEventListener('close', onClose)
    socket = s
  }

  return {
    warmupTimeout: options.warmupTimeout ?? 1000,

    async connect() {
      if (socket) await disconnect()
      disconnectedByDapp = false
      await attempt()
    },

    disconnect,

    isConnected: () => socket !== undefined && socket.readyState === OPEN,

    async request<TResponse extends TransportResponse>(
      request: TransportRequest,
      requestOptions?: { timeout?: number },
    ): Promise<TResponse> {
      if (!socket || socket.readyState !== OPEN) {
        if (disconnectedByDapp) throw transportError('Transport disconnected')
        // Not connected (the first attempt failed, or the wallet closed the connection): try once more now.
        await attempt()
      }
      const s = socket
      if (!s || s.readyState !== OPEN) throw lastFailure ?? transportError('Transport not connected')
      nextId = nextId >= 0x7fffffff ? 1 : nextId + 1
      const id = nextId
      const timeout = requestOptions?.timeout ?? options.defaultTimeout ?? -1
      return new Promise<TResponse>((resolve, reject) => {
        // The wallet's answer is the response the caller expects: a transport cannot check its result's type.
        const entry: PendingRequest = { resolve: (m) => resolve(m as TResponse), reject }
        if (timeout !== -1)
          entry.timer = setTimeout(() => {
            pending.delete(id)
            reject(timeoutError())
          }, timeout)
        pending.set(id, entry)
        try {
          s.send(JSON.stringify({ jsonrpc: '2.0', id, method: request.method, params: request.params }))
        } catch (e) {
          pending.delete(id)
          if (entry.timer) clearTimeout(entry.timer)
          reject(transportError('Failed to send the request', e))
        }
      })
    },

    /**
     * Callbacks survive disconnect/connect (a reconnecting dapp keeps its listeners); call the returned function to
     * remove one.
     */
    onNotification(callback) {
      callbacks.add(callback)
      return () => {
        callbacks.delete(callback)
      }
    },
  }
}
