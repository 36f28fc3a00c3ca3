/**
 * Which connections hold a session (they presented the pairing secret it was created with, docs/wallet.md
 * "Pairing"), and whether a session still authorizes a waiting signature request.
 */
import { constantTimeEqual } from '../shared/constant-time.ts'
import type { WalletConnection } from './connections.ts'
import { addressOf } from './scopes.ts'
import type { PairedSession } from './sessions.ts'

/** Sessions each connection was found to hold; a session object is replaced on every change, so identity is safe. */
const held = new WeakMap<WalletConnection, PairedSession>()

export function holds(conn: WalletConnection, s: PairedSession | undefined): boolean {
  if (s === undefined || s.pairing === undefined) return false
  if (held.get(conn) === s) return true // the hot path (every wallet_invokeMethod) skips the hashing
  const ok = constantTimeEqual(s.pairing.hash, conn.pairing)
  if (ok) held.set(conn, s)
  return ok
}

/** Whether `s` still authorizes a waiting signature request (its scope, method and account). */
export function authorizes(s: PairedSession | undefined, kind: string, request: unknown): boolean {
  const r = request as { scope?: string; address?: string; transaction?: { from?: string } }
  const scope = r.scope === undefined ? undefined : s?.sessionScopes[r.scope]
  const address = r.address ?? r.transaction?.from
  return !!scope && scope.methods.includes(kind) && scope.accounts.some((a) => addressOf(a) === address)
}
