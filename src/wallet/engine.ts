/**
 * The multichain API engine: one session per origin (cached, persisted in the database), the four wallet_*
 * methods, notifications to every connection of an origin, subscriptions, expiry. Framework-free: the WebSocket
 * edge (src/http/wallet) hands it parsed requests and a `send` function per connection.
 */
import { randomBytes } from 'node:crypto'
import type { Logger } from 'pino'
import type { HDAccount } from 'viem/accounts'
import type { WalletConfig } from '../config/wallet-schema.ts'
import type { Approvals } from './approvals.ts'
import { walletErrors, type ParamProblem } from './errors.ts'
import type { Keyring } from './keystore.ts'
import type { ChainAccess } from './ports.ts'
import {
  addressOf,
  buildProposal,
  eip155ChainIdOf,
  grantSession,
  isPlainObject,
  parseScopeString,
  removeAccount,
  removeScopes,
  validateCreateSessionParams,
  type SessionDecision,
  type SessionProposal,
  type StoredSession,
} from './scopes.ts'
import { personalSign, sendTransaction, signTypedDataV4, type SigningContext } from './signing.ts'
import type { WalletAccount, WalletStore } from './store.ts'

export const WALLET_CLIENT_VERSION = 'chaingate/0.1.0'
/** Answered approvals are kept this long (for `wallet approvals` history), then pruned at start. */
const APPROVAL_HISTORY_MS = 30 * 24 * 3600 * 1000

export interface WalletConnection {
  readonly id: number
  readonly origin: string
  send(message: object): void
  /** Aborted when the connection closes: cancels its pending approvals. */
  readonly closed: AbortController
  readonly subscriptions: Map<string, { scope: string; unsubscribe(): Promise<void> }>
}

export interface WalletEngineDeps {
  store: WalletStore
  approvals: Approvals
  chainAccess: ChainAccess
  keyring: Keyring
  clock: { now(): number }
  logger: Logger
  config: WalletConfig
}

/** The answer a session approval carries (console, CLI, auto-approve). */
export interface SessionApprovalRequest {
  origin: string
  scopes: SessionProposal['scopes']
  preselectedAccounts: string[]
  sessionProperties: SessionProposal['sessionProperties']
}

export type WalletEngine = Awaited<ReturnType<typeof createWalletEngine>>

