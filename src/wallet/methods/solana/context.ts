/**
 * What the wallet's Solana methods (this folder, MetaMask's `solana` scope) may use: the invoked scope and its
 * grant, the wallet's ed25519 signers, the chain (through the gateway with the wallet's key) and the user.
 */
import type { SessionScope } from '../../scopes.ts'
import type { SolanaSigner } from '../../solana-keys.ts'

/** The approvals a Solana scope asks for: one per method, named as the method (so a session edit can end them). */
export type SolanaApprovalKind =
  | 'signMessage'
  | 'signTransaction'
  | 'signAllTransactions'
  | 'signAndSendTransaction'
  | 'signIn'

export interface SolanaMethodContext {
  /** The dapp's origin as its pairing binds it (the domain Sign-In With Solana must name). */
  origin: string
  /** `solana:<ref>` and its grant at the time of the call. */
  scope: string
  sessionScope: SessionScope
  /** The wallet's signer for a base58 address it holds, else undefined. */
  signerFor(address: string): SolanaSigner | undefined
  /** JSON-RPC on the scope's network, through the gateway with the wallet's key. */
  rpc(method: string, params: unknown[]): Promise<unknown>
  /** Asks the user; resolves when approved, rejects 4001. */
  approve(kind: SolanaApprovalKind, request: SolanaApprovalRequest): Promise<unknown>
  /** Throws 4100 unless the session still grants `method` and `address` in the scope (right before signing). */
  assertStillAuthorized(method: string, address: string): Promise<void>
}

/** What an approval stores (JSON) and the console and CLI describe (src/wallet/describe). */
export interface SolanaApprovalRequest {
  scope: string
  address: string
  /** base64 wire transactions (one, or several for signAllTransactions). */
  transactions?: string[]
  /** Per transaction, what was read from the chain to describe it (simulation, mints, fee). */
  contexts?: unknown[]
  /** signMessage / signIn: the bytes to sign, base64. */
  message?: string
  /** signIn: the fields as the dapp sent them, and whether the domain is the dapp's origin. */
  signIn?: { fields: Record<string, unknown>; domainMatches: boolean; origin: string }
  /** signAndSendTransaction: broadcast after signing. */
  send?: boolean
}

export type SolanaMethod = (ctx: SolanaMethodContext, params: unknown) => Promise<unknown>
