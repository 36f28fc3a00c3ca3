/**
 * The subscription hub's node connection (src/upstreams/subscriptions/hub.ts): one WebSocket to one node at a time
 * (src/jsonrpc/ws-connection.ts), its notifications routed to the shared subscriptions, a heartbeat that finds a
 * node that stopped answering, and, when it drops, a connection to the next node until `failoverMs` runs out
 * (src/upstreams/subscriptions/failover.ts). Planned moves while the node still works (back to the preferred node;
 * off a node the pool counts unhealthy) are make-before-break: src/upstreams/subscriptions/switch.ts.
 */
import { createWsRpcConnection } from '../../jsonrpc/ws-connection.ts'
import type { Replay } from './replay.ts'
import type { Conn } from './node-calls.ts'
import { PROTOCOLS } from './protocol.ts'
import { startHeartbeat } from './heartbeat.ts'
import { createSwitcher } from './switch.ts'
import { createFailover } from './failover.ts'
import type { HubOptions, MoveReason, Shared } from './types.ts'

export { call, NodeRpcError, toBig, type Conn } from './node-calls.ts'

const MOVE_LOG: Record<Exclude<MoveReason, 'gave-up' | 'preferred' | 'unhealthy' | 'removed'>, string> = {
  dropped: 'subscription connection lost: moving subscriptions',
  hung: 'subscription node stopped answering: moving subscriptions',
}

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
  const { run, markResume } = replay
  const protocol = PROTOCOLS[opts.family ?? 'evm']
  const label = opts.label ?? ((u: string) => u)
  let current: Conn | undefined
  let connecting: Promise<Conn> | undefined
  let closed = false
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
    connecting = failover
      .establish(conn.url, opts.failoverMs)
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

  const connection = (): Promise<Conn> => {
    if (current !== undefined && !current.dead) return Promise.resolve(current)
    if (connecting === undefined) {
      connecting = failover.establish(undefined, 0).finally(() => {
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
  const failover = createFailover({ opts, network, shared, replay, open, register, adopt, closed: () => closed })

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
      failover.wake()
      shared.clear()
      clearInterval(current?.heartbeat)
      current?.rpc.close()
      current = undefined
    },
  }
}
