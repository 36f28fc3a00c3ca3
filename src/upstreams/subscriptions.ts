/**
 * eth_subscribe against a network's nodes. One node subscription per (kind, filter) is shared by every client
 * subscription with the same parameters (ref-counted: the last client to leave unsubscribes at the node), over one
 * WebSocket to one node at a time (src/upstreams/ws-connection.ts).
 *
 * When that connection drops, every shared subscription moves to the next node in the pool's order
 * (UpstreamPool.wsUrls: healthy and preferred first; the node that just failed is tried last), or back to the same
 * node with back-off when it is the only one, and the gap is filled so clients do not notice:
 * - newHeads: every block number once and in order; blocks missed meanwhile are fetched with
 *   eth_getBlockByNumber and sent (header fields only, like a newHeads event) before the new node's own heads;
 *   heads the client already has are dropped;
 * - logs: eth_getLogs over the blocks the old node may not have covered; logs already sent are dropped;
 * - newPendingTransactions: resubscribed only (a mempool has no history to replay).
 * A node that keeps its socket open but stops answering is found by a periodic eth_chainId (`heartbeatMs`) and
 * left the same way. Only when no node can be reached for `failoverMs` are clients told (`onLost`; close code
 * 1013, docs/errors.md).
 */
import type { Registry } from 'prom-client'
import type { RpcErrorObject } from '../jsonrpc/envelope.ts'
import { errors } from '../errors/index.ts'
import { createWsRpcConnection, type WsRpcConnection } from './ws-connection.ts'

export interface NodeSubscription {
  /** The shared subscription's key (kind and filter); clients get their own ids from src/gateway/subscriptions.ts. */
  id: string
  unsubscribe(): Promise<void>
}

/** Called per event with the result and its JSON text (serialized once for every client of the subscription). */
export type EventHandler = (result: unknown, resultJson: string) => void

export interface SubscriptionHub {
  subscribe(params: unknown[], onEvent: EventHandler, onLost: (reason: string) => void): Promise<NodeSubscription>
  /** Node subscriptions currently held (one per distinct kind and filter). */
  readonly size: number
  /** The node the subscriptions are on now (redacted), if connected. */
  readonly upstream: string | undefined
  /** Times the subscriptions left a node, by why; `gave-up`: no node within failoverMs (clients closed, 1013). */
  readonly moves: Readonly<Record<MoveReason, number>>
  close(): Promise<void>
}

/** dropped: the connection closed; hung: no heartbeat answer; unhealthy: the pool found the node lagging or failing. */
export type MoveReason = 'dropped' | 'hung' | 'unhealthy' | 'gave-up'

const MOVE_LOG: Record<Exclude<MoveReason, 'gave-up'>, string> = {
  dropped: 'subscription connection lost: moving subscriptions',
  hung: 'subscription node stopped answering: moving subscriptions',
  unhealthy: 'subscription node lagging or failing for the pool: moving subscriptions',
}

/** A JSON-RPC error answer from the node, passed through to the client unchanged. */
export class NodeRpcError extends Error {
  readonly error: RpcErrorObject
  constructor(error: RpcErrorObject) {
    super(error.message)
    this.error = error
  }
}

export interface HubOptions {
  timeoutMs: number
  /** The nodes' WebSocket URLs, best first; read again at every (re)connection. */
  wsUrls: () => readonly string[]
  /** After a drop, how long to keep trying to reach a node before clients are told (gateway.subscriptionFailoverMs). */
  failoverMs: number
  /**
   * How often the node carrying subscriptions is asked something (eth_chainId) while it holds any: no answer within
   * max(1 s, this) (and at most timeoutMs) counts as a drop, so a node that keeps its socket open but stops
   * answering is left too (gateway.subscriptionHeartbeatMs; 0: never).
   */
  heartbeatMs?: number
  /**
   * Whether the pool counts a node healthy (not lagging, down or cordoned). At the heartbeat, a subscription node
   * found unhealthy twice in a row is left for a healthy one, like a dropped one (undefined: never left for that).
   */
  isHealthy?: (url: string) => boolean
  /** The network's chain id: a node answering another one is not used (undefined: not checked, embedded chains). */
  chainId?: number | undefined
  /** URL → the form logs may show (no credentials). */
  label?: (url: string) => string
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }
}

