/**
 * Connecting the subscription hub's node link (src/upstreams/subscriptions/connection.ts) to a node, at first use and
 * after a drop: every node in the pool's order (healthy and preferred first, the failed one last), again with
 * back-off until `failoverMs` runs out. On the node found, every live shared subscription is opened again, its missed
 * events replayed (src/upstreams/subscriptions/replay.ts) before any live one of the new node.
 */
import { errors } from '../../errors/index.ts'
import { call, checkIdentity, NodeRpcError, type Conn } from './node-calls.ts'
import { PROTOCOLS } from './protocol.ts'
import type { Replay } from './replay.ts'
import type { HubOptions, Shared } from './types.ts'

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 5000

/** What a failover and a planned move (switch.ts) both get from the node link. */
export interface NodeLinkParts {
  opts: HubOptions
  network: string
  shared: Map<string, Shared>
  replay: Replay
  /** A new connection to `url` (opened by its first request), its events and drop handled by the link. */
  open(url: string): Conn
  register(conn: Conn, s: Shared, nodeId: string): void
  /** Makes `conn` the current connection (its heartbeat started). */
  adopt(conn: Conn): void
}

export interface FailoverContext extends NodeLinkParts {
  /** The link is shut down: no more tries. */
  closed(): boolean
}

export interface Failover {
  /** Tries every node (the one that just failed last); with `forMs` > 0, again with back-off until then. */
  establish(failedUrl: string | undefined, forMs: number): Promise<Conn>
  /** Ends the back-off wait under way, if any (shutting down). */
  wake(): void
}

export function createFailover(ctx: FailoverContext): Failover {
  const { opts, network, shared, replay, open, register, adopt } = ctx
  const { run, sync } = replay
  const protocol = PROTOCOLS[opts.family ?? 'evm']
  let wake: (() => void) | undefined

  /** After a drop: a connection to `url` with every live shared subscription moved onto it. */
  const attach = async (url: string): Promise<Conn> => {
    const conn = open(url)
    // Each moved subscription's replay runs before any live event of the new node (queued behind it), and only
    // once the connection is the current one.
    const gates: ((ok: boolean) => void)[] = []
    try {
      await checkIdentity(conn, network, opts)
      for (const s of [...shared.values()]) {
        if (!s.live) continue
        const gate = new Promise<boolean>((resolve) => gates.push(resolve))
        run(s, async () => {
          if ((await gate) && s.nodeId !== undefined && conn.byNodeId.get(s.nodeId) === s) await sync(conn, s)
        })
        try {
          const open = protocol.subscribe(s.params)
          const nodeId = protocol.nodeIdOf(await call(conn, open.method, open.params))
          if (shared.get(s.key) !== s) {
            // Its last client left (or, one-shot, it ended) while it was being moved: not kept at the new node.
            const end = protocol.unsubscribe(s.kind, nodeId)
            void call(conn, end.method, end.params).catch(() => undefined)
            continue
          }
          register(conn, s, nodeId)
        } catch (err) {
          if (!(err instanceof NodeRpcError)) throw err
          // This node refuses this subscription (e.g. no mempool): its clients are told, the others move on.
          shared.delete(s.key)
          for (const l of s.listeners)
            l.onLost(`the node of network ${network} refused the subscription: ${err.message}`.slice(0, 120))
        }
      }
      if (conn.dead || ctx.closed())
        throw errors.upstreamUnavailable(network, 'the node closed the WebSocket connection')
    } catch (err) {
      conn.dead = true
      conn.rpc.close()
      for (const release of gates) release(false)
      throw err
    }
    adopt(conn)
    for (const release of gates) release(true)
    return conn
  }

  /** Tries every node (the one that just failed last); with `forMs` > 0, again with back-off until then. */
  const establish = async (failedUrl: string | undefined, forMs: number): Promise<Conn> => {
    const started = Date.now()
    let delayMs = FIRST_RETRY_MS
    let lastError: unknown
    for (;;) {
      const all = opts.wsUrls()
      const urls =
        failedUrl === undefined ? all : [...all.filter((u) => u !== failedUrl), ...all.filter((u) => u === failedUrl)]
      for (const url of urls) {
        if (ctx.closed()) throw errors.upstreamUnavailable(network, 'shutting down')
        try {
          return await attach(url)
        } catch (err) {
          lastError = err
        }
      }
      if (ctx.closed() || Date.now() - started + delayMs > forMs)
        throw lastError ?? errors.upstreamUnavailable(network, 'no WebSocket node configured')
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delayMs)
        timer.unref()
        wake = () => {
          clearTimeout(timer)
          resolve()
        }
      })
      wake = undefined
      delayMs = Math.min(delayMs * 2, MAX_RETRY_MS)
    }
  }

  return {
    establish,
    wake: () => wake?.(),
  }
}
