/**
 * One client WebSocket on `/ws/v3/<key>`: stateless calls go through the same pipeline as HTTP; eth_subscribe /
 * eth_unsubscribe map onto node subscriptions. Charging follows Infura (I§1.2, §1.4): subscribe 5,
 * unsubscribe 10, and each delivered event per the event table — newHeads per block, logs at most once per
 * block, newPendingTransactions at most once per second. When the account's daily balance runs out, the
 * connection is closed.
 */
import { randomBytes } from 'node:crypto'
import type { KeySnapshot } from '../api-keys/snapshot.ts'
import type { CostTable } from '../credits/costs.ts'
import type { LimitStore } from '../credits/limits.ts'
import type { UsageLedger } from '../credits/usage-ledger.ts'
import { ChaingateError, errors } from '../errors/index.ts'
import { parseBody, serializeError, serializeResult, toErrorObject, type ParsedEntry, type RpcCall } from '../jsonrpc/envelope.ts'
import type { Metrics } from '../observability/metrics.ts'
import { NodeRpcError, type NodeSubscription, type SubscriptionHub } from '../upstreams/subscriptions.ts'
import type { CallContext, Clock, Gateway, LocalMethod } from './pipeline.ts'
import type { AccessCheck } from './access.ts'

export const WS_CLOSE = {
  /** Policy: daily balance exhausted, key revoked, network disabled. */
  policy: 1008,
  /** The node's subscription connection dropped: resubscribe. */
  tryAgain: 1013,
  goingAway: 1001,
} as const

export interface WsSessionDeps {
  gateway: Gateway
  keys: KeySnapshot
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  hub: SubscriptionHub
  maxBatchSize: number
  /** Key security, re-checked per message with the upgrade's headers (settings may change while open). */
  checkAccess?: AccessCheck
  upgradeHeaders?: { authorization?: string | undefined; origin?: string | undefined; userAgent?: string | undefined }
  send(text: string): void
  close(code: number, reason: string): void
  onDailyExhausted(accountId: string): void
}

export interface WsSession {
  readonly accountId: string
  readonly keyId: string
  readonly network: string
  handleMessage(text: string): Promise<void>
  /** Whether the key still may use this network (after a settings reload). */
  stillAuthorized(): boolean
  dispose(): Promise<void>
}

interface ClientSubscription {
  node: NodeSubscription
  kind: string
  lastChargedBlock?: string
  lastChargedMs?: number
}

export function createWsSession(initial: CallContext, deps: WsSessionDeps): WsSession {
  const subs = new Map<string, ClientSubscription>()
  let disposed = false
  const accountId = initial.entry.accountId
  const keyId = initial.entry.id
  const network = initial.network.name

  // eth_subscribe / eth_unsubscribe are answered here (node subscriptions), admitted and charged by the pipeline
  // like any call. Declared below; looked up per call.
  const local = new Map<string, LocalMethod>([
    ['eth_subscribe', (call) => subscribe(call)],
    ['eth_unsubscribe', (call) => unsubscribe(call)],
  ])

  // Limits and plans may change while the socket is open: use the newest view of the key for each message.
  const context = (): CallContext | undefined => {
    const entry = deps.keys.byId(keyId)
    return entry && entry.networks.has(network) ? { ...initial, entry, local } : undefined
  }

  const chargeEvent = (sub: ClientSubscription, result: unknown) => {
    const now = deps.clock.now()
    let due = false
    if (sub.kind === 'logs') {
      const block = (result as { blockNumber?: string })?.blockNumber
      due = block === undefined || block !== sub.lastChargedBlock
      sub.lastChargedBlock = block
    } else if (sub.kind === 'newPendingTransactions') {
      due = sub.lastChargedMs === undefined || now - sub.lastChargedMs >= 1000
      if (due) sub.lastChargedMs = now
    } else due = true
    const entry = deps.keys.byId(keyId)
    if (!entry) return true
    const credits = due ? deps.costs.event(sub.kind) : 0
    const ok = credits === 0 || deps.limits.charge(accountId, keyId, credits, entry.plan.creditsPerDay, now)
    deps.ledger.record({ accountId, keyId, network, method: `eth_subscription:${sub.kind}`, calls: 1, credits, errors: 0 }, now)
    deps.metrics.credits(network, credits)
    return ok
  }

  const subscribe = async (call: RpcCall): Promise<string | undefined> => {
    const params = Array.isArray(call.params) ? call.params : []
    const kind = typeof params[0] === 'string' ? params[0] : ''
    if (!['newHeads', 'logs', 'newPendingTransactions'].includes(kind))
      return reply(call, errors.invalidParams('parameter 1 must be one of newHeads, logs, newPendingTransactions'))
    const clientId = `0x${randomBytes(16).toString('hex')}`
    try {
      const node = await deps.hub.subscribe(
        params,
        (result) => {
          const sub = subs.get(clientId)
          if (!sub || disposed) return
          const stillFunded = chargeEvent(sub, result)
          deps.send(`{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${clientId}","result":${JSON.stringify(result)}}}`)
          if (!stillFunded) deps.onDailyExhausted(accountId)
        },
        (reason) => {
          subs.delete(clientId)
          if (!disposed) deps.close(WS_CLOSE.tryAgain, reason.slice(0, 120))
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

  const reply = (call: RpcCall, error: ChaingateError) => (call.hasId ? serializeError(call.id, toErrorObject(error)) : undefined)

  return {
    accountId,
    keyId,
    network,
    stillAuthorized: () => context() !== undefined,
    async handleMessage(text) {
      if (disposed) return
      const ctx = context()
      if (!ctx) {
        deps.close(WS_CLOSE.policy, 'this API key is revoked or no longer has access to this network')
        return
      }
      const parsed = parseBody(text, deps.maxBatchSize)
      if (parsed.kind === 'invalid') {
        deps.send(serializeError(null, toErrorObject(parsed.error)))
        return
      }
      const batch = parsed.kind === 'batch'
      const entries: ParsedEntry[] = batch ? parsed.entries : [parsed.entry]
      if (ctx.entry.security && deps.checkAccess) {
        const calls = entries.flatMap((e) => (e.ok ? [{ method: e.call.method, params: e.call.params }] : []))
        const denied = await deps.checkAccess(ctx.entry.security, { ...deps.upgradeHeaders, calls })
        if (denied?.status === 403) {
          const errs = entries.map((e) => serializeError(e.ok ? e.call.id : e.id, { code: -32002, message: 'rejected due to project ID settings' }))
          deps.send(batch ? `[${errs.join(',')}]` : errs[0]!)
          return
        }
        if (denied) {
          deps.close(WS_CLOSE.policy, denied.body.trim().slice(0, 120))
          return
        }
      }
      const result = await deps.gateway.execute(ctx, entries, { batch, rawSingle: batch ? undefined : text })
      if (disposed) return
      const present = result.answers.filter((a): a is string => a !== undefined)
      if (present.length > 0) deps.send(batch ? `[${present.join(',')}]` : present[0]!)
      if (result.rejected === 'DAILY_CREDITS_EXHAUSTED') deps.onDailyExhausted(accountId)
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
