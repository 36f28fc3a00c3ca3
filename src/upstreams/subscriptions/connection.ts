/**
 * The subscription hub's node connection (src/upstreams/subscriptions/hub.ts): one WebSocket to one node at a time
 * (src/jsonrpc/ws-connection.ts), its notifications routed to the shared subscriptions, a heartbeat that finds a
 * node that stopped answering, and the choice of the next node when it drops (healthy and preferred first, the
 * failed one last, with back-off) until `failoverMs` runs out. Planned moves while the node still works (back to
 * the preferred node; off a node the pool counts unhealthy) are make-before-break:
 * src/upstreams/subscriptions/switch.ts.
 */
import { errors } from '../../errors/index.ts'
import { createWsRpcConnection } from '../../jsonrpc/ws-connection.ts'
import type { Replay } from './replay.ts'
import { call, checkIdentity, NodeRpcError, type Conn } from './node-calls.ts'
import { PROTOCOLS } from './protocol.ts'
import { startHeartbeat } from './heartbeat.ts'
import { createSwitcher } from './switch.ts'
import type { HubOptions, MoveReason, Shared } from './types.ts'

export { call, NodeRpcError, toBig, type Conn } from './node-calls.ts'

const MOVE_LOG: Record<Exclude<MoveReason, 'gave-up' | 'preferred' | 'unhealthy' | 'removed'>, string> = {
  dropped: 'subscription connection lost: moving subscriptions',
  hung: 'subscription node stopped answering: moving subscriptions',
}

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 5000
/** Notifications that arrive before their eth_subscribe answer is processed, kept per connection. */
const MAX_EARLY = 256
/** A move off a removed node that finds another move or a failover under way is tried again this often, this long. */
const LEAVE_RETRY_MS = 100
const LEAVE_TRIES = 50

export interface NodeLink {
  /** The current connection, or the one being made. */
  connection(): Promise<Conn>
  /** `s` is `nodeId` on `conn` from now on (notifications that came before its answer are delivered). */
  register(conn: Conn, s: Shared, nodeId: string): void
  readonly current: Conn | undefined
  readonly closed: boolean
  readonly moves: Record<MoveReason, number>
  /** SubscriptionHub.leaveRemovedNode. */
  leaveRemovedNode(): Promise<boolean>
  /** Shutting down: no reconnection, the subscriptions forgotten, the connection closed. */
  close(): void
}