export async function createWalletEngine(deps: WalletEngineDeps) {
  const { store, approvals, chainAccess, keyring, clock, logger } = deps
  const sessions = new Map<string, StoredSession>()
  const connections = new Map<string, Set<WalletConnection>>()
  let accounts: WalletAccount[] = []
  let lastVersion = -1
  let nextConnectionId = 1
  const nonces = new Map<string, bigint>()
  const nonceLocks = new Map<string, Promise<unknown>>()

  // Session mutations and reloads run one at a time so the cache, the database and the notifications agree.
  let queue: Promise<unknown> = Promise.resolve()
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = queue.then(fn, fn)
    queue = run.catch(() => {})
    return run
  }

  const servedChainIds = () => new Set(chainAccess.chains().map((c) => c.chainId))
  const heldAddresses = () => accounts.map((a) => a.address)

  function signerFor(address: string): HDAccount | undefined {
    const a = accounts.find((x) => x.address === address.toLowerCase())
    // Never sign with a key that does not derive the listed address (the keystore was replaced under us).
    return a && keyring.addressAt(a.index) === a.address ? keyring.account(a.index) : undefined
  }

  function notifyOrigin(origin: string, method: string, params: unknown): void {
    for (const c of connections.get(origin) ?? []) c.send({ jsonrpc: '2.0', method, params })
  }

  /** Writes, caches and announces a session change (wallet_sessionChanged, M§2.14); a no-op when nothing changed. */
  async function applySession(origin: string, next: StoredSession | undefined, why: string): Promise<void> {
    const prev = sessions.get(origin)
    if (JSON.stringify(prev) === JSON.stringify(next)) return
    if (next) {
      sessions.set(origin, next)
      await store.putSession(origin, next, clock.now())
    } else {
      sessions.delete(origin)
      await store.deleteSession(origin)
    }
    logger.info({ origin, why, scopes: next ? Object.keys(next.sessionScopes) : [] }, 'wallet: session changed')
    notifyOrigin(origin, 'wallet_sessionChanged', { sessionScopes: next?.sessionScopes ?? {} })
    await dropUnauthorizedSubscriptions(origin)
  }

  const setSession = (origin: string, next: StoredSession | undefined, why: string) => serial(() => applySession(origin, next, why))

  async function dropUnauthorizedSubscriptions(origin: string): Promise<void> {
    const session = sessions.get(origin)
    for (const c of connections.get(origin) ?? []) {
      for (const [id, sub] of c.subscriptions) {
        const scope = session?.sessionScopes[sub.scope]
        if (scope?.notifications.includes('eth_subscription')) continue
        c.subscriptions.delete(id)
        await sub.unsubscribe().catch(() => {})
      }
    }
  }

  function isExpired(s: StoredSession): boolean {
    const e = s.sessionProperties.expiry
    return e !== undefined && Date.parse(e) <= clock.now()
  }

  /** The live session of an origin; an expired one ends here as if revoked. */
  async function sessionOf(origin: string): Promise<StoredSession | undefined> {
    const s = sessions.get(origin)
    if (s && isExpired(s)) {
      await setSession(origin, undefined, 'expired')
      return undefined
    }
    return s
  }

  /**
   * Accounts removed from the wallet and chains it no longer serves leave every session (M§2.14; MetaMask drops
   * the scopes of removed networks). Returns the same object when nothing changed, undefined when nothing is left.
   */
  function reconcile(session: StoredSession): StoredSession | undefined {
    let s = session
    const held = new Set(heldAddresses())
    for (const scope of Object.values(s.sessionScopes))
      for (const acc of scope.accounts) if (!held.has(addressOf(acc))) s = removeAccount(s, addressOf(acc))
    const served = servedChainIds()
    // An empty chain list means the chain access is not ready, not that every chain is gone.
    const gone = served.size === 0 ? [] : Object.keys(s.sessionScopes).filter((k) => !served.has(eip155ChainIdOf(k) ?? -1))
    return gone.length > 0 ? removeScopes(s, gone) : s
  }

  /** Loads accounts and sessions from the database (start, and whenever the CLI changed something). */
  async function reload(): Promise<void> {
    await serial(async () => {
      lastVersion = await store.version()
      accounts = await store.listAccounts()
      const rows = await store.listSessions()
      const seen = new Set<string>()
      for (const row of rows) {
        seen.add(row.origin)
        const s = reconcile(row.session)
        if (JSON.stringify(s) !== JSON.stringify(sessions.get(row.origin))) {
          const changedInDb = JSON.stringify(row.session) !== JSON.stringify(sessions.get(row.origin))
          if (changedInDb && s === row.session) {
            // Changed by another writer (CLI): adopt and announce without writing back.
            sessions.set(row.origin, row.session)
            notifyOrigin(row.origin, 'wallet_sessionChanged', { sessionScopes: row.session.sessionScopes })
            await dropUnauthorizedSubscriptions(row.origin)
          } else await applySession(row.origin, s, 'accounts or chains removed from the wallet')
        }
      }
      for (const origin of [...sessions.keys()]) {
        if (seen.has(origin)) continue
        sessions.delete(origin)
        notifyOrigin(origin, 'wallet_sessionChanged', { sessionScopes: {} })
        await dropUnauthorizedSubscriptions(origin)
      }
    })
  }

  // ---------------------------------------------------------------- wallet_createSession
  async function createSession(conn: WalletConnection, params: unknown) {
    const p = validateCreateSessionParams(params)
    const proposal = buildProposal(p, { servedChainIds: servedChainIds(), walletAddresses: heldAddresses(), now: clock.now() })
    const request: SessionApprovalRequest = { origin: conn.origin, ...proposal }
    const { decision } = await approvals.request(conn.origin, 'session', request, conn.closed.signal)
    const d = sanitizeDecision(decision, proposal)
    const granted = grantSession(proposal, d)
    if (Object.keys(granted.sessionScopes).length === 0) throw walletErrors.userRejected()
    // A new wallet_createSession replaces the origin's session (M§2.8).
    await setSession(conn.origin, granted, 'created')
    return { sessionScopes: granted.sessionScopes, sessionProperties: granted.sessionProperties }
  }

  /** Keeps only what the proposal offered and accounts the wallet holds. */
  function sanitizeDecision(decision: unknown, proposal: SessionProposal): SessionDecision {
    const d = isPlainObject(decision) ? decision : {}
    const held = new Set(heldAddresses())
    const accountsPicked = Array.isArray(d.accounts)
      ? d.accounts.filter((a): a is string => typeof a === 'string').map((a) => a.toLowerCase()).filter((a) => held.has(a))
      : proposal.preselectedAccounts
    const out: SessionDecision = { accounts: accountsPicked }
    if (Array.isArray(d.scopes)) out.scopes = d.scopes.filter((s): s is string => typeof s === 'string')
    if (isPlainObject(d.methods)) {
      out.methods = {}
      for (const [k, v] of Object.entries(d.methods)) if (Array.isArray(v)) out.methods[k] = v.filter((m): m is string => typeof m === 'string')
    }
    return out
  }

  // ---------------------------------------------------------------- wallet_getSession
  async function getSession(conn: WalletConnection) {
    const s = await sessionOf(conn.origin)
    if (!s) return { sessionScopes: {} }
    return Object.keys(s.sessionProperties).length > 0
      ? { sessionScopes: s.sessionScopes, sessionProperties: s.sessionProperties }
      : { sessionScopes: s.sessionScopes }
  }

  // ---------------------------------------------------------------- wallet_revokeSession
  async function revokeSession(conn: WalletConnection, params: unknown) {
    const scopes = isPlainObject(params) ? params.scopes : undefined
    if (scopes !== undefined && !(Array.isArray(scopes) && scopes.every((s) => typeof s === 'string')))
      throw walletErrors.invalidParams([{ path: 'scopes', problem: 'is not of a type(s) array of string' }])
    const current = sessions.get(conn.origin)
    if (!current) return true
    if (scopes && scopes.length > 0) await setSession(conn.origin, removeScopes(current, scopes), 'scopes revoked')
    else await setSession(conn.origin, undefined, 'revoked')
    return true
  }

  // ---------------------------------------------------------------- wallet_invokeMethod
  function validateInvoke(params: unknown): { scope: string; method: string; params: unknown } {
    if (!isPlainObject(params)) throw walletErrors.invalidParams([{ path: 'params', problem: 'is not of a type(s) object' }])
    const problems: ParamProblem[] = []
    const { scope, request } = params
    if (scope === undefined) problems.push({ path: 'scope', problem: 'is required, but is undefined' })
    else if (typeof scope !== 'string') problems.push({ path: 'scope', problem: 'is not of a type(s) string' })
    else if (parseScopeString(scope).reference === undefined)
      problems.push({ path: 'scope', problem: 'is not a CAIP-2 chain ID (`<namespace>:<reference>`)' })
    if (request === undefined) problems.push({ path: 'request', problem: 'is required, but is undefined' })
    else if (!isPlainObject(request)) problems.push({ path: 'request', problem: 'is not of a type(s) object' })
    else {
      if (typeof request.method !== 'string') problems.push({ path: 'request.method', problem: 'is not of a type(s) string' })
      if (request.params !== undefined && request.params !== null && typeof request.params !== 'object')
        problems.push({ path: 'request.params', problem: 'is not of a type(s) array,object' })
    }
    if (problems.length > 0) throw walletErrors.invalidParams(problems)
    const r = request as { method: string; params?: unknown }
    return { scope: scope as string, method: r.method, params: r.params }
  }

  async function invokeMethod(conn: WalletConnection, params: unknown) {
    const call = validateInvoke(params)
    const session = await sessionOf(conn.origin)
    const sessionScope = session?.sessionScopes[call.scope]
    // No session, scope not granted, or method not granted in it: 4100 (M§2.12).
    if (!sessionScope || !sessionScope.methods.includes(call.method)) throw walletErrors.unauthorized()
    const chainId = eip155ChainIdOf(call.scope)
    if (chainId === undefined || !servedChainIds().has(chainId)) throw walletErrors.internal(`chain ${call.scope} is not served any more`)
    const result = await runMethod(conn, call.scope, chainId, sessionScope, call.method, call.params)
    return { scope: call.scope, result: { method: call.method, result } }
  }

  async function runMethod(
    conn: WalletConnection,
    scope: string,
    chainId: number,
    sessionScope: StoredSession['sessionScopes'][string],
    method: string,
    params: unknown,
  ): Promise<unknown> {
    const signing = (): SigningContext => ({
      scope,
      chainId,
      sessionScope,
      signerFor,
      chainAccess,
      nonces,
      approve: async (kind, request) => (await approvals.request(conn.origin, kind, request, conn.closed.signal)).decision,
      withNonceLock: (key, fn) => {
        const prev = nonceLocks.get(key) ?? Promise.resolve()
        const run = prev.then(fn, fn)
        nonceLocks.set(key, run.catch(() => {}))
        return run
      },
    })
    switch (method) {
      case 'personal_sign':
        return personalSign(signing(), params)
      case 'eth_signTypedData_v4':
        return signTypedDataV4(signing(), params)
      case 'eth_sendTransaction':
        return sendTransaction(signing(), params)
      case 'eth_subscribe':
        return subscribe(conn, scope, chainId, sessionScope, params)
      case 'eth_unsubscribe':
        return unsubscribe(conn, params)
      case 'web3_clientVersion':
        return WALLET_CLIENT_VERSION
      case 'eth_chainId':
        return `0x${chainId.toString(16)}`
      default:
        return chainAccess.request(chainId, method, params ?? [])
    }
  }

  async function subscribe(
    conn: WalletConnection,
    scope: string,
    chainId: number,
    sessionScope: StoredSession['sessionScopes'][string],
    params: unknown,
  ): Promise<string> {
    // Events only flow as wallet_notify when eth_subscription was granted for the scope (spec §5.2).
    if (!sessionScope.notifications.includes('eth_subscription')) throw walletErrors.unauthorized()
    if (!Array.isArray(params) || typeof params[0] !== 'string')
      throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [kind, options?]' }])
    const id = `0x${randomBytes(16).toString('hex')}`
    const upstream = await chainAccess.subscribe(chainId, params, (result) => {
      if (!conn.subscriptions.has(id)) return
      notifyOrigin(conn.origin, 'wallet_notify', {
        scope,
        notification: { method: 'eth_subscription', params: { subscription: id, result } },
      })
    })
    if (conn.closed.signal.aborted) {
      await upstream.unsubscribe().catch(() => {})
      throw walletErrors.internal('connection closed')
    }
    conn.subscriptions.set(id, { scope, unsubscribe: () => upstream.unsubscribe() })
    // The session may have changed while subscribing.
    await dropUnauthorizedSubscriptions(conn.origin)
    return id
  }

  async function unsubscribe(conn: WalletConnection, params: unknown): Promise<boolean> {
    if (!Array.isArray(params) || typeof params[0] !== 'string')
      throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [subscriptionId]' }])
    for (const c of connections.get(conn.origin) ?? []) {
      const sub = c.subscriptions.get(params[0])
      if (!sub) continue
      c.subscriptions.delete(params[0])
      await sub.unsubscribe().catch(() => {})
      return true
    }
    return false
  }

  // ---------------------------------------------------------------- edge API
  const methods: Record<string, (conn: WalletConnection, params: unknown) => Promise<unknown>> = {
    wallet_createSession: createSession,
    wallet_getSession: (conn) => getSession(conn),
    wallet_invokeMethod: invokeMethod,
    wallet_revokeSession: revokeSession,
  }

  await store.cancelAllPending(clock.now())
  await store.pruneApprovals(clock.now() - APPROVAL_HISTORY_MS)
  await reload()

  return {
    openConnection(origin: string, send: (message: object) => void): WalletConnection {
      const conn: WalletConnection = { id: nextConnectionId++, origin, send, closed: new AbortController(), subscriptions: new Map() }
      let set = connections.get(origin)
      if (!set) connections.set(origin, (set = new Set()))
      set.add(conn)
      return conn
    },

    async closeConnection(conn: WalletConnection): Promise<void> {
      conn.closed.abort()
      connections.get(conn.origin)?.delete(conn)
      if (connections.get(conn.origin)?.size === 0) connections.delete(conn.origin)
      const subs = [...conn.subscriptions.values()]
      conn.subscriptions.clear()
      await Promise.all(subs.map((s) => s.unsubscribe().catch(() => {})))
    },

    /** Runs one request; resolves with its result or rejects with a WalletRpcError (or a chain error). */
    async handle(conn: WalletConnection, method: string, params: unknown): Promise<unknown> {
      const fn = Object.hasOwn(methods, method) ? methods[method] : undefined // not `toString` & co.
      if (!fn) throw walletErrors.methodNotFound(method)
      return fn(conn, params)
    },

    /** Periodic work: CLI changes (version counter), CLI answers to approvals, session expiry. */
    async tick(): Promise<void> {
      if ((await store.version()) !== lastVersion) {
        await reload()
        await approvals.poll()
      }
      for (const [origin, s] of [...sessions]) if (isExpired(s)) await setSession(origin, undefined, 'expired')
    },

    // ---- for the console
    accounts: () => [...accounts],
    sessionsSnapshot: () => [...sessions].map(([origin, session]) => ({ origin, session, connections: connections.get(origin)?.size ?? 0 })),
    /** Wallet-side edit: keep these accounts/scopes/methods (each optional). */
    async editSession(origin: string, edit: { accounts?: string[]; scopes?: string[]; methods?: Record<string, string[]> }): Promise<boolean> {
      const s = sessions.get(origin)
      if (!s) return false
      const held = new Set(heldAddresses())
      const next: StoredSession = { sessionScopes: {}, sessionProperties: s.sessionProperties }
      for (const [key, scope] of Object.entries(s.sessionScopes)) {
        if (edit.scopes && !edit.scopes.includes(key)) continue
        const ref = parseScopeString(key).reference
        next.sessionScopes[key] = {
          methods: edit.methods?.[key] ? scope.methods.filter((m) => edit.methods![key]!.includes(m)) : scope.methods,
          notifications: scope.notifications,
          accounts: edit.accounts
            ? [...new Set(edit.accounts.map((a) => a.toLowerCase()).filter((a) => held.has(a)))].map((a) => `eip155:${ref}:${a}`)
            : scope.accounts,
        }
      }
      await setSession(origin, Object.keys(next.sessionScopes).length > 0 ? next : undefined, 'edited in the console')
      return true
    },
    async revokeOrigin(origin: string, scopes?: string[]): Promise<boolean> {
      const s = sessions.get(origin)
      if (!s) return false
      await setSession(origin, scopes && scopes.length > 0 ? removeScopes(s, scopes) : undefined, 'revoked in the console')
      return true
    },

    async close(): Promise<void> {
      for (const set of connections.values()) for (const c of [...set]) await this.closeConnection(c)
    },
  }
}
