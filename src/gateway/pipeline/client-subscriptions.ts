/**
 * The subscriptions of one connection (a client WebSocket, or the in-process client): eth_subscribe and
 * eth_unsubscribe are *local methods* of the pipeline (admitted, charged and recorded like any call) backed by
 * the network's node subscriptions (src/upstreams/subscriptions/hub.ts: one per kind and filter, shared by every
 * client, moved to another node when one drops).
 *
 * Events are charged per the event table (docs/errors.md; https://docs.metamask.io/services/get-started/pricing/):
 * newHeads per block, logs at most once per block, newPendingTransactions at most once per second. An event is
 * charged only when it is delivered, and never beyond the day's balance: the event that uses up the balance costs
 * what was left, then the connection is told the balance ran out.
 */
import { randomBytes } from 'node:crypto'
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { CostTable } from '../../credits/costs.ts'
import type { LimitStore } from '../../credits/limits/memory.ts'
import type { UsageLedger } from '../../usage/ledger.ts'
import { type ChaingateError, errors } from '../../errors/index.ts'
import { serializeError, serializeResult, toErrorObject, type RpcCall } from '../../jsonrpc/envelope.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { Tracing } from '../../observability/tracing.ts'
import { NodeRpcError, type NodeSubscription, type SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import { createSettle } from './steps/settle.ts'
import type { Clock, LocalMethod } from './types.ts'

export interface SubscriptionDeps {
  keys: KeySnapshot
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  /** Subscriptions one connection may hold (config gateway.maxSubscriptionsPerConnection). */
  maxSubscriptions: number
  /** Traces: a span per delivered event (src/observability/tracing.ts); none: off. */
  tracing?: Tracing
}

export interface SubscriptionIo {
  /** Writes an event's notification text; false when it could not be delivered (then it is not charged). */
  deliver?(text: string): boolean
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
  kind: string
  lastChargedBlock?: string | undefined
  lastChargedMs?: number | undefined
}

const KINDS = ['newHeads', 'logs', 'newPendingTransactions']

/** A delivered event as its own span (under the upgrade's trace when the client sent one). */
const traceEvent = (tracing: Tracing, parent: string | undefined, kind: string, id: string, charged: number) =>
  tracing
    .start('eth_subscription', parent, {
      'chaingate.transport': 'ws',
      'chaingate.subscription.kind': kind,
      'chaingate.subscription.id': id,
      'chaingate.credits.charged': charged,
    })
    ?.end()

export function createSubscriptions(
  /** `traceparent`: the WebSocket upgrade's, the parent of traced events. */
  owner: { accountId: string; keyId: string; network: string; traceparent?: string | undefined },
  hub: SubscriptionHub,
  deps: SubscriptionDeps,
  io: SubscriptionIo,
): Subscriptions {
  const subs = new Map<string, ClientSubscription>()
  const settle = createSettle(deps)
  let opening = 0
  let disposed = false
  const { accountId, keyId, network } = owner

  const due = (sub: ClientSubscription, result: unknown, now: number): boolean => {
    if (sub.kind === 'logs') {
      const block = (result as { blockNumber?: string })?.blockNumber
      const d = block === undefined || block !== sub.lastChargedBlock
      sub.lastChargedBlock = block
      return d
    }
    if (sub.kind === 'newPendingTransactions') {
      const d = sub.lastChargedMs === undefined || now - sub.lastChargedMs >= 1000
      if (d) sub.lastChargedMs = now
      return d
    }
    return true
  }

  // With the Redis limit store a charge may wait for Redis (docs/scale-out.md): events arriving meanwhile queue
  // behind it, so they are still delivered in order.
  let queued: Promise<void> | undefined
  const onEvent = (clientId: string, result: unknown, resultJson: string) => {
    const run = queued
      ? queued.then(() => handleEvent(clientId, result, resultJson))
      : handleEvent(clientId, result, resultJson)
    if (run === undefined) return
    const q: Promise<void> = run.then(
      () => {
        if (queued === q) queued = undefined
      },
      () => {
        if (queued === q) queued = undefined
      },
    )
    queued = q
  }

  const handleEvent = (clientId: string, result: unknown, resultJson: string): Promise<void> | undefined => {
    const sub = subs.get(clientId)
    const entry = deps.keys.byId(keyId)
    if (!sub || disposed || !entry) return
    const now = deps.clock.now()
    const price = due(sub, result, now) ? deps.costs.event(sub.kind) : 0
    // Reserved first, never beyond the day's balance: the event that uses up the balance costs what was left.
    const charging = price === 0 ? 0 : deps.limits.chargeWithin(entry.limits, price, now)
    const send = (charged: number) => {
      if (disposed) {
        if (charged > 0) deps.limits.adjust(accountId, keyId, -charged, now)
        return
      }
      if (price > 0 && charged === 0) {
        io.exhausted()
        return
      }
      const ok = io.event
        ? io.event(clientId, result)
        : io.deliver!(
            `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${clientId}",` +
              `"result":${resultJson}}}`,
          )
      if (!ok) {
        if (charged > 0) deps.limits.adjust(accountId, keyId, -charged, now)
        return
      }
      settle.event(entry, network, sub.kind, charged, now)
      if (deps.tracing?.on) traceEvent(deps.tracing, owner.traceparent, sub.kind, clientId, charged)
      if (deps.limits.usedToday(accountId, now) >= entry.plan.creditsPerDay) io.exhausted()
    }
    if (typeof charging === 'number') send(charging)
    else return charging.then(send)
  }

  const reply = (call: RpcCall, error: ChaingateError) =>
    call.hasId ? serializeError(call.id, toErrorObject(error)) : undefined

  const subscribe = async (call: RpcCall): Promise<string | undefined> => {
    const params = Array.isArray(call.params) ? call.params : []
    const kind = typeof params[0] === 'string' ? params[0] : ''
    if (!KINDS.includes(kind))
      return reply(call, errors.invalidParams('parameter 1 must be one of newHeads, logs, newPendingTransactions'))
    // Counted before the node answers, so a burst of eth_subscribe cannot pass the cap.
    if (subs.size + opening >= deps.maxSubscriptions)
      return reply(call, errors.subscriptionLimit(deps.maxSubscriptions))
    const clientId = `0x${randomBytes(16).toString('hex')}`
    opening++
    try {
      const node = await hub.subscribe(
        params,
        (result, resultJson) => onEvent(clientId, result, resultJson),
        (reason) => {
          subs.delete(clientId)
          if (!disposed) io.lost(reason)
        },
      )
      if (disposed) {
        await node.unsubscribe()
        return undefined
      }
      subs.set(clientId, { node, kind })
      return call.hasId ? serializeResult(call.id, clientId) : undefined
    } catch (err) {
      if (err instanceof NodeRpcError) return call.hasId ? serializeError(call.id, err.error) : undefined
      throw err
    } finally {
      opening--
    }
  }

  const unsubscribe = async (call: RpcCall): Promise<string | undefined> => {
    const id = Array.isArray(call.params) ? call.params[0] : undefined
    if (typeof id !== 'string') return reply(call, errors.invalidParams('parameter 1 must be a subscription id'))
    const sub = subs.get(id)
    if (sub) {
      subs.delete(id)
      await sub.node.unsubscribe()
    }
    return call.hasId ? serializeResult(call.id, sub !== undefined) : undefined
  }

  const local = new Map<string, LocalMethod>([
    ['eth_subscribe', subscribe],
    ['eth_unsubscribe', unsubscribe],
  ])

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
      await Promise.all(all.map((s) => s.node.unsubscribe().catch(() => undefined)))
    },
  }
}