export function createNodeLink(
  network: string,
  opts: HubOptions,
  shared: Map<string, Shared>,
  replay: Replay,
): NodeLink {
  const { run, sync, markResume } = replay
  const protocol = PROTOCOLS[opts.family ?? 'evm']
  const label = opts.label ?? ((u: string) => u)
  let current: Conn | undefined
  let connecting: Promise<Conn> | undefined
  let closed = false
  let wake: (() => void) | undefined
  const moves: Record<MoveReason, number> = {
    dropped: 0,
    hung: 0,
    unhealthy: 0,
    preferred: 0,
    removed: 0,
    'gave-up': 0,
  }

  const onNotification = (conn: Conn, msg: { method?: string; params?: unknown }) => {
    const id = protocol.notificationId(msg)
    if (id === undefined) return
    const result = (msg.params as { result?: unknown }).result
    const s = conn.byNodeId.get(id)
    if (s === undefined) {
      if (conn.early.length < MAX_EARLY) conn.early.push({ id, result })
      return
    }
    deliver(conn, s, result)
  }

  const deliver = (conn: Conn, s: Shared, result: unknown) => {
    if (conn.dead || s.nodeId === undefined || conn.byNodeId.get(s.nodeId) !== s) return
    replay.deliver(conn, s, result)
  }

  const register = (conn: Conn, s: Shared, nodeId: string) => {
    s.nodeId = nodeId
    conn.byNodeId.set(nodeId, s)
    const early = conn.early.filter((e) => e.id === nodeId)
    if (early.length > 0) {
      conn.early = conn.early.filter((e) => e.id !== nodeId)
      // Sent a turn of the event loop later (the events after them queue behind): the node notified before its
      // answer was read (Solana's signatureSubscribe of a signature already there does so at once), and the client
      // that asked is to get its subscription id first and be there to take the event.
      run(s, () => new Promise<void>((resolve) => setImmediate(resolve)))
      for (const e of early) deliver(conn, s, e.result)
    }
  }

  const onClosed = (conn: Conn, why: 'dropped' | 'hung' = 'dropped') => {
    if (conn.dead) return
    conn.dead = true
    clearInterval(conn.heartbeat)
    conn.rpc.close() // not reopened by the next request: a new Conn is made
    if (conn !== current) return
    current = undefined
    for (const s of shared.values()) {
      s.nodeId = undefined
      if (s.kind === 'logs') markResume(s)
    }
    if (closed || shared.size === 0) return
    moves[why]++
    opts.log?.warn({ network, upstream: conn.label, subscriptions: shared.size }, MOVE_LOG[why])
    const lostAt = Date.now()
    connecting = establish(conn.url, opts.failoverMs)
      .then((next) => {
        opts.log?.info(
          { network, upstream: next.label, afterMs: Date.now() - lostAt, subscriptions: shared.size },
          'subscriptions resumed',
        )
        return next
      })
      .catch((err: Error) => {
        const reason = `no node of network ${network} reachable for subscriptions within ${
          opts.failoverMs
        } ms; subscribe again`
        moves['gave-up']++
        opts.log?.warn({ network, err: err.message }, 'subscriptions lost')
        const all = [...shared.values()]
        shared.clear()
        for (const s of all) for (const l of s.listeners) l.onLost(reason)
        throw err
      })
      .finally(() => {
        connecting = undefined
      })
    connecting.catch(() => undefined)
  }

  /** A new connection to `url` (opened by its first request), its events and drop handled here. */
  const open = (url: string): Conn => {
    const conn: Conn = {
      url,
      label: label(url),
      rpc: undefined as never,
      byNodeId: new Map(),
      early: [],
      dead: false,
      heartbeat: undefined,
    }
    conn.rpc = createWsRpcConnection(url, {
      network,
      timeoutMs: opts.timeoutMs,
      onNotification: (msg) => onNotification(conn, msg),
      onClosed: () => onClosed(conn),
    })
    return conn
  }

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
      if (conn.dead || closed) throw errors.upstreamUnavailable(network, 'the node closed the WebSocket connection')
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
        if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
        try {
          return await attach(url)
        } catch (err) {
          lastError = err
        }
      }
      if (closed || Date.now() - started + delayMs > forMs)
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

  const connection = (): Promise<Conn> => {
    if (current !== undefined && !current.dead) return Promise.resolve(current)
    if (connecting === undefined) {
      connecting = establish(undefined, 0).finally(() => {
        connecting = undefined
      })
    }
    return connecting
  }

  const adopt = (conn: Conn) => {
    current = conn
    startHeartbeat(conn, {
      opts,
      network,
      subscriptions: () => shared.size,
      moving: () => switcher.moving,
      moveTo: (url) => switcher.moveTo(url, 'unhealthy'),
      hung: () => onClosed(conn, 'hung'),
    })
  }
  const switcher = createSwitcher({
    opts,
    network,
    shared,
    replay,
    current: () => current,
    adopt,
    open,
    register,
    busy: () => closed || connecting !== undefined || current === undefined,
    moves,
  })

  return {
    connection,
    register,
    get current() {
      return current
    },
    get closed() {
      return closed
    },
    moves,
    async leaveRemovedNode() {
      for (let i = 0; i < LEAVE_TRIES && !closed; i++) {
        const conn = current
        const urls = opts.wsUrls()
        // Not connected (the next connection reads the new list), or still on a configured node.
        if (conn === undefined || conn.dead || urls.includes(conn.url)) return true
        if (conn.byNodeId.size === 0) {
          // Nothing to move: forget the connection; the next subscription connects to a configured node.
          onClosed(conn)
          return true
        }
        for (const url of urls) if (await switcher.moveTo(url, 'removed')) return true
        await new Promise((r) => setTimeout(r, LEAVE_RETRY_MS))
      }
      return false
    },
    close() {
      closed = true
      switcher.close()
      wake?.()
      shared.clear()
      clearInterval(current?.heartbeat)
      current?.rpc.close()
      current = undefined
    },
  }
}
