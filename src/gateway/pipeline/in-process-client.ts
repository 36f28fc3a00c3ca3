/**
 * A JSON-RPC client of the gateway inside the same process: the wallet's reads, broadcasts and subscriptions
 * go through the same pipeline as any client's (key, limits, credits, usage), charged to the wallet's own key,
 * without a socket: calls go in as objects, and subscription events come back as values (SubscriptionIo.event),
 * not as WebSocket messages.
 */
import type { KeySnapshot } from '../../keys/snapshot.ts'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import { validateCall, type RpcErrorObject } from '../../jsonrpc/envelope.ts'
import type { Network, NetworkRegistry } from '../../networks/registry.ts'
import type { SubscriptionHub } from '../../upstreams/subscriptions/hub.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { Gateway } from './execute.ts'
import { createSubscriptions, type Subscriptions } from './client-subscriptions.ts'
import type { SubscriptionDeps, CallContext, Outcome } from './types.ts'

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
  solanaChains(): { chain: string; network: string }[]
  solanaRequest(chain: string, method: string, params: unknown[]): Promise<unknown>
  subscribe(
    chainId: number,
    params: unknown[],
    onEvent: (result: unknown) => void,
  ): Promise<{ id: string; unsubscribe(): Promise<void> }>
  close(): Promise<void>
}

export function createInProcessClient(deps: {
  gateway: Gateway
  keys: KeySnapshot
  networks: NetworkRegistry
  pools: Map<string, UpstreamPool>
  hubs: Map<string, SubscriptionHub>
  subscriptions: SubscriptionDeps
  /** Id of the key the calls are charged to. */
  keyId: string
}): InProcessClient {
  let nextId = 1
  const sessions = new Map<string, { subs: Subscriptions; handlers: Map<string, (r: unknown) => void> }>()

  const context = (chainId: number): CallContext => contextOf(deps.networks.byChainId(chainId), String(chainId))
  const contextOf = (network: Network | undefined, chain: string): CallContext => {
    if (!network) throw new RpcCallError({ code: 4902, message: `chain ${chain} is not served by this gateway` })
    const entry = deps.keys.byId(deps.keyId)
    if (!entry) throw new RpcCallError({ code: -32603, message: "the wallet's API key is missing or revoked" })
    return { entry, network, pool: deps.pools.get(network.name)!, transport: 'ws' }
  }

  /** The answer, or the refusal as an error with the registry's JSON-RPC code. */
  const unwrap = (out: Outcome): unknown => {
    const answer = out.body
    if (answer === undefined && out.code !== undefined) {
      const spec = ERROR_REGISTRY[out.code]
      throw new RpcCallError({ code: spec.rpcCode ?? -32603, message: spec.summary })
    }
    const msg = JSON.parse(answer?.toString() ?? '{"result":null}') as { result?: unknown; error?: RpcErrorObject }
    if (msg.error) throw new RpcCallError(msg.error)
    return msg.result
  }

  /**
   * One call through the pipeline: the call object is handed in as it is (no text parsed back); its text is made
   * once, because that is what goes to the node.
   */
  const runCall = (ctx: CallContext, method: string, params: unknown) => {
    const call = { jsonrpc: '2.0', id: nextId++, method, params: params ?? [] }
    return deps.gateway.run(ctx, [validateCall(call)], false, JSON.stringify(call)).then(unwrap)
  }

  const sessionFor = (ctx: CallContext) => {
    let s = sessions.get(ctx.network.name)
    if (!s) {
      const handlers = new Map<string, (r: unknown) => void>()
      const subs = createSubscriptions(
        { accountId: ctx.entry.accountId, keyId: ctx.entry.id, network: ctx.network.name },
        deps.hubs.get(ctx.network.name)!,
        deps.subscriptions,
        {
          // Events come as values (no notification text to parse): the wallet forwards the result.
          event(subscription, result) {
            handlers.get(subscription)?.(result)
            return true
          },
          lost() {
            // Subscriptions lost (node restart): drop the session; the next subscribe makes a new one.
            sessions.delete(ctx.network.name)
            handlers.clear()
          },
          exhausted() {},
        },
      )
      sessions.set(ctx.network.name, (s = { subs, handlers }))
    }
    return s
  }

  /** eth_subscribe / eth_unsubscribe: this network's subscriptions as the pipeline's local methods. */
  const viaSession = async (chainId: number, method: string, params: unknown[]) => {
    const base = context(chainId)
    const s = sessionFor(base)
    return { result: await runCall({ ...base, local: s.subs.local }, method, params), s }
  }

  return {
    // The wallet's eip155 scopes: EVM networks only.
    chains: () =>
      deps.networks.all.filter((n) => n.chainId !== undefined).map((n) => ({ chainId: n.chainId!, network: n.name })),
    async request(chainId, method, params) {
      return runCall({ ...context(chainId), transport: 'http' }, method, params)
    },
    // The wallet's solana scopes: Solana networks whose CAIP-2 id is known.
    solanaChains: () =>
      deps.networks.all
        .filter((n) => n.family === 'solana' && n.chain !== undefined)
        .map((n) => ({ chain: n.chain!, network: n.name })),
    async solanaRequest(chain, method, params) {
      const network = deps.networks.byChain(chain)
      return runCall(
        { ...contextOf(network?.family === 'solana' ? network : undefined, chain), transport: 'http' },
        method,
        params,
      )
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
      await Promise.all([...sessions.values()].map((s) => s.subs.dispose()))
      sessions.clear()
    },
  }
}
