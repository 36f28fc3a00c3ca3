/**
 * What a locally handled method (one file each in this folder) may use. Each method's signature picks only the
 * members it needs, so a unit test hands it a small fake.
 */
import type { HDAccount } from 'viem/accounts'
import type { WalletConnection } from '../connections.ts'
import type { ChainAccess } from '../ports.ts'
import type { SessionScope } from '../scopes.ts'
import type { ApprovalKind } from '../repository.ts'
import type { SolanaApprovalKind } from './solana/context.ts'

export interface LocalMethodContext {
  origin: string
  connection: WalletConnection
  /** The invoked scope (`eip155:<n>` or `wallet:eip155`) and its grant at the time of the call. */
  scope: string
  /** The scope's chain; undefined for `wallet:eip155`. */
  chainId: number | undefined
  sessionScope: SessionScope
  chainAccess: ChainAccess
  servedChainIds(): ReadonlySet<number>
  /** The wallet's signer for an address it still holds, else undefined. */
  signerFor(address: string): HDAccount | undefined
  /** Asks the user; resolves with the decision, rejects 4001 (rejected, expired, cancelled). */
  approve(kind: Exclude<ApprovalKind, 'session' | SolanaApprovalKind>, request: unknown): Promise<unknown>
  /**
   * Throws 4100 unless this connection's session still grants `method` in the scope (and `address`, when given).
   * Called right before signing: the session may have been edited or revoked while the user was deciding.
   */
  assertStillAuthorized(method: string, address?: string): Promise<void>
  /** Serializes nonce assignment per chain and address. */
  withNonceLock<T>(key: string, fn: () => Promise<T>): Promise<T>
  nonces: Map<string, bigint>
  /** Ends subscriptions the connection's session no longer authorizes. */
  dropUnauthorizedSubscriptions(): Promise<void>
}

export type LocalMethod = (ctx: LocalMethodContext, params: unknown) => Promise<unknown>
