/**
 * The subscriptions of one connection (a client WebSocket, or the in-process client): eth_subscribe and
 * eth_unsubscribe — on a Solana network each kind's `*Subscribe` and `*Unsubscribe` — are *local methods* of the
 * pipeline (admitted, charged and recorded like any call) backed by the network's node subscriptions
 * (src/upstreams/subscriptions/hub.ts: one per kind and filter, shared by every client, moved to another node when
 * one drops). Solana's subscription ids are integers and its unsubscribe of an unknown id an error, as a validator
 * answers (https://solana.com/docs/rpc/websocket); a signature subscription ends with its notification.
 *
 * Events are charged per the event table (docs/errors.md; https://docs.metamask.io/services/get-started/pricing/):
 * newHeads per block, logs at most once per block, newPendingTransactions at most once per second. An event is
 * charged only when it is delivered, and never beyond the day's balance: the event that uses up the balance costs
 * what was left, then the connection is told the balance ran out. The charge is reserved, refunded and written to
 * the ledger once per key and event for all its subscribers (./event-charges.ts).
 */
import { randomBytes } from 'node:crypto'
import { ChaingateError, errors } from '../../errors/index.ts'
import { serializeError, serializeResult, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { RpcCall } from '../../jsonrpc/types.ts'
import type { Tracing } from '../../observability/tracing.ts'
import { NodeRpcError, type NodeSubscription, type SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { delivered, joinGroup, type Notification, type Round, take } from './event-charges.ts'
import { createSettle } from './steps/settle.ts'
import type { LocalMethod, SubscriptionDeps } from './types.ts'
import {
  type ChainFamily,
  type EventCharge,
  type SubscriptionKind,
  type SubscriptionKindName,
  subscriptionKinds,
} from '../../methods/catalog.ts'
import type { EventHandler } from '../../upstreams/subscriptions/fanout.ts'
import { isFinalNotification } from '../../upstreams/subscriptions/protocol.ts'

export interface SubscriptionIo {
  /**
   * Writes an event's notification to `subscription` (FRAME_HEAD, the id, `n.tail`: ./event-charges.ts); false when
   * it could not be delivered (then it is not charged).
   */
  deliver?(subscription: string, n: Notification): boolean
  /** In process (the wallet): takes an event as a value instead of text; false as for deliver. */
  event?(subscription: string, result: unknown): boolean
  /** The node's subscription connection dropped. */
  lost(reason: string): void
  /** The account's daily balance is used up. */
  exhausted(): void
}

export interface Subscriptions {
  /** eth_subscribe / eth_unsubscribe, for CallContext.local. */
  readonly local: ReadonlyMap<string, LocalMethod>
  readonly size: number
  dispose(): Promise<void>
}

interface ClientSubscription {
  node: NodeSubscription
  kind: SubscriptionKindName
  /** Which of its events are charged (its kind's rule in the catalog). */
  charge: EventCharge
  /** Leaves the key's fan-out group and frees its slot of the key's cap (once, however often called). */
  release(): void
  lastChargedBlock?: string | undefined
  lastChargedMs?: number | undefined
}

/** eth_subscribe's kinds by name (the EVM catalog's). */
const KINDS: ReadonlyMap<string, SubscriptionKind> = new Map(subscriptionKinds('evm').map((k) => [k.kind, k]))
const KIND_LIST = [...KINDS.keys()].join(', ')
/** Solana's kinds, a method pair each (accountSubscribe / accountUnsubscribe …). */
const SOLANA_KINDS = subscriptionKinds('solana')

/** How serde names a JSON value that is not a u64, in Agave's -32602 answer to an unsubscribe. */
const notU64 = (v: unknown) =>
  `invalid type: ${
    v === undefined || v === null
      ? 'null'
      : typeof v === 'string'
        ? 'string'
        : typeof v === 'boolean'
          ? 'boolean'
          : typeof v === 'number'
            ? Number.isInteger(v)
              ? 'integer'
              : 'floating point'
            : Array.isArray(v)
              ? 'sequence'
              : 'map'
  }, expected u64.`

/**
 * A delivered event as its own span (under the upgrade's trace when the client sent one), named as its notification
 * (`eth_subscription`, Solana's `slotNotification` …).
 */
const traceEvent = (
  tracing: Tracing,
  parent: string | undefined,
  { name, kind, id, charged }: { name: string; kind: SubscriptionKindName; id: string; charged: number },
) =>
  tracing
    .start(name, parent, {
      'chaingate.transport': 'ws',
      'chaingate.subscription.kind': kind,
      'chaingate.subscription.id': id,
      'chaingate.credits.charged': charged,
    })
    ?.end()

export function createSubscriptions(
  /** `traceparent`: the WebSocket upgrade's, the parent of traced events; `family`: the network's (default evm). */
  owner: {
    accountId: string
    keyId: string
    network: string
    traceparent?: string | undefined
    family?: ChainFamily | undefined
  },
  hub: SubscriptionHub,
  deps: SubscriptionDeps,
  io: SubscriptionIo,
): Subscriptions {
  const subs = new Map<string, ClientSubscription>()
  const settle = createSettle(deps)
  let opening = 0
  let disposed = false
  const solana = owner.family === 'solana'
  /** Solana: this connection's next subscription id. */
  let nextId = 0

  const due = (sub: ClientSubscription, result: unknown, now: number): boolean => {
    if (sub.charge === 'per-block') {
      const block = (result as { blockNumber?: string })?.blockNumber
      const d = block === undefined || block !== sub.lastChargedBlock
      sub.lastChargedBlock = block
      return d
    }
    if (sub.charge === 'per-second') {
      const d = sub.lastChargedMs === undefined || now - sub.lastChargedMs >= 1000
      if (d) sub.lastChargedMs = now
      return d
    }
    return true
  }

  // The key's charge for an event is reserved once for all its subscribers before the fan-out reaches them (with
  // Redis it may wait for Redis: the hub holds the fan-out meanwhile, so events still arrive in order).
  const exhausted = () => io.exhausted()
  const handleEvent = (clientId: string, result: unknown, round: Round) => {
    const sub = subs.get(clientId)
    if (!sub || disposed || round.entry === undefined) return
    const charged = take(round, due(sub, result, round.now), exhausted)
    if (charged === undefined) return
    const ok = io.event ? io.event(clientId, result) : io.deliver!(clientId, round)
    // Not written (socket closed, client not reading): not charged, its share is refunded with the round.
    if (!ok) return
    delivered(round, charged, exhausted)
    if (deps.tracing?.on)
      traceEvent(deps.tracing, owner.traceparent, {
        name: solana ? `${sub.kind}Notification` : 'eth_subscription',
        kind: sub.kind,
        id: clientId,
        charged,
      })
  }

  const reply = (call: RpcCall, error: ChaingateError) =>
    call.hasId ? serializeError(call.id, toErrorObject(error)) : undefined

  const subscribe = async (call: RpcCall): Promise<string | undefined> => {
    const params = Array.isArray(call.params) ? call.params : []
    const kind = typeof params[0] === 'string' ? KINDS.get(params[0]) : undefined
    if (kind === undefined) return reply(call, errors.invalidParams(`parameter 1 must be one of ${KIND_LIST}`))
    return open(call, kind, params)
  }

  /** Solana's signature subscription, after its last notification: gone, as at the node. */
  const ended = (clientId: string) => {
    const sub = subs.get(clientId)
    if (sub === undefined) return
    subs.delete(clientId)
    sub.release()
    void sub.node.unsubscribe().catch(() => undefined)
  }

  /** `params`: the hub's, the kind first (EVM: eth_subscribe's own; Solana: the kind, then the method's params). */
  const open = async (call: RpcCall, k: SubscriptionKind, params: unknown[]): Promise<string | undefined> => {
    const kind = k.kind
    // Counted before the node answers, so a burst of eth_subscribe cannot pass the cap.
    if (subs.size + opening >= deps.maxSubscriptions)
      return reply(call, errors.subscriptionLimit(deps.maxSubscriptions))
    // The key's cap across its connections: its plan's, read now (a reload may have changed it), else the gateway's.
    let freeSlot: (() => void) | undefined
    if (deps.keyCap) {
      const max = deps.keys.byId(owner.keyId)?.plan.maxSubscriptionsPerKey ?? deps.keyCap.max
      freeSlot = deps.keyCap.perKey.take(owner.keyId, max)
      if (!freeSlot) return reply(call, errors.keySubscriptionLimit(max))
    }
    const clientId = solana ? String(nextId++) : `0x${randomBytes(16).toString('hex')}`
    opening++
    const group = joinGroup(deps, settle, owner, kind)
    const release = () => {
      group.release()
      freeSlot?.()
    }
    let kept = false
    try {
      const onEvent: EventHandler =
        solana && kind === 'signature'
          ? (result, _json, round) => {
              handleEvent(clientId, result, round as Round)
              if (isFinalNotification('solana', kind, result)) ended(clientId)
            }
          : (result, _json, round) => handleEvent(clientId, result, round as Round)
      const node = await hub.subscribe(
        params,
        onEvent,
        (reason) => {
          subs.delete(clientId)
          release()
          if (!disposed) io.lost(reason)
        },
        group.group,
      )
      if (disposed) {
        await node.unsubscribe()
        return undefined
      }
      subs.set(clientId, { node, kind, charge: k.charge, release })
      kept = true
      return call.hasId ? serializeResult(call.id, solana ? Number(clientId) : clientId) : undefined
    } catch (err) {
      if (err instanceof NodeRpcError) return call.hasId ? serializeError(call.id, err.error) : undefined
      if (err instanceof ChaingateError && err.code === 'UPSTREAM_SUBSCRIPTION_LIMIT') return reply(call, err)
      throw err
    } finally {
      opening--
      if (!kept) release()
    }
  }

  const unsubscribe = async (call: RpcCall): Promise<string | undefined> => {
    const id = Array.isArray(call.params) ? call.params[0] : undefined
    if (typeof id !== 'string') return reply(call, errors.invalidParams('parameter 1 must be a subscription id'))
    const sub = subs.get(id)
    if (sub) {
      subs.delete(id)
      sub.release()
      await sub.node.unsubscribe()
    }
    return call.hasId ? serializeResult(call.id, sub !== undefined) : undefined
  }

  /**
   * Solana: any kind's unsubscribe ends any of the connection's subscriptions by id, as Agave does (one table of a
   * connection's subscriptions, agave rpc/src/rpc_pubsub.rs); `true`, or -32602 `Invalid subscription id.`.
   */
  const unsubscribeSolana = async (call: RpcCall): Promise<string | undefined> => {
    const id = Array.isArray(call.params) ? call.params[0] : undefined
    if (!Number.isSafeInteger(id) || (id as number) < 0) return reply(call, errors.invalidParams(notU64(id)))
    const sub = subs.get(String(id))
    if (sub === undefined) return reply(call, errors.subscriptionIdUnknown())
    subs.delete(String(id))
    sub.release()
    await sub.node.unsubscribe()
    return call.hasId ? serializeResult(call.id, true) : undefined
  }

  const local = new Map<string, LocalMethod>(
    solana
      ? SOLANA_KINDS.flatMap((k): [string, LocalMethod][] => [
          [k.subscribe, (call) => open(call, k, [k.kind, ...(Array.isArray(call.params) ? call.params : [])])],
          [k.unsubscribe, unsubscribeSolana],
        ])
      : [
          ['eth_subscribe', subscribe],
          ['eth_unsubscribe', unsubscribe],
        ],
  )

  return {
    local,
    get size() {
      return subs.size
    },
    async dispose() {
      if (disposed) return
      disposed = true
      const all = [...subs.values()]
      subs.clear()
      for (const s of all) s.release()
      await Promise.all(all.map((s) => s.node.unsubscribe().catch(() => undefined)))
    },
  }
}
