/**
 * eth_subscribe against a network's nodes (on a Solana network its PubSub methods: how each family is spoken to is
 * ./protocol.ts; Solana's events, without replay, ./solana-events.ts). One node subscription per (kind, filter) is
 * shared by every client subscription with the same parameters (ref-counted: the last client to leave unsubscribes
 * at the node), over one WebSocket to one node at a time (src/jsonrpc/ws-connection.ts).
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
 * 1013, docs/errors.md). While the node works, the subscriptions still move, make before break and with the same
 * guarantees: back to the node ranked first once it has answered for `failbackMs`, and off a node the pool counts
 * unhealthy (src/upstreams/subscriptions/switch.ts).
 *
 * This module is the hub: the shared subscriptions, ref-counted by their clients. The node connection (heartbeat,
 * failover choice) is src/upstreams/subscriptions/connection.ts; event order and gap replay are
 * src/upstreams/subscriptions/replay.ts.
 */
import { type SubscriptionKind, type SubscriptionKindName, subscriptionKinds } from '../../methods/catalog.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import { errors } from '../../errors/index.ts'
import { newHistogram, type Histogram } from '../../observability/histogram.ts'
import { call, createNodeLink, NodeRpcError, toBig } from './connection.ts'
import { FANOUT_BUCKETS, type EventGroup, type EventHandler } from './fanout.ts'
import { EVM_PROTOCOL, PROTOCOLS } from './protocol.ts'
import { createReplay } from './replay.ts'
import { createSolanaEvents } from './solana-events.ts'
import type { HubOptions, Listener, MoveReason, Shared } from './types.ts'

export { NodeRpcError } from './connection.ts'
export type { EventGroup, EventHandler } from './fanout.ts'
export type { HubOptions, MoveReason } from './types.ts'
export { MAX_HEAD_FILL, MAX_LOG_FILL_BLOCKS } from './replay.ts'

/** Each family's replay rule by kind (the catalogs'), read once per node subscription. */
const REPLAYS: Readonly<Record<ChainFamily, ReadonlyMap<SubscriptionKindName, SubscriptionKind['replay']>>> = {
  evm: new Map(subscriptionKinds('evm').map((k) => [k.kind, k.replay])),
  solana: new Map(subscriptionKinds('solana').map((k) => [k.kind, k.replay])),
}

export interface NodeSubscription {
  /**
   * The shared subscription's key (kind and filter); clients get their own ids from
   * src/gateway/pipeline/client-subscriptions.ts.
   */
  id: string
  unsubscribe(): Promise<void>
}

export interface SubscriptionHub {
  /** `group`: listeners prepared and settled together per event (src/upstreams/subscriptions/fanout.ts). */
  subscribe(
    params: unknown[],
    onEvent: EventHandler,
    onLost: (reason: string) => void,
    group?: EventGroup,
  ): Promise<NodeSubscription>
  /** Node subscriptions currently held (one per distinct kind and filter). */
  readonly size: number
  /** The network's chain family (its subscription kinds). */
  readonly family: ChainFamily
  /** The node subscriptions held, with their clients (/metrics reads them when scraped: ./metrics.ts). */
  held(): Iterable<Pick<Shared, 'kind' | 'listeners'>>
  /** Fan-out times by kind (chaingate_subscription_fanout_seconds), for the kinds subscribed to so far. */
  readonly fanout: ReadonlyMap<string, Histogram>
  /** The node the subscriptions are on now (redacted), if connected. */
  readonly upstream: string | undefined
  /** Times the subscriptions left a node, by why; `gave-up`: no node within failoverMs (clients closed, 1013). */
  readonly moves: Readonly<Record<MoveReason, number>>
  /**
   * After `chaingate reload` changed the network's nodes: if the subscriptions are on a node no longer in
   * `wsUrls()`, moves them to a configured one, make before break. False when they could not move (they stay where
   * they are until that node drops; then the usual failover takes the new list).
   */
  leaveRemovedNode(): Promise<boolean>
  close(): Promise<void>
}

