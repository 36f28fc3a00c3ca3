/**
 * wallet_invokeMethod on a `solana:<ref>` scope: binds the Solana methods (./methods/solana) to the calling
 * connection and records what the user approved in the activity list. The engine routes here before any eip155
 * work, and eip155 calls never come here: a session's Solana scope costs its EVM calls nothing.
 */
import type { ActivityRepository, ApprovalAsk } from './activity.ts'
import type { ScopeInvoker, WalletConnection } from './connections.ts'
import { walletErrors } from './errors.ts'
import { SOLANA_LOCAL_METHODS, type SolanaMethodContext } from './methods/solana/index.ts'
import type { ChainAccess } from './ports.ts'
import { addressOf, type SessionScope } from './scopes.ts'
import type { SolanaSigner } from './solana-keys.ts'

export interface SolanaInvokerDeps {
  chainAccess: ChainAccess
  signerFor(address: string): SolanaSigner | undefined
  ask(conn: WalletConnection, a: ApprovalAsk): Promise<{ decision: unknown }>
  note(e: Parameters<ActivityRepository['record']>[0]): void
  activitySummary(kind: string, request: unknown): string
  /** The connection's session scope now (undefined when the session no longer holds it). */
  currentScope(conn: WalletConnection, scope: string): Promise<SessionScope | undefined>
  clock: { now(): number }
}

export function createSolanaInvoker(deps: SolanaInvokerDeps) {
  const invokeSolana: ScopeInvoker = async (conn, scope, sessionScope, method, params) => {
    const run = Object.hasOwn(SOLANA_LOCAL_METHODS, method) ? SOLANA_LOCAL_METHODS[method] : undefined
    const { solanaChains, solanaRequest } = deps.chainAccess
    if (!run) throw walletErrors.unauthorized()
    if (!solanaRequest || !solanaChains?.().some((c) => c.chain === scope))
      throw walletErrors.internal(`chain ${scope} is not served any more`)
    let approved: { kind: string; request: unknown; address: string } | undefined
    const ctx: SolanaMethodContext = {
      origin: conn.origin,
      scope,
      sessionScope,
      signerFor: deps.signerFor,
      rpc: (m, p) => solanaRequest(scope, m, p),
      async approve(kind, request) {
        const out = await deps.ask(conn, { kind, request, signal: conn.closed.signal, address: request.address })
        approved = { kind, request, address: request.address }
        return out.decision
      },
      async assertStillAuthorized(m, address) {
        const now = await deps.currentScope(conn, scope)
        const ok = !!now && now.methods.includes(m) && now.accounts.some((a) => addressOf(a) === address)
        if (!ok || !deps.signerFor(address)) throw walletErrors.unauthorized()
      },
    }
    const record = (outcome: 'signed' | 'sent' | 'failed', extra = '') =>
      approved &&
      deps.note({
        at: deps.clock.now(),
        origin: conn.origin,
        kind: approved.kind,
        outcome,
        address: approved.address,
        summary: `${deps.activitySummary(approved.kind, approved.request)}${extra}`,
      })
    try {
      const result = await run(ctx, params)
      const sent = (result as { signature?: string }).signature
      if (approved?.kind === 'signAndSendTransaction') record('sent', ` · signature ${sent}`)
      else record('signed')
      return result
    } catch (e) {
      record('failed', ` — ${(e as Error).message}`)
      throw e
    }
  }
  return invokeSolana
}
