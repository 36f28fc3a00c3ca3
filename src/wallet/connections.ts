/**
 * The dapp connections the wallet has open, by origin. A connection belongs to its origin's session only when it
 * holds that session's pairing (docs/wallet.md "Pairing"): it presented the pairing secret the session was
 * created with. A connection that brought no secret gets a random one, so whatever session it creates is its own.
 */
import { createHash, randomBytes } from 'node:crypto'
import { setMaxListeners } from 'node:events'
import { MAX_PENDING_PER_PAIRING } from './approvals.ts'
import type { SessionScope } from './scopes.ts'

/** wallet_invokeMethod within one scope of a connection's session (the EVM and Solana invokers, and the router). */
export type ScopeInvoker = (
  conn: WalletConnection,
  scope: string,
  sessionScope: SessionScope,
  method: string,
  params: unknown,
) => Promise<unknown>

export interface WalletConnection {
  readonly id: number
  readonly origin: string
  /** sha256 (hex) of the connection's pairing secret. */
  readonly pairing: string
  /** True when the dapp brought its own secret: it can resume its session on a later connection. */
  readonly resumable: boolean
  send(message: object): void
  /** Aborted when the connection closes: cancels its pending approvals. */
  readonly closed: AbortController
  /** This connection's eth_subscribe subscriptions (their wallet_notify go to this connection only). */
  readonly subscriptions: Map<string, { scope: string; unsubscribe(): Promise<void> }>
}

/** A pairing secret a dapp may present: 32-128 URL-safe characters (the transport sends 43, base64url of 32 bytes). */
export const PAIRING_SECRET = /^[A-Za-z0-9_-]{32,128}$/

export const pairingHash = (secret: string): string => createHash('sha256').update(secret).digest('hex')

export type ConnectionRegistry = ReturnType<typeof createConnectionRegistry>

export function createConnectionRegistry() {
  const byOrigin = new Map<string, Set<WalletConnection>>()
  let nextId = 1

  return {
    /** `pairingSecret` must already be checked against PAIRING_SECRET (the edge refuses malformed ones). */
    open(origin: string, send: (message: object) => void, pairingSecret?: string): WalletConnection {
      const conn: WalletConnection = {
        id: nextId++,
        origin,
        pairing: pairingHash(pairingSecret ?? randomBytes(32).toString('base64url')),
        resumable: pairingSecret !== undefined,
        send,
        closed: new AbortController(),
        subscriptions: new Map(),
      }
      // Each approval waiting on this connection listens for its close; the pairing's cap bounds how many wait at once.
      setMaxListeners(MAX_PENDING_PER_PAIRING, conn.closed.signal)
      let set = byOrigin.get(origin)
      if (!set) byOrigin.set(origin, (set = new Set()))
      set.add(conn)
      return conn
    },

    /** Forgets the connection; returns its subscriptions for the caller to end. */
    close(conn: WalletConnection): { unsubscribe(): Promise<void> }[] {
      conn.closed.abort()
      const set = byOrigin.get(conn.origin)
      set?.delete(conn)
      if (set?.size === 0) byOrigin.delete(conn.origin)
      const subs = [...conn.subscriptions.values()]
      conn.subscriptions.clear()
      return subs
    },

    ofOrigin(origin: string): WalletConnection[] {
      return [...(byOrigin.get(origin) ?? [])]
    },

    all(): WalletConnection[] {
      return [...byOrigin.values()].flatMap((s) => [...s])
    },
  }
}