/** The same key for the same filter whatever the order of its object members (EVM). */
export const subscriptionKey = (params: unknown[]): string => EVM_PROTOCOL.key(params)

export function createSubscriptionHub(network: string, opts: HubOptions): SubscriptionHub {
  const shared = new Map<string, Shared>()
  const protocol = PROTOCOLS[opts.family ?? 'evm']
  const replay = protocol.family === 'evm' ? createReplay(network, opts) : createSolanaEvents(network, opts, shared)
  const link = createNodeLink(network, opts, shared, replay)
  const { connection, register } = link
  // The operator hears of a full hub once a minute at most, not once per refused client.
  let warnedAt = Number.NEGATIVE_INFINITY
  // One per kind of the family's catalog (a kind outside it, never let through by the callers, would share `other`).
  const fanout = new Map<string, Histogram>()
  const fanoutOf = (kind: string) => {
    const k = REPLAYS[protocol.family].has(kind as SubscriptionKindName) ? kind : 'other'
    let h = fanout.get(k)
    if (h === undefined) fanout.set(k, (h = newHistogram(FANOUT_BUCKETS)))
    return h
  }

  const release = async (s: Shared, listener: Listener) => {
    if (!s.listeners.delete(listener) || s.listeners.size > 0) return
    if (shared.get(s.key) === s) shared.delete(s.key)
    const conn = link.current
    const nodeId = s.nodeId
    s.nodeId = undefined
    if (conn === undefined || nodeId === undefined || conn.byNodeId.get(nodeId) !== s) return
    conn.byNodeId.delete(nodeId)
    const end = protocol.unsubscribe(s.kind, nodeId)
    await call(conn, end.method, end.params).catch(() => undefined)
  }

  return {
    async subscribe(params, onEvent, onLost, group) {
      if (link.closed) throw errors.upstreamUnavailable(network, 'shutting down')
      const key = protocol.key(params)
      let s = shared.get(key)
      if (s === undefined) {
        // Checked and counted in this synchronous step (the entry is added below before any await): a burst of new
        // filters cannot pass the cap.
        const max = opts.maxSubscriptions
        if (max !== undefined && shared.size >= max) {
          if (Date.now() - warnedAt >= 60_000) {
            warnedAt = Date.now()
            opts.log?.warn({ network, max }, 'node subscriptions at gateway.maxUpstreamSubscriptionsPerNetwork')
          }
          throw errors.upstreamSubscriptionLimit(network, max)
        }
        const created: Shared = {
          key,
          params,
          // The kind first: checked against the family's catalog by the caller (client-subscriptions).
          kind: params[0] as SubscriptionKindName,
          replay: REPLAYS[protocol.family].get(params[0] as SubscriptionKindName),
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
          lastSlot: undefined,
          slotKeys: new Set(),
          received: false,
          fanout: fanoutOf(params[0] as string),
          sent: 0,
        }
        s = created
        shared.set(key, created)
        created.ready = (async () => {
          // A drop between the node's answer and here: the next connection's attach did not see this one yet.
          const open = protocol.subscribe(params)
          for (;;) {
            const conn = await connection()
            let nodeId: string
            try {
              nodeId = protocol.nodeIdOf(await call(conn, open.method, open.params))
            } catch (err) {
              // The connection closed under it (a drop, or a move to another node): asked again on the next one.
              if (conn.dead && !link.closed && !(err instanceof NodeRpcError)) continue
              throw err
            }
            if (created.replay === 'logs' && created.firstBlock === undefined) {
              const head = toBig(await call(conn, 'eth_blockNumber', []).catch(() => undefined))
              if (head !== undefined) created.firstBlock = head + 1n
            }
            if (conn.dead || link.closed) {
              if (link.closed) throw errors.upstreamUnavailable(network, 'shutting down')
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
      const listener: Listener = { onEvent, onLost, group }
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
    family: protocol.family,
    held: () => shared.values(),
    fanout,
    get upstream() {
      return link.current?.label
    },
    moves: link.moves,
    leaveRemovedNode: () => link.leaveRemovedNode(),
    async close() {
      link.close()
    },
  }
}
