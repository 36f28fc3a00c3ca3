/**
 * The sessions: one per origin, cached in memory and persisted in the database, bound to a pairing (docs/wallet.md
 * "Pairing"). Every change goes through here, one at a time, and is reported to `onChange`, which announces it
 * (wallet_sessionChanged) and cleans up after it. Reloads pick up what the CLI changed in the database.
 */
import type { Logger } from 'pino'
import {
  addressOf,
  eip155ChainIdOf,
  isSolanaScope,
  removeAccount,
  removeScopes,
  WALLET_EIP155,
  type StoredSession,
} from './scopes.ts'
import type { PairedSession, WalletRepository } from './repository.ts'

export type { PairedSession } from './repository.ts'

export type SessionChange = (
  origin: string,
  prev: PairedSession | undefined,
  next: PairedSession | undefined,
  why: string,
) => Promise<void>

export interface SessionStoreDeps {
  repository: WalletRepository
  clock: { now(): number }
  logger: Logger
  servedChainIds(): ReadonlySet<number>
  servedSolanaChains(): ReadonlySet<string>
  heldAddresses(): string[]
  onChange: SessionChange
}

export type SessionStore = ReturnType<typeof createSessionStore>

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)

export function createSessionStore(deps: SessionStoreDeps) {
  const { repository, clock, logger } = deps
  const sessions = new Map<string, PairedSession>()
  let lastVersion = -1

  // Mutations and reloads run one at a time so the cache, the database and the notifications agree.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => {})
    return run
  }

  const isExpired = (s: StoredSession) => {
    const e = s.sessionProperties.expiry
    return e !== undefined && Date.parse(e) <= clock.now()
  }

  /** `always`: announce even when nothing changed (MetaMask emits wallet_sessionChanged on every createSession). */
  async function apply(origin: string, next: PairedSession | undefined, why: string, always = false): Promise<void> {
    const prev = sessions.get(origin)
    if (!always && same(prev, next)) return
    if (next) {
      sessions.set(origin, next)
      await repository.putSession(origin, next, clock.now())
    } else {
      sessions.delete(origin)
      if (prev) await repository.deleteSession(origin)
    }
    logger.info({ origin, why, scopes: next ? Object.keys(next.sessionScopes) : [] }, 'wallet: session changed')
    await deps.onChange(origin, prev, next, why)
  }

  /**
   * Accounts removed from the wallet and chains it no longer serves leave every session (MetaMask also drops the
   * scopes of removed networks). Returns the same object when nothing changed, undefined when nothing is left.
   */
  function reconcile(session: PairedSession): PairedSession | undefined {
    let s: PairedSession | undefined = session
    const held = new Set(deps.heldAddresses())
    for (const scope of Object.values(session.sessionScopes))
      for (const acc of scope.accounts) if (!held.has(addressOf(acc))) s = removeAccount(s, addressOf(acc))
    const served = deps.servedChainIds()
    const servedSolana = deps.servedSolanaChains()
    // An empty chain list (per family) means the chain access is not ready, not that every chain is gone.
    const gone = Object.keys(s.sessionScopes).filter((k) =>
      isSolanaScope(k)
        ? servedSolana.size > 0 && !servedSolana.has(k)
        : k !== WALLET_EIP155 && served.size > 0 && !served.has(eip155ChainIdOf(k) ?? -1),
    )
    return gone.length > 0 ? (removeScopes(s, gone) as PairedSession | undefined) : s
  }

  return {
    /** The live session of an origin (whatever its pairing); an expired one ends here as if revoked. */
    async get(origin: string): Promise<PairedSession | undefined> {
      const s = sessions.get(origin)
      if (s && isExpired(s)) {
        await serial(() => apply(origin, undefined, 'expired'))
        return undefined
      }
      return s
    },
    peek: (origin: string) => sessions.get(origin),
    set: (origin: string, next: PairedSession | undefined, why: string, always = false) =>
      serial(() => apply(origin, next, why, always)),
    /** Applies `fn` to the current session, atomically with other changes. */
    update: (origin: string, fn: (s: PairedSession | undefined) => PairedSession | undefined, why: string) =>
      serial(async () => {
        const cur = sessions.get(origin)
        if (cur) await apply(origin, fn(cur), why)
      }),
    entries: () => [...sessions],

    /** Loads sessions from the database (start, and whenever the CLI changed something). */
    reload: () =>
      serial(async () => {
        lastVersion = await repository.version()
        const rows = await repository.listSessions()
        const seen = new Set<string>()
        for (const row of rows) {
          seen.add(row.origin)
          const cached = sessions.get(row.origin)
          const s = reconcile(row.session)
          if (same(s, cached)) continue
          if (!same(row.session, cached) && s === row.session) {
            // Changed by another writer (CLI): adopt and announce without writing back.
            sessions.set(row.origin, row.session)
            await deps.onChange(row.origin, cached, row.session, 'changed from the CLI')
          } else await apply(row.origin, s, 'accounts or chains removed from the wallet')
        }
        for (const [origin, cached] of [...sessions]) {
          if (seen.has(origin)) continue
          sessions.delete(origin)
          await deps.onChange(origin, cached, undefined, 'revoked from the CLI')
        }
      }),

    changedInDb: async () => (await repository.version()) !== lastVersion,

    async expire(): Promise<void> {
      for (const [origin, s] of [...sessions]) if (isExpired(s)) await serial(() => apply(origin, undefined, 'expired'))
    },
  }
}
