/**
 * What the console does to sessions: list them with their pairing and connections, edit one (accounts, chains,
 * methods), revoke one. The session store announces each change to the dapp (wallet_sessionChanged).
 */
import type { ConnectionRegistry } from './connections.ts'
import { isSolanaScope, normalizeAddress, removeScopes } from './scopes.ts'
import { holds } from './session-holders.ts'
import type { PairedSession, SessionStore } from './sessions.ts'

export function consoleSessionEdits(deps: {
  sessions: SessionStore
  connections: ConnectionRegistry
  heldAddresses: () => string[]
}) {
  const { sessions, connections, heldAddresses } = deps
  return {
    sessionsSnapshot: () =>
      sessions.entries().map(([origin, { pairing, ...session }]) => ({
        origin,
        session,
        /** `resumable`: the dapp keeps the pairing secret; `connection`: only the creating connection held it. */
        pairing: pairing ? (pairing.resumable ? 'resumable' : 'connection') : 'none',
        connections: connections.ofOrigin(origin).filter((c) => holds(c, sessions.peek(origin))).length,
      })),
    /** Wallet-side edit: keep these accounts/scopes/methods (each optional). */
    async editSession(
      origin: string,
      edit: { accounts?: string[]; scopes?: string[]; methods?: Record<string, string[]> },
    ): Promise<boolean> {
      if (!sessions.peek(origin)) return false
      const held = new Set(heldAddresses())
      await sessions.update(
        origin,
        (s) => {
          const next: PairedSession = { ...s!, sessionScopes: {} }
          for (const [key, scope] of Object.entries(s!.sessionScopes)) {
            if (edit.scopes && !edit.scopes.includes(key)) continue
            const keep = edit.methods?.[key]
            next.sessionScopes[key] = {
              methods: keep ? scope.methods.filter((m) => keep.includes(m)) : scope.methods,
              notifications: scope.notifications,
              // Each scope gets the accounts of its kind: base58 ones in Solana scopes, 0x ones elsewhere.
              accounts: edit.accounts
                ? [...new Set(edit.accounts.map(normalizeAddress).filter((a) => held.has(a)))]
                    .filter((a) => a.startsWith('0x') !== isSolanaScope(key))
                    .map((a) => `${key}:${a}`)
                : scope.accounts,
            }
          }
          return Object.keys(next.sessionScopes).length > 0 ? next : undefined
        },
        'edited in the console',
      )
      return true
    },
    async revokeOrigin(origin: string, scopes?: string[]): Promise<boolean> {
      if (!sessions.peek(origin)) return false
      await sessions.update(
        origin,
        (s) => (scopes && scopes.length > 0 ? removeScopes(s!, scopes) : undefined),
        'revoked in the console',
      )
      return true
    },
  }
}
