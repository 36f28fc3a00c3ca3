/**
 * wallet_invokeMethod on an `eip155:<n>` or `wallet:eip155` scope: runs the locally answered methods (./methods:
 * signing, sending, the wallet's accounts) bound to the calling connection, forwards the rest to the chain, and
 * records what the user approved in the activity list. Holds the nonces it assigns, per chain and address. The
 * Solana counterpart is ./solana-invoke.ts.
 */
import type { HDAccount } from 'viem/accounts'
import { activitySummary, type ActivityRepository, type ApprovalAsk } from './activity.ts'
import type { ScopeInvoker, WalletConnection } from './connections.ts'
import { walletErrors } from './errors.ts'
import { LOCAL_METHODS, type LocalMethodContext } from './methods/index.ts'
import type { ChainAccess } from './ports.ts'
import { addressOf, eip155ChainIdOf, type SessionScope } from './scopes.ts'

export interface EvmInvokerDeps {
  chainAccess: ChainAccess
  servedChainIds(): ReadonlySet<number>
  signerFor(address: string): HDAccount | undefined
  ask(conn: WalletConnection, a: ApprovalAsk): Promise<{ decision: unknown }>
  note(e: Parameters<ActivityRepository['record']>[0]): void
  /** The connection's session scope now (undefined when the session no longer holds it). */
  currentScope(conn: WalletConnection, scope: string): Promise<SessionScope | undefined>
  /** Ends the subscriptions of the origin's connections that their session no longer authorizes. */
  dropUnauthorizedSubscriptions(origin: string): Promise<void>
  clock: { now(): number }
}

export function createEvmInvoker(deps: EvmInvokerDeps) {
  const { chainAccess, servedChainIds, signerFor, ask, note, currentScope, clock } = deps
  const nonces = new Map<string, bigint>()
  const nonceLocks = new Map<string, Promise<unknown>>()

  function withNonceLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = nonceLocks.get(key) ?? Promise.resolve()
    const run = prev.then(fn, fn)
    nonceLocks.set(
      key,
      run.catch(() => {}),
    )
    return run
  }

  const invokeEvm: ScopeInvoker = async (conn, scope, sessionScope, method, params) => {
    const chainId = eip155ChainIdOf(scope)
    if (chainId !== undefined && !servedChainIds().has(chainId))
      throw walletErrors.internal(`chain ${scope} is not served any more`)
    const local = Object.hasOwn(LOCAL_METHODS, method) ? LOCAL_METHODS[method] : undefined
    if (!local) {
      if (chainId === undefined) throw walletErrors.unauthorized() // `wallet:eip155` has no chain to forward to
      return chainAccess.request(chainId, method, params ?? [])
    }
    let approved: { kind: string; request: unknown; address?: string } | undefined
    const ctx: LocalMethodContext = {
      origin: conn.origin,
      connection: conn,
      scope,
      chainId,
      sessionScope,
      chainAccess,
      servedChainIds,
      signerFor,
      nonces,
      withNonceLock,
      approve: async (kind, request) => {
        const r = request as { address?: string; transaction?: { from?: string } }
        const address = r.address ?? r.transaction?.from
        const out = await ask(conn, { kind, request, signal: conn.closed.signal, chainId, address })
        approved = { kind, request, address }
        return out.decision
      },
      async assertStillAuthorized(m, address) {
        const now = await currentScope(conn, scope)
        const ok =
          !!now &&
          now.methods.includes(m) &&
          (address === undefined || (now.accounts.some((a) => addressOf(a) === address) && !!signerFor(address)))
        if (!ok) throw walletErrors.unauthorized()
      },
      dropUnauthorizedSubscriptions: () => deps.dropUnauthorizedSubscriptions(conn.origin),
    }
    try {
      const result = await local(ctx, params)
      if (approved) {
        const sent = approved.kind === 'eth_sendTransaction'
        note({
          at: clock.now(),
          origin: conn.origin,
          kind: approved.kind,
          outcome: sent ? 'sent' : 'signed',
          chainId,
          address: approved.address,
          summary: activitySummary(approved.kind, approved.request),
          ...(sent ? { txHash: String(result) } : {}),
        })
      }
      return result
    } catch (e) {
      // Failed after the user approved (broadcast refused, session edited meanwhile): say so in the activity list.
      if (approved)
        note({
          at: clock.now(),
          origin: conn.origin,
          kind: approved.kind,
          outcome: 'failed',
          chainId,
          address: approved.address,
          summary: `${activitySummary(approved.kind, approved.request)} — ${(e as Error).message}`,
        })
      throw e
    }
  }
  return invokeEvm
}
