/**
 * The multichain API engine: binds the wallet_* handlers (./handlers) and the locally answered methods
 * (./methods, through ./evm-invoke.ts and ./solana-invoke.ts) to the calling connection, on top of the session
 * store and the connection registry. Knows no transport: the listener (src/wallet/listener) hands it parsed
 * requests and a `send` function per connection.
 */
import type { Logger } from 'pino'
import type { HDAccount } from 'viem/accounts'
import type { WalletConfig } from '../config/wallet-schema.ts'
import { activitySummary, recordingApprovals, type ActivityRepository } from './activity.ts'
import type { Approvals } from './approvals.ts'
import { createConnectionRegistry, type ScopeInvoker, type WalletConnection } from './connections.ts'
import { walletErrors } from './errors.ts'
import { WALLET_HANDLERS, selectHooks, type WalletHooks } from './handlers/index.ts'
import type { Keyring } from './keystore.ts'
import type { ChainAccess } from './ports.ts'
import { isSolanaScope, removeScopes, type StoredSession } from './scopes.ts'
import { createEvmInvoker } from './evm-invoke.ts'
import { createSolanaInvoker } from './solana-invoke.ts'
import type { SolanaSigner } from './solana-keys.ts'
import type { SessionProposal } from './session-proposal.ts'
import { consoleSessionEdits } from './session-edits.ts'
import { authorizes, holds } from './session-holders.ts'
import { createSessionStore, type PairedSession } from './sessions.ts'
import type { WalletAccount, WalletRepository } from './repository.ts'

export { WALLET_CLIENT_VERSION } from './methods/index.ts'
export type { WalletConnection } from './connections.ts'

/** Answered approvals are kept this long (for `wallet approvals` history), then pruned at start. */
const APPROVAL_HISTORY_MS = 30 * 24 * 3600 * 1000

export interface WalletEngineDeps {
  repository: WalletRepository
  approvals: Approvals
  chainAccess: ChainAccess
  keyring: Keyring
  clock: { now(): number }
  logger: Logger
  config: WalletConfig
  /** Where answered requests, signatures and sent transactions are recorded (the console's activity list). */
  activity?: ActivityRepository
  /** Called when sessions change (console push). */
  onChange?: () => void
}

/** The answer a session approval carries (console, CLI, auto-approve). */
export interface SessionApprovalRequest extends SessionProposal {
  origin: string
  /** Whether the asking connection can resume the session later, and what approving does to the origin's session. */
  pairing: { resumable: boolean; replaces: 'nothing' | 'its own session' | 'a session of another pairing' }
}

export type WalletEngine = Awaited<ReturnType<typeof createWalletEngine>>

