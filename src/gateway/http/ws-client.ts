/**
 * One client WebSocket on an RPC path (src/shared/rpc-paths.ts), at the edge: every message runs through the
 * gateway pipeline (src/gateway/pipeline/execute.ts) with this connection's subscriptions as local methods; this file
 * only turns outcomes into frames and close codes (docs/errors.md, "Gateway: WebSocket").
 */
import type { KeySnapshot } from '../../keys/snapshot.ts'
import type { Gateway } from '../pipeline/execute.ts'
import { createSubscriptions } from '../pipeline/client-subscriptions.ts'
import type { CallContext, RequestMeta, SubscriptionDeps } from '../pipeline/types.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import { WS_CLOSE } from './ws-close-codes.ts'
import type { WsWriter } from './ws-send.ts'
import { isLimitCode, limitAnswers, refusal, settingsRejectedAnswers } from './infura-bodies.ts'

export const REVOKED_REASON = 'this API key is revoked or no longer has access to this network'

export interface WsSessionDeps {
  gateway: Gateway
  keys: KeySnapshot
  hub: SubscriptionHub
  subscriptions: SubscriptionDeps
  /** The upgrade's headers: key security re-checks every message with them (settings may change while open). */
  upgradeHeaders: Omit<RequestMeta, 'network' | 'networkLabel' | 'key'>
  /** Writes answers and notifications; false when not written (socket closed, or the client stopped reading). */
  send: WsWriter
  close(code: number, reason: string): void
  onDailyExhausted(accountId: string): void
  /**
   * The networks and pools as they are now: `chaingate reload` may have replaced the connection's network or pool
   * since the upgrade (each message runs on the current ones); none: the upgrade's.
   */
  live?: { networks: NetworkRegistry; pools: ReadonlyMap<string, UpstreamPool> }
}

/** `chaingate reload` removed `network`: its sessions' sockets close with 4004 (docs/errors.md). */
export function closeNetworkSessions(
  sessions: ReadonlyMap<{ close(code: number, reason: string): void }, WsSession>,
  network: string,
): void {
  const reason = `network ${network} was removed from this gateway`
  for (const [socket, s] of sessions) if (s.network === network) socket.close(WS_CLOSE.networkRemoved, reason)
}

/**
 * The keepalive @solana/web3.js (every 5 s) and @solana/kit (after 5 s without traffic) send on a PubSub socket: a
 * JSON-RPC notification of `ping`, which expects no answer (a validator sends none). Not a call: not charged.
 */
function isSolanaPing(text: string): boolean {
  if (text.length > 64 || !text.includes('"ping"')) return false
  try {
    const m = JSON.parse(text) as unknown
    return m !== null && typeof m === 'object' && (m as { method?: unknown }).method === 'ping' && !('id' in m)
  } catch {
    return false
  }
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

export function createWsSession(initial: CallContext, deps: WsSessionDeps): WsSession {
  const accountId = initial.entry.accountId
  const keyId = initial.entry.id
  const network = initial.network.name
  let disposed = false
  const solana = initial.network.family === 'solana'
  const owner = {
    accountId,
    keyId,
    network,
    traceparent: deps.upgradeHeaders.traceparent,
    family: initial.network.family,
  }
  const subs = createSubscriptions(owner, deps.hub, deps.subscriptions, {
    deliver: (subscription, n) => !disposed && deps.send.notification(subscription, n),
    lost: (reason) => deps.close(WS_CLOSE.tryAgain, reason.slice(0, 120)),
    exhausted: () => deps.onDailyExhausted(accountId),
  })
  const deliver = (text: string) => !disposed && deps.send.text(text)

  // Limits and plans may change while the socket is open: the newest view of the key for each message.
  const context = (): CallContext | undefined => {
    const entry = deps.keys.byId(keyId)
    if (!entry?.networks.has(network)) return undefined
    const now = deps.live && { network: deps.live.networks.byName(network), pool: deps.live.pools.get(network) }
    const current = now?.network && now.pool ? { network: now.network, pool: now.pool } : undefined
    return { ...initial, ...current, entry, local: subs.local, deliver }
  }

  return {
    accountId,
    keyId,
    network,
    stillAuthorized: () => context() !== undefined,
    async handleMessage(text) {
      if (disposed) return
      const ctx = context()
      if (!ctx) {
        deps.close(WS_CLOSE.policy, REVOKED_REASON)
        return
      }
      if (solana && isSolanaPing(text)) return
      // Answers are delivered by the pipeline itself (before it charges them); refusals are worded here.
      const out = await deps.gateway.handleMessage(ctx, text, deps.upgradeHeaders)
      const code = out.code
      if (code === undefined || out.ids === undefined || disposed) return
      if (code === 'KEY_SETTINGS_REJECTED') deliver(settingsRejectedAnswers(out.ids, out.batch))
      else if (isLimitCode(code)) {
        deliver(limitAnswers(code, out.ids, out.batch))
        if (code === 'DAILY_CREDITS_EXHAUSTED') deps.onDailyExhausted(accountId)
      } else deps.close(WS_CLOSE.policy, refusal(code).body.trim().slice(0, 120))
    },
    async dispose() {
      if (disposed) return
      disposed = true
      await subs.dispose()
    },
  }
}
