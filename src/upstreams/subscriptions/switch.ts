/**
 * Planned moves of the subscription hub's node connection (src/upstreams/subscriptions/connection.ts), "make before
 * break": every shared subscription is opened at the new node first, then the events switch over, then the old
 * connection is closed. Clients see what a failover gives them (every block number once and in order, logs without
 * gap or duplicate: src/upstreams/subscriptions/replay.ts), and nothing at all when the new node cannot be used
 * (the subscriptions stay where they are).
 *
 * Two reasons to move while the current node still works:
 * - preferred: the pool ranks another node first (a primary again healthy after a failover, or a better-ranked
 *   node) and it has answered `eth_chainId` on a fresh WebSocket at every check for `failbackMs` (hysteresis);
 * - unhealthy: the pool finds the current node lagging, down or cordoned (or it answers another chain id);
 * - removed: `chaingate reload` took the node out of the network's config (src/app/reload).
 */
import { errors } from '../../errors/index.ts'
import { createWsRpcConnection } from '../../jsonrpc/ws-connection.ts'
import { call, checkIdentity, type Conn } from './node-calls.ts'
import { PROTOCOLS } from './protocol.ts'
import type { NodeLinkParts } from './failover.ts'
import type { MoveReason, Shared } from './types.ts'

/** How often the preferred node is checked while the subscriptions are elsewhere: failbackMs / 4, within these. */
const MIN_CHECK_MS = 100
const MAX_CHECK_MS = 15_000

export interface SwitchContext extends NodeLinkParts {
  current(): Conn | undefined
  /** A failover is under way or the hub is closed: no planned move now. */
  busy(): boolean
  moves: Record<MoveReason, number>
}

export interface Switcher {
  /** Moves every shared subscription to `url`, make before break; false (nothing changed) when it could not. */
  moveTo(url: string, why: 'preferred' | 'unhealthy' | 'removed'): Promise<boolean>
  readonly moving: boolean
  close(): void
}

export function createSwitcher(ctx: SwitchContext): Switcher {
  const { opts, network, shared, replay, moves } = ctx
  const protocol = PROTOCOLS[opts.family ?? 'evm']
  let moving = false
  let stopped = false

  const moveTo = async (url: string, why: 'preferred' | 'unhealthy' | 'removed'): Promise<boolean> => {
    const from = ctx.current()
    if (from === undefined || from.dead || from.url === url || moving || ctx.busy()) return false
    moving = true
    const started = Date.now()
    const conn = ctx.open(url)
    const opened = new Map<Shared, string>()
    try {
      await checkIdentity(conn, network, opts)
      // Subscriptions made while this runs are opened too, until none is left.
      for (;;) {
        const todo = [...shared.values()].filter((s) => s.live && !opened.has(s))
        if (todo.length === 0) break
        const ids = await Promise.all(
          todo.map((s) => {
            const open = protocol.subscribe(s.params)
            return call(conn, open.method, open.params)
          }),
        )
        todo.forEach((s, i) => opened.set(s, protocol.nodeIdOf(ids[i])))
      }
      if (conn.dead || from.dead || ctx.current() !== from || ctx.busy())
        throw errors.upstreamUnavailable(network, 'the connection changed while moving')
    } catch (err) {
      // A refusal of one subscription too: the old node still serves it, so nobody is told anything.
      conn.dead = true
      conn.rpc.close()
      moving = false
      opts.log?.warn(
        { network, upstream: conn.label, err: (err as Error).message },
        'subscriptions not moved: staying on the current node',
      )
      return false
    }
    // The switch, in one go: events of the old node already queued are sent first, then what the new node has
    // that the clients miss (replay.sync), then the new node's own events.
    for (const [s, nodeId] of opened) {
      if (shared.get(s.key) !== s || s.nodeId === undefined) {
        // Its last client left meanwhile (or, one-shot, it ended).
        const end = protocol.unsubscribe(s.kind, nodeId)
        void call(conn, end.method, end.params).catch(() => undefined)
        continue
      }
      from.byNodeId.delete(s.nodeId)
      replay.run(s, async () => {
        if (conn.dead) return // dropped in turn: that failover's sync fills the gap
        if (s.kind === 'logs') replay.markResume(s)
        await replay.sync(conn, s)
      })
      ctx.register(conn, s, nodeId)
    }
    ctx.adopt(conn)
    from.dead = true
    clearInterval(from.heartbeat)
    from.rpc.close() // the node drops the old subscriptions with the socket
    moves[why]++
    moving = false
    opts.log?.info(
      {
        network,
        from: from.label,
        upstream: conn.label,
        afterMs: Date.now() - started,
        subscriptions: shared.size,
        reason: why,
      },
      'subscriptions moved',
    )
    return true
  }

  // ---- back to the preferred node ----
  const failbackMs = opts.failbackMs ?? 0
  /** The node ranked first while the subscriptions are on another: since when it answered every check. */
  let candidate: { url: string; on: Conn; upSince: number | undefined } | undefined
  let probing = false
  /** After a failed check, the node is not asked again before this (a node without WebSocket is not asked often). */
  const quietUntil = new Map<string, number>()

  const probe = async (url: string) => {
    const conn: Conn = {
      url,
      label: (opts.label ?? String)(url),
      rpc: undefined as never,
      byNodeId: new Map(),
      early: [],
      dead: false,
      heartbeat: undefined,
    }
    conn.rpc = createWsRpcConnection(url, {
      network,
      timeoutMs: Math.min(opts.timeoutMs, Math.max(1000, failbackMs)),
      onNotification: () => undefined,
      onClosed: () => undefined,
    })
    try {
      await checkIdentity(conn, network, opts)
    } finally {
      conn.rpc.close()
    }
  }

  const tick = () => {
    const conn = ctx.current()
    if (conn === undefined || conn.dead || moving || ctx.busy() || conn.byNodeId.size === 0)
      return void (candidate = undefined)
    const best = opts.wsUrls()[0]
    if (best === undefined || best === conn.url || (opts.isHealthy !== undefined && !opts.isHealthy(best)))
      return void (candidate = undefined)
    if (candidate === undefined || candidate.url !== best || candidate.on !== conn)
      candidate = { url: best, on: conn, upSince: undefined }
    if (probing || Date.now() < (quietUntil.get(best) ?? 0)) return
    probing = true
    const c = candidate
    probe(best).then(
      async () => {
        probing = false
        quietUntil.delete(best)
        if (candidate !== c || stopped) return
        c.upSince ??= Date.now()
        if (Date.now() - c.upSince < failbackMs) return
        if (!(await moveTo(best, 'preferred')) && candidate === c) c.upSince = undefined
      },
      () => {
        probing = false
        quietUntil.set(best, Date.now() + failbackMs)
        if (candidate === c) c.upSince = undefined
      },
    )
  }
  const timer =
    failbackMs > 0
      ? setInterval(tick, Math.min(MAX_CHECK_MS, Math.max(MIN_CHECK_MS, Math.round(failbackMs / 4))))
      : undefined
  timer?.unref()

  return {
    moveTo,
    get moving() {
      return moving
    },
    close() {
      stopped = true
      clearInterval(timer)
    },
  }
}