/** Longest gap of blocks replayed to newHeads clients after a switch; beyond it the oldest are skipped (logged). */
export const MAX_HEAD_FILL = 1024
/** Longest block range replayed to logs clients after a switch, and the size of each eth_getLogs. */
export const MAX_LOG_FILL_BLOCKS = 10_000
const LOG_FILL_CHUNK = 2000
const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 5000
/** Heartbeats in a row that find the subscription node unhealthy before it is left (hysteresis: no flapping). */
const LEAVE_AFTER_CHECKS = 2
/** Notifications that arrive before their eth_subscribe answer is processed, kept per connection. */
const MAX_EARLY = 256
/** Fields a block has and a newHeads event (a header) does not. */
const NOT_HEADER = ['transactions', 'uncles', 'size', 'totalDifficulty', 'withdrawals']

interface Listener {
  onEvent: EventHandler
  onLost(reason: string): void
}

interface Shared {
  key: string
  params: unknown[]
  kind: string
  listeners: Set<Listener>
  /** Subscribed at a node (false while the first eth_subscribe is under way). */
  live: boolean
  ready: Promise<void>
  /** The node's id on the current connection. */
  nodeId: string | undefined
  /** Live events and gap fills, in order: one task at a time. */
  tasks: (() => void | Promise<void>)[]
  running: boolean
  /** newHeads: number of the last head sent to clients. */
  lastHead: bigint | undefined
  /** newHeads: after a switch, until the new node passes lastHead (its older heads are duplicates). */
  catchingUp: boolean
  /** logs: block of the last log sent, and the logs of that block already sent (logIndex:removed). */
  lastLogBlock: bigint | undefined
  lastLogKeys: Set<string>
  /** logs: first block the subscription is responsible for (node head at subscribe + 1). */
  firstBlock: bigint | undefined
  /** logs: at a drop, the first block the old node may not have covered. */
  resumeFrom: bigint | undefined
  /** logs: after a gap fill, through this block live logs are checked against `filled`. */
  filledThrough: bigint | undefined
  filled: Set<string>
}

interface Conn {
  url: string
  label: string
  rpc: WsRpcConnection
  byNodeId: Map<string, Shared>
  early: { id: string; result: unknown }[]
  dead: boolean
  heartbeat: NodeJS.Timeout | undefined
}

const toBig = (hex: unknown): bigint | undefined => {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]{1,64}$/.test(hex)) return undefined
  return BigInt(hex)
}
const hex = (n: bigint) => `0x${n.toString(16)}`

/** The same key for the same filter whatever the order of its object members. */
export function subscriptionKey(params: unknown[]): string {
  const canon = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canon)
    if (v !== null && typeof v === 'object')
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, canon((v as Record<string, unknown>)[k])]),
      )
    return typeof v === 'string' && /^0x[0-9a-fA-F]*$/.test(v) ? v.toLowerCase() : v
  }
  return JSON.stringify(canon(params))
}

