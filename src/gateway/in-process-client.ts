/**
 * A JSON-RPC client of the gateway inside the same process: the wallet's reads, broadcasts and subscriptions
 * go through the same pipeline as any client's (key, limits, credits, usage), charged to the wallet's own key,
 * without a socket.
 */
import type { KeySnapshot } from '../api-keys/snapshot.ts'
import { validateCall, type RpcErrorObject } from '../jsonrpc/envelope.ts'
import type { NetworkRegistry } from '../networks/registry.ts'
import type { SubscriptionHub } from '../upstreams/subscriptions.ts'
import type { UpstreamPool } from '../upstreams/pool.ts'
import type { CallContext, Gateway } from './pipeline.ts'
import { createWsSession, type WsSession, type WsSessionDeps } from './ws-session.ts'

/** A JSON-RPC error answered by the gateway or the node, with its code. */
export class RpcCallError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(error: RpcErrorObject & { event?: number; details?: string }) {
    super(error.details ? `${error.message}: ${error.details}` : error.message)
    this.code = error.event ?? error.code
    this.data = error.data
  }
}

export interface InProcessClient {
  chains(): { chainId: number; network: string }[]
  request(chainId: number, method: string, params: unknown): Promise<unknown>
  subscribe(chainId: number, params: unknown[], onEvent: (result: unknown) => void): Promise<{ id: string; unsubscribe(): Promise<void> }>
  close(): Promise<void>
}

export function createInProcessClient(deps: {
  gateway: Gateway
  keys: KeySnapshot
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  sessionDeps: Omit<WsSessionDeps, 'gateway' | 'hub' | 'send' | 'close' | 'onDailyExhausted'>
  /** Id of the key the calls are charged to. */
  keyId: string
}): InProcessClient {
  let nextId = 1
  const sessions = new Map<string, { session: WsSession; pending: Map<number, (msg: any) => void>; handlers: Map<string, (r: unknown) => void> }>()

  const context = (chainId: number): CallContext => {
    const network = deps.networks.byChainId(chainId)
    if (!network) throw new RpcCallError({ code: 4902, message: `chain ${chainId} is not served by this gateway` })
    const entry = deps.keys.byId(deps.keyId)
    if (!entry) throw new RpcCallError({ code: -32603, message: "the wallet's API key is missing or revoked" })
    return { entry, network, pool: deps.pools.get(network.name)!, transport: 'ws' }
  }

  const unwrap = (text: string): unknown => {
    const msg = JSON.parse(text) as { result?: unknown; error?: RpcErrorObject }
    if (msg.error) throw new RpcCallError(msg.error)
    return msg.result
  }

  const sessionFor = (chainId: number) => {
    const ctx = context(chainId)
    let s = sessions.get(ctx.network.name)
    if (!s) {
      const pending = new Map<number, (msg: any) => void>()
      const handlers = new Map<string, (r: unknown) => void>()
      const session = createWsSession(ctx, {
        ...deps.sessionDeps,
        gateway: deps.gateway,
        hub: deps.hubs.get(ctx.network.name)!,
        send(text) {
          const msg = JSON.parse(text)
          if (msg.method === 'eth_subscription') handlers.get(msg.params.subscription)?.(msg.params.result)
          else if (typeof msg.id === 'number') {
            pending.get(msg.id)?.(msg)
            pending.delete(msg.id)
          }
        },
        close() {
          // Subscriptions lost (node restart, balance out): drop the session; the next subscribe makes a new one.
          sessions.delete(ctx.network.name)
          handlers.clear()
        },
        onDailyExhausted() {},
      })
      sessions.set(ctx.network.name, (s = { session, pending, handlers }))
    }
    return s
  }

  const viaSession = async (chainId: number, method: string, params: unknown[]) => {
    const s = sessionFor(chainId)
    const id = nextId++
    const answer = new Promise<any>((resolve) => s.pending.set(id, resolve))
    await s.session.handleMessage(JSON.stringify({ jsonrpc: '2.0', id, method, params }))
    const msg = await answer
    if (msg.error) throw new RpcCallError(msg.error)
    return { result: msg.result, s }
  }

  return {
    chains: () => deps.networks.all.map((n) => ({ chainId: n.chainId, network: n.name })),
    async request(chainId, method, params) {
      const ctx = { ...context(chainId), transport: 'http' as const }
      const raw = JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: params ?? [] })
      const entry = validateCall(JSON.parse(raw))
      const out = await deps.gateway.execute(ctx, [entry], { batch: false, rawSingle: raw })
      return unwrap(out.answers[0] ?? '{"result":null}')
    },
    async subscribe(chainId, params, onEvent) {
      const { result, s } = await viaSession(chainId, 'eth_subscribe', params)
      const id = result as string
      s.handlers.set(id, onEvent)
      return {
        id,
        async unsubscribe() {
          if (!s.handlers.delete(id)) return
          await viaSession(chainId, 'eth_unsubscribe', [id]).catch(() => undefined)
        },
      }
    },
    async close() {
      await Promise.all([...sessions.values()].map((s) => s.session.dispose()))
      sessions.clear()
    },
  }
}
