/**
 * The socket under the wallet client's transport (./websocket-transport.ts): the browser's WebSocket, or the `ws`
 * package in Node, which can send an Origin header.
 */
/** The subset of the WHATWG WebSocket both the browser's and `ws`'s implement. */
export interface SocketLike {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  // `never`: a listener for any one event type fits (each listener of the transport takes the event it is added for).
  addEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (ev: never) => void): void
  removeEventListener(type: 'open' | 'close' | 'error' | 'message', listener: (ev: never) => void): void
}

/** WebSocket's readyState when open. */
export const OPEN = 1

export async function openSocket(url: string, origin: string | undefined): Promise<SocketLike> {
  const Native = (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket
  const isBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined'
  if (Native && isBrowser) return new Native(url)
  // In Node, `ws` even without an origin: it can send one, and a refused upgrade names its HTTP status (Node's
  // built-in WebSocket reports an empty error, which tells the caller nothing).
  const ws = await import('ws').catch(() => undefined)
  if (ws) return new ws.WebSocket(url, origin === undefined ? {} : { origin }) as unknown as SocketLike
  if (Native && origin === undefined) return new Native(url)
  throw new Error('the ws package is needed to send an origin from Node (npm install ws)')
}