export function createSubscriptionHub(network: string, opts: HubOptions): SubscriptionHub {
  const label = opts.label ?? ((u: string) => u)
  const shared = new Map<string, Shared>()
  let current: Conn | undefined
  let connecting: Promise<Conn> | undefined
  let closed = false
  /** Highest head the old node sent (any newHeads subscription), for where a logs gap starts. */
  let headSeen: bigint | undefined
  let wake: (() => void) | undefined
  const moves: Record<MoveReason, number> = { dropped: 0, hung: 0, unhealthy: 0, 'gave-up': 0 }

  const call = async (conn: Conn, method: string, params: unknown[]): Promise<unknown> => {
    const answer = (await conn.rpc.request({ jsonrpc: '2.0', id: 1, method, params })) as { result?: unknown; error?: RpcErrorObject }
    if (answer.error) throw new NodeRpcError(answer.error)
    return answer.result
  }

  // ---- events, in order per shared subscription ----

  const run = (s: Shared, task: () => void | Promise<void>) => {
    s.tasks.push(task)
    if (!s.running) void drain(s)
  }
  const drain = async (s: Shared) => {
    s.running = true
    while (s.tasks.length > 0) {
      try {
        await s.tasks.shift()!()
      } catch (err) {
        // A fill that failed (the new node dropped too): the next connection's sync starts from what was sent.
        opts.log?.warn({ network, err: (err as Error).message }, 'subscription gap fill failed')
      }
    }
    s.running = false
  }

  const emit = (s: Shared, result: unknown) => {
    const json = JSON.stringify(result)
    for (const l of s.listeners) l.onEvent(result, json)
  }

  const logKey = (log: { logIndex?: unknown; removed?: unknown }) => `${String(log.logIndex)}:${log.removed === true ? 1 : 0}`

  const sendHead = (s: Shared, head: unknown, n: bigint) => {
    s.lastHead = n
    if (headSeen === undefined || n > headSeen) headSeen = n
    emit(s, head)
  }

  const sendLog = (s: Shared, log: { blockNumber?: unknown; logIndex?: unknown; removed?: unknown }, block: bigint | undefined) => {
    if (block !== undefined) {
      if (block !== s.lastLogBlock) {
        s.lastLogBlock = block
        s.lastLogKeys = new Set()
      }
      s.lastLogKeys.add(logKey(log))
    }
    emit(s, log)
  }

  const onHead = async (conn: Conn, s: Shared, head: unknown) => {
    const n = toBig((head as { number?: unknown } | null)?.number)
    if (n === undefined) return emit(s, head)
    if (s.catchingUp && s.lastHead !== undefined) {
      if (n <= s.lastHead) return // the client has this block number already
      if (n > s.lastHead + 1n) await fillHeads(conn, s, s.lastHead + 1n, n - 1n)
      s.catchingUp = false
    }
    sendHead(s, head, n)
  }

  const onLog = (s: Shared, log: { blockNumber?: unknown; logIndex?: unknown; removed?: unknown }) => {
    const block = toBig(log?.blockNumber)
    if (s.filledThrough !== undefined && block !== undefined) {
      if (block > s.filledThrough) {
        s.filledThrough = undefined
        s.filled = new Set()
      } else if (s.filled.has(`${block}:${logKey(log)}`) || (block === s.lastLogBlock && s.lastLogKeys.has(logKey(log)))) return
    }
    sendLog(s, log, block)
  }

  /** Blocks `from`..`to` from `conn`, sent as heads in order; stops at the first the node does not have. */
  const fillHeads = async (conn: Conn, s: Shared, from: bigint, to: bigint) => {
    if (to - from + 1n > BigInt(MAX_HEAD_FILL)) {
      opts.log?.warn({ network, from: String(from), to: String(to) }, `subscription gap longer than ${MAX_HEAD_FILL} blocks: only the newest are replayed`)
      from = to - BigInt(MAX_HEAD_FILL) + 1n
    }
    for (let start = from; start <= to; start += 16n) {
      const end = start + 15n < to ? start + 15n : to
      const numbers: bigint[] = []
      for (let n = start; n <= end; n++) numbers.push(n)
      const blocks = await Promise.all(numbers.map((n) => call(conn, 'eth_getBlockByNumber', [hex(n), false])))
      for (let i = 0; i < blocks.length; i++) {
        const block = blocks[i] as Record<string, unknown> | null
        if (block === null || typeof block !== 'object') return
        const head = { ...block }
        for (const k of NOT_HEADER) delete head[k]
        sendHead(s, head, numbers[i]!)
      }
    }
  }

  /** After a switch: what the client missed, from the new node. */
  const sync = async (conn: Conn, s: Shared) => {
    if (s.kind === 'newHeads') {
      if (s.lastHead === undefined) return
      s.catchingUp = true
      const head = toBig(await call(conn, 'eth_blockNumber', []))
      if (head !== undefined && head > s.lastHead) await fillHeads(conn, s, s.lastHead + 1n, head)
      return
    }
    if (s.kind !== 'logs' || s.resumeFrom === undefined) return
    const head = toBig(await call(conn, 'eth_blockNumber', []))
    if (head === undefined || head < s.resumeFrom) return
    let from = s.resumeFrom
    if (head - from + 1n > BigInt(MAX_LOG_FILL_BLOCKS)) {
      opts.log?.warn({ network, from: String(from), to: String(head) }, `subscription gap longer than ${MAX_LOG_FILL_BLOCKS} blocks: logs replayed for the newest only`)
      from = head - BigInt(MAX_LOG_FILL_BLOCKS) + 1n
    }
    const filter = { ...((s.params[1] ?? {}) as Record<string, unknown>) }
    delete filter.fromBlock
    delete filter.toBlock
    delete filter.blockHash
    s.filledThrough = head
    for (let start = from; start <= head; start += BigInt(LOG_FILL_CHUNK)) {
      const end = start + BigInt(LOG_FILL_CHUNK - 1) < head ? start + BigInt(LOG_FILL_CHUNK - 1) : head
      const logs = (await call(conn, 'eth_getLogs', [{ ...filter, fromBlock: hex(start), toBlock: hex(end) }])) as { blockNumber?: unknown; logIndex?: unknown }[] | null
      for (const log of logs ?? []) {
        const block = toBig(log?.blockNumber)
        if (block === undefined) continue
        const key = logKey(log)
        if (block === s.lastLogBlock && s.lastLogKeys.has(key)) continue
        s.filled.add(`${block}:${key}`)
        sendLog(s, log, block)
      }
      s.resumeFrom = end + 1n
    }
  }

  // ---- connections ----

  const onNotification = (conn: Conn, msg: { method?: string; params?: unknown }) => {
    const params = msg.params as { subscription?: string; result?: unknown } | undefined
    if (msg.method !== 'eth_subscription' || typeof params?.subscription !== 'string') return
    const s = conn.byNodeId.get(params.subscription)
    if (s === undefined) {
      if (conn.early.length < MAX_EARLY) conn.early.push({ id: params.subscription, result: params.result })
      return
    }
    deliver(conn, s, params.result)
  }

  const deliver = (conn: Conn, s: Shared, result: unknown) => {
    if (conn.dead || s.nodeId === undefined || conn.byNodeId.get(s.nodeId) !== s) return
    if (s.kind === 'newHeads') run(s, () => onHead(conn, s, result))
    else if (s.kind === 'logs') run(s, () => onLog(s, result as never))
    else run(s, () => emit(s, result))
  }

  const register = (conn: Conn, s: Shared, nodeId: string) => {
    s.nodeId = nodeId
    conn.byNodeId.set(nodeId, s)
    const early = conn.early.filter((e) => e.id === nodeId)
    if (early.length > 0) {
      conn.early = conn.early.filter((e) => e.id !== nodeId)
      for (const e of early) deliver(conn, s, e.result)
    }
  }

  const onClosed = (conn: Conn, why: Exclude<MoveReason, 'gave-up'> = 'dropped') => {
    if (conn.dead) return
    conn.dead = true
    clearInterval(conn.heartbeat)
    conn.rpc.close() // not reopened by the next request: a new Conn is made
    if (conn !== current) return
    current = undefined
    for (const s of shared.values()) {
      s.nodeId = undefined
      if (s.kind === 'logs') {
        let from = s.firstBlock
        if (s.lastLogBlock !== undefined && (from === undefined || s.lastLogBlock > from)) from = s.lastLogBlock
        // The old node's logs for its last head may not have arrived yet: that block is checked again.
        if (headSeen !== undefined && headSeen > 0n && (from === undefined || headSeen - 1n > from)) from = headSeen - 1n
        if (s.resumeFrom === undefined || (from !== undefined && from > s.resumeFrom)) s.resumeFrom = from
      }
    }
    if (closed || shared.size === 0) return
    moves[why]++
    opts.log?.warn({ network, upstream: conn.label, subscriptions: shared.size }, MOVE_LOG[why])
    const lostAt = Date.now()
    connecting = establish(conn.url, opts.failoverMs)
      .then((next) => {
        opts.log?.info({ network, upstream: next.label, afterMs: Date.now() - lostAt, subscriptions: shared.size }, 'subscriptions resumed')
        return next
      })
      .catch((err: Error) => {
        const reason = `no node of network ${network} reachable for subscriptions within ${opts.failoverMs} ms; subscribe again`
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

  /** A connection to `url` with every live shared subscription moved onto it. */
  const attach = async (url: string): Promise<Conn> => {
    const conn: Conn = { url, label: label(url), rpc: undefined as never, byNodeId: new Map(), early: [], dead: false, heartbeat: undefined }
    conn.rpc = createWsRpcConnection(url, {
      network,
      timeoutMs: opts.timeoutMs,
      onNotification: (msg) => onNotification(conn, msg),
      onClosed: () => onClosed(conn),
    })
    // Each moved subscription's replay runs before any live event of the new node (queued behind it), and only
    // once the connection is the current one.
    const gates: ((ok: boolean) => void)[] = []
    try {
      const chainId = toBig(await call(conn, 'eth_chainId', []))
      if (opts.chainId !== undefined && chainId !== BigInt(opts.chainId))
        throw errors.upstreamUnavailable(network, `${conn.label} is on chain ${String(chainId)}, not ${opts.chainId}`)
      for (const s of [...shared.values()]) {
        if (!s.live) continue
        const gate = new Promise<boolean>((resolve) => gates.push(resolve))
        run(s, async () => {
          if ((await gate) && s.nodeId !== undefined && conn.byNodeId.get(s.nodeId) === s) await sync(conn, s)
        })
        try {
          const nodeId = String(await call(conn, 'eth_subscribe', s.params))
          if (shared.get(s.key) !== s) {
            // Its last client left while it was being moved: not kept at the new node either.
            void call(conn, 'eth_unsubscribe', [nodeId]).catch(() => undefined)
            continue
          }
          register(conn, s, nodeId)
        } catch (err) {
          if (!(err instanceof NodeRpcError)) throw err
          // This node refuses this subscription (e.g. no mempool): its clients are told, the others move on.
          shared.delete(s.key)
          for (const l of s.listeners) l.onLost(`the node of network ${network} refused the subscription: ${err.message}`.slice(0, 120))
        }
      }
      if (conn.dead || closed) throw errors.upstreamUnavailable(network, 'the node closed the WebSocket connection')
    } catch (err) {
      conn.dead = true
      conn.rpc.close()
      for (const open of gates) open(false)
      throw err
    }
    current = conn
    watch(conn)
    for (const open of gates) open(true)
    return conn
  }

  /** A node that stops answering while holding subscriptions is treated as dropped (its socket may stay open). */
  const watch = (conn: Conn) => {
    const everyMs = opts.heartbeatMs ?? 0
    if (everyMs <= 0) return
    const waitMs = Math.min(opts.timeoutMs, Math.max(1000, everyMs))
    let asking = false
    let unhealthy = 0
    conn.heartbeat = setInterval(() => {
      if (conn.dead || asking || conn.byNodeId.size === 0) return
      const healthy = opts.isHealthy
      if (healthy !== undefined && !healthy(conn.url)) {
        // Lagging (its heads late against what calls are served at) or failing calls: a healthy node is better.
        if (++unhealthy >= LEAVE_AFTER_CHECKS && opts.wsUrls().some((u) => u !== conn.url && healthy(u))) {
          onClosed(conn, 'unhealthy')
          return
        }
      } else unhealthy = 0
      asking = true
      // Any answer, an error too, shows the node is there.
      conn.rpc.request({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }, waitMs).then(
        () => {
          asking = false
        },
        () => {
          asking = false
          if (!conn.dead) onClosed(conn, 'hung')
        },
      )
    }, everyMs)
    conn.heartbeat.unref()
  }

  /** Tries every node (the one that just failed last); with `forMs` > 0, again with back-off until then. */
  const establish = async (failedUrl: string | undefined, forMs: number): Promise<Conn> => {
    const started = Date.now()
    let delayMs = FIRST_RETRY_MS
    let lastError: unknown
    for (;;) {
      const all = opts.wsUrls()
      const urls = failedUrl === undefined ? all : [...all.filter((u) => u !== failedUrl), ...all.filter((u) => u === failedUrl)]
      for (const url of urls) {
        if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
        try {
          return await attach(url)
        } catch (err) {
          lastError = err
        }
      }
      if (closed || Date.now() - started + delayMs > forMs) throw lastError ?? errors.upstreamUnavailable(network, 'no WebSocket node configured')
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

  const release = async (s: Shared, listener: Listener) => {
    if (!s.listeners.delete(listener) || s.listeners.size > 0) return
    if (shared.get(s.key) === s) shared.delete(s.key)
    const conn = current
    const nodeId = s.nodeId
    s.nodeId = undefined
    if (conn === undefined || nodeId === undefined || conn.byNodeId.get(nodeId) !== s) return
    conn.byNodeId.delete(nodeId)
    await call(conn, 'eth_unsubscribe', [nodeId]).catch(() => undefined)
  }

  return {
    async subscribe(params, onEvent, onLost) {
      if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
      const key = subscriptionKey(params)
      let s = shared.get(key)
      if (s === undefined) {
        const created: Shared = {
          key,
          params,
          kind: String(params[0]),
          listeners: new Set(),
          live: false,
          ready: Promise.resolve(),
          nodeId: undefined,
          tasks: [],
          running: false,
          lastHead: undefined,
          catchingUp: false,
          lastLogBlock: undefined,
          lastLogKeys: new Set(),
          firstBlock: undefined,
          resumeFrom: undefined,
          filledThrough: undefined,
          filled: new Set(),
        }
        s = created
        shared.set(key, created)
        created.ready = (async () => {
          // A drop between the node's answer and here: the next connection's attach did not see this one yet.
          for (;;) {
            const conn = await connection()
            const nodeId = String(await call(conn, 'eth_subscribe', params))
            if (created.kind === 'logs' && created.firstBlock === undefined) {
              const head = toBig(await call(conn, 'eth_blockNumber', []).catch(() => undefined))
              if (head !== undefined) created.firstBlock = head + 1n
            }
            if (conn.dead || closed) {
              if (closed) throw errors.upstreamUnavailable(network, 'shutting down')
              continue
            }
            created.live = true
            register(conn, created, nodeId)
            return
          }
        })()
        created.ready.catch(() => {
          if (shared.get(key) === created) shared.delete(key)
        })
      }
      const listener: Listener = { onEvent, onLost }
      const joined = s
      joined.listeners.add(listener)
      try {
        await joined.ready
      } catch (err) {
        joined.listeners.delete(listener)
        throw err
      }
      return { id: key, unsubscribe: () => release(joined, listener) }
    },
    get size() {
      return shared.size
    },
    get upstream() {
      return current?.label
    },
    moves,
    async close() {
      closed = true
      wake?.()
      shared.clear()
      clearInterval(current?.heartbeat)
      current?.rpc.close()
      current = undefined
    },
  }
}

/** /metrics: node subscriptions held per network and how often they moved (docs/subscriptions.md). */
export function registerSubscriptionMetrics(registry: Registry, hubs: ReadonlyMap<string, SubscriptionHub>): void {
  const metric = (name: string, help: string, type: 'gauge' | 'counter', values: () => { labels: Record<string, string>; value: number }[]) =>
    registry.registerMetric({ name, help, type, aggregator: 'sum', get: async () => ({ name, help, type, aggregator: 'sum', values: values() }) } as never)
  metric('chaingate_upstream_subscriptions', 'Node subscriptions held, one per kind and filter shared by every client', 'gauge', () =>
    [...hubs].map(([network, h]) => ({ labels: { network }, value: h.size })),
  )
  metric(
    'chaingate_subscription_moves_total',
    'Times a network\'s subscriptions left their node, by reason (dropped, hung, unhealthy); gave-up: no node within gateway.subscriptionFailoverMs, clients closed with 1013',
    'counter',
    () => [...hubs].flatMap(([network, h]) => (Object.keys(h.moves) as MoveReason[]).map((reason) => ({ labels: { network, reason }, value: h.moves[reason] }))),
  )
}
