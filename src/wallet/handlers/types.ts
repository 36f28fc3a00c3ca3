/**
 * The wallet_* method handlers, MetaMask-style (as in
 * https://github.com/MetaMask/core/tree/main/packages/multichain-api-middleware/src/handlers): one handler per
 * method, each declaring the hooks it needs; the engine binds the hooks to the calling connection.
 */
import type { PairedSession } from '../sessions.ts'
import type { SessionScope, StoredSession } from '../scopes.ts'
import type { SessionProposal } from '../session-proposal.ts'

export interface WalletHooks {
  /** The calling connection's session: undefined when the origin has none, or one of another pairing. */
  getSession(): Promise<PairedSession | undefined>
  /** Replaces the origin's session with `session`, bound to the caller's pairing; announced even when identical. */
  grantSession(session: StoredSession): Promise<void>
  /** Ends the caller's session, or only `scopes` of it; a no-op when the caller has none. */
  revokeSession(scopes?: string[]): Promise<void>
  getServedChainIds(): ReadonlySet<number>
  /** Solana chains (CAIP-2 ids) the wallet serves. */
  getServedSolanaChains(): ReadonlySet<string>
  /** Addresses the wallet holds (0x lower-case, Solana base58). */
  getWalletAddresses(): string[]
  now(): number
  /** Asks the user about a session proposal; resolves with the decision, rejects 4001. */
  requestSessionApproval(proposal: SessionProposal): Promise<unknown>
  /** Runs a method the session grants in `scope`: answered by the wallet or sent to the scope's chain. */
  invokeInScope(scope: string, sessionScope: SessionScope, method: string, params: unknown): Promise<unknown>
}

export interface WalletMethodHandler<K extends keyof WalletHooks = keyof WalletHooks> {
  methodName: string
  hookNames: { readonly [P in K]: true }
  implementation(params: unknown, hooks: Pick<WalletHooks, K>): Promise<unknown>
}

/** Only the hooks a handler declared (so a handler cannot reach what it did not ask for). */
export function selectHooks<K extends keyof WalletHooks>(
  hooks: WalletHooks,
  names: { readonly [P in K]: true },
): Pick<WalletHooks, K> {
  const out = {} as Pick<WalletHooks, K>
  for (const name of Object.keys(names) as K[]) out[name] = hooks[name]
  return out
}
