/**
 * A TCP proxy a test can cut and restore: makes a node, Redis or PostgreSQL unreachable for one client without
 * stopping the service itself (other tests use the shared Redis on 6379). `cut()` destroys every connection and
 * stops listening (new connections are refused); `freeze()` keeps every connection open but forwards nothing more,
 * also on new ones (a node that hangs); `restore()` ends either (frozen connections are destroyed) and listens
 * again on the same port; `lag(ms)` makes every chunk the target sends reach the client `ms` later (a slow link).
 */
import { createServer, connect, type Server, type Socket } from 'node:net'
import { Transform } from 'node:stream'

export interface TcpProxy {
  readonly port: number
  /** http://127.0.0.1:<port> with the target's path (for a node URL target). */
  readonly url: string
  /** The same as ws://. */
  readonly wsUrl: string
  cut(): Promise<void>
  freeze(): void
  /** From now on, what the target sends reaches the client `ms` later, chunk after chunk (0: at once). */
  lag(ms: number): void
  restore(): Promise<void>
  close(): Promise<void>
}

/** `target`: a URL (http://, ws://, redis://…: its host and port; the path is kept in `url`) or a host and port. */
export async function startTcpProxy(target: string | { host: string; port: number }): Promise<TcpProxy> {
  const t = typeof target === 'string' ? new URL(target) : undefined
  const host = t ? t.hostname.replace(/^\[|\]$/g, '') : (target as { host: string }).host
  const defaultPort =
    t?.protocol === 'https:' || t?.protocol === 'wss:' ? 443 : t?.protocol.startsWith('redis') ? 6379 : 80
  const port = t ? Number(t.port || defaultPort) : (target as { port: number }).port
  const path = t && t.pathname !== '/' ? t.pathname : ''
  const open = new Set<Socket>()
  let server: Server
  let frozen = false
  let lagMs = 0
  type Pair = [client: Socket, upstream: Socket, back: Transform]
  const pairs = new Set<Pair>()
  const hold = ([client, upstream, back]: Pair) => {
    client.unpipe(upstream)
    upstream.unpipe(back)
    client.pause()
    upstream.pause()
  }

  const listen = (onPort: number) =>
    new Promise<number>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(port, host)
        open.add(client)
        open.add(upstream)
        const drop = () => {
          client.destroy()
          upstream.destroy()
          open.delete(client)
          open.delete(upstream)
        }
        client.on('error', drop).on('close', drop)
        upstream.on('error', drop).on('close', drop)
        // The target's bytes to the client, each chunk held `lagMs` first (in order: one chunk at a time).
        const back = new Transform({
          transform: (chunk, _enc, done) => (lagMs > 0 ? setTimeout(done, lagMs, null, chunk) : done(null, chunk)),
        })
        const pair: Pair = [client, upstream, back]
        pairs.add(pair)
        client.on('close', () => pairs.delete(pair))
        if (frozen) return hold(pair)
        client.pipe(upstream)
        upstream.pipe(back).pipe(client)
      })
      server.once('error', reject)
      server.listen(onPort, '127.0.0.1', () => resolve((server.address() as { port: number }).port))
    })
  const stop = () =>
    new Promise<void>((resolve) => {
      for (const s of open) s.destroy()
      open.clear()
      if (!server.listening) return resolve()
      server.close(() => resolve())
    })

  const own = await listen(0)
  return {
    port: own,
    url: `http://127.0.0.1:${own}${path}`,
    wsUrl: `ws://127.0.0.1:${own}${path}`,
    cut: stop,
    freeze() {
      frozen = true
      for (const pair of pairs) hold(pair)
    },
    lag(ms) {
      lagMs = ms
    },
    async restore() {
      if (frozen) {
        frozen = false
        for (const [client, upstream] of pairs) {
          client.destroy()
          upstream.destroy()
        }
        pairs.clear()
      }
      if (!server.listening) await listen(own)
    },
    close: stop,
  }
}