export async function createWalletEngine(deps: WalletEngineDeps) {
  const { repository, approvals, chainAccess, keyring, clock, logger } = deps
  const connections = createConnectionRegistry()
  let accounts: WalletAccount[] = []
  const { note, ask } = recordingApprovals(approvals, deps.activity, clock, logger)

  const servedChainIds = () => new Set(chainAccess.chains().map((c) => c.chainId))
  const servedSolanaChains = () => new Set((chainAccess.solanaChains?.() ?? []).map((c) => c.chain))
  /** Each account's Solana address (same index, ed25519), derived once per account list. */
  let solanaAddresses: string[] = []
  const heldAddresses = () => [...accounts.map((a) => a.address), ...solanaAddresses]

  const sessions = createSessionStore({
    repository,
    clock,
    logger,
    servedChainIds,
    servedSolanaChains,
    heldAddresses,
    // Announces a change to the connections of its pairing (wallet_sessionChanged, CAIP-311), ends what it no
    // longer authorizes: subscriptions and waiting signature requests.
    async onChange(origin, prev, next) {
      for (const c of connections.ofOrigin(origin)) {
        if (holds(c, next))
          c.send({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes: next!.sessionScopes } })
        else if (holds(c, prev))
          c.send({ jsonrpc: '2.0', method: 'wallet_sessionChanged', params: { sessionScopes: {} } })
      }
      deps.onChange?.()
      await dropUnauthorizedSubscriptions(origin)
      const samePairing = prev?.pairing?.hash === next?.pairing?.hash
      await approvals.cancelWhere(
        origin,
        (kind, request) => kind !== 'session' && (!samePairing || !authorizes(next, kind, request)),
      )
    },
  })

  function signerFor(address: string): HDAccount | undefined {
    const a = accounts.find((x) => x.address === address.toLowerCase())
    // Never sign with a key that does not derive the listed address (the keystore was replaced under us).
    return a && keyring.addressAt(a.index) === a.address ? keyring.account(a.index) : undefined
  }

  function solanaSignerFor(address: string): SolanaSigner | undefined {
    const i = solanaAddresses.indexOf(address)
    const a = accounts[i]
    return a && keyring.solana.addressAt(a.index) === address ? keyring.solana.signer(a.index) : undefined
  }

  const currentScope = async (conn: WalletConnection, scope: string) => (await sessionOf(conn))?.sessionScopes[scope]
  const invokeSolana = createSolanaInvoker({
    chainAccess,
    signerFor: solanaSignerFor,
    ask,
    note,
    activitySummary,
    clock,
    currentScope,
  })

  async function sessionOf(conn: WalletConnection): Promise<PairedSession | undefined> {
    const s = await sessions.get(conn.origin)
    return holds(conn, s) ? s : undefined
  }

  async function dropUnauthorizedSubscriptions(origin: string): Promise<void> {
    const session = sessions.peek(origin)
    for (const c of connections.ofOrigin(origin)) {
      for (const [id, sub] of c.subscriptions) {
        if (holds(c, session) && session!.sessionScopes[sub.scope]?.notifications.includes('eth_subscription')) continue
        c.subscriptions.delete(id)
        await sub.unsubscribe().catch(() => {})
      }
    }
  }

  const hooksByConnection = new WeakMap<WalletConnection, WalletHooks>()
  function hooksFor(conn: WalletConnection): WalletHooks {
    let hooks = hooksByConnection.get(conn)
    if (!hooks) hooksByConnection.set(conn, (hooks = makeHooks(conn)))
    return hooks
  }

  function makeHooks(conn: WalletConnection): WalletHooks {
    return {
      getSession: () => sessionOf(conn),
      grantSession: (granted) =>
        sessions.set(
          conn.origin,
          { ...granted, pairing: { hash: conn.pairing, resumable: conn.resumable } },
          'created',
          true,
        ),
      async revokeSession(scopes) {
        if (!(await sessionOf(conn))) return
        await sessions.update(
          conn.origin,
          (s) => (holds(conn, s) ? (scopes ? removeScopes(s!, scopes) : undefined) : s),
          scopes ? 'scopes revoked' : 'revoked',
        )
      },
      getServedChainIds: servedChainIds,
      getServedSolanaChains: servedSolanaChains,
      getWalletAddresses: heldAddresses,
      now: () => clock.now(),
      async requestSessionApproval(proposal) {
        const current = sessions.peek(conn.origin)
        const replaces = !current
          ? 'nothing'
          : holds(conn, current)
            ? 'its own session'
            : 'a session of another pairing'
        const request: SessionApprovalRequest = {
          origin: conn.origin,
          ...proposal,
          pairing: { resumable: conn.resumable, replaces },
        }
        return (await ask(conn, { kind: 'session', request, signal: conn.closed.signal })).decision
      },
      invokeInScope: (scope, sessionScope, method, params) => invokeInScope(conn, scope, sessionScope, method, params),
    }
  }

  const invokeEvm = createEvmInvoker({
    chainAccess,
    servedChainIds,
    signerFor,
    ask,
    note,
    currentScope,
    dropUnauthorizedSubscriptions,
    clock,
  })

  const invokeInScope: ScopeInvoker = (conn, scope, sessionScope, method, params) =>
    (isSolanaScope(scope) ? invokeSolana : invokeEvm)(conn, scope, sessionScope, method, params)

  /** Loads accounts and sessions from the database (start, and whenever the CLI changed something). */
  async function reload(): Promise<void> {
    accounts = await repository.listAccounts()
    solanaAddresses = accounts.map((a) => keyring.solana.addressAt(a.index))
    await sessions.reload()
  }

  await repository.cancelAllPending(clock.now())
  await repository.pruneApprovals(clock.now() - APPROVAL_HISTORY_MS)
  await reload()

  return {
    /** `pairingSecret`: what the dapp presented (already checked against PAIRING_SECRET), if anything. */
    openConnection: (origin: string, send: (message: object) => void, pairingSecret?: string): WalletConnection =>
      connections.open(origin, send, pairingSecret),

    async closeConnection(conn: WalletConnection): Promise<void> {
      await Promise.all(connections.close(conn).map((s) => s.unsubscribe().catch(() => {})))
    },

    /** Runs one request; resolves with its result or rejects with a JsonRpcError (or a chain error). */
    async handle(conn: WalletConnection, method: string, params: unknown): Promise<unknown> {
      const handler = WALLET_HANDLERS.find((h) => h.methodName === method)
      if (!handler) throw walletErrors.methodNotFound(method)
      return handler.implementation(params, selectHooks(hooksFor(conn), handler.hookNames))
    },

    /** Periodic work: CLI changes (version counter), CLI answers to approvals, session expiry. */
    async tick(onDbChange?: () => void): Promise<void> {
      if (await sessions.changedInDb()) {
        await reload()
        await approvals.poll()
        onDbChange?.()
      }
      await sessions.expire()
    },

    // ---- for the console
    accounts: () => [...accounts],
    /** The wallet's accounts with their Solana address (same index). */
    accountsWithSolana: () => accounts.map((a, i) => ({ ...a, solanaAddress: solanaAddresses[i]! })),
    servedSolanaChains: () => chainAccess.solanaChains?.() ?? [],
    ...consoleSessionEdits({ sessions, connections, heldAddresses }),

    async close(): Promise<void> {
      for (const c of connections.all()) await this.closeConnection(c)
    },
  }
}

export type { StoredSession }
