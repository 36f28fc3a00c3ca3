/**
 * Wallet rows in the database: accounts (public addresses), one session per origin, approvals, and a change
 * counter. Shared by the server and the CLI (which may write while the server runs; the server polls the
 * counter). Plain objects out.
 */
import type { Kysely } from 'kysely'
import type { Database } from '../db/tables.ts'
import type { StoredSession } from './scopes.ts'

import type { SolanaApprovalKind } from './methods/solana/context.ts'

export type ApprovalKind =
  | 'session'
  | 'personal_sign'
  | 'eth_signTypedData_v4'
  | 'eth_sendTransaction'
  | SolanaApprovalKind
export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled'

export interface WalletAccount {
  address: string
  index: number
  label: string
  createdAt: number
}

export interface ApprovalRow {
  id: string
  origin: string
  kind: ApprovalKind
  request: unknown
  status: ApprovalStatus
  decision: unknown
  decidedBy: string | null
  createdAt: number
  expiresAt: number
  decidedAt: number | null
}

/** A session as stored: the granted scopes plus the pairing that may use it (docs/wallet.md "Pairing"). */
export interface PairedSession extends StoredSession {
  /**
   * sha256 of the pairing secret of the connection that created the session; `resumable` when that connection
   * brought its own secret. Sessions created before pairing existed have none: no connection can use them.
   */
  pairing?: { hash: string; resumable: boolean }
}

export interface SessionRow {
  origin: string
  session: PairedSession
  createdAt: number
  updatedAt: number
  expiresAt: number | null
}

export type WalletRepository = ReturnType<typeof createWalletRepository>

export function createWalletRepository(db: Kysely<Database>) {
  const bump = async () => {
    await db
      .updateTable('wallet_changes')
      .set((eb) => ({ version: eb('version', '+', 1) }))
      .where('id', '=', 1)
      .execute()
  }
  const toApproval = (r: Database['wallet_approvals']): ApprovalRow => ({
    id: r.id,
    origin: r.origin,
    kind: r.kind as ApprovalKind,
    request: JSON.parse(r.request),
    status: r.status as ApprovalStatus,
    decision: r.decision === null ? null : JSON.parse(r.decision),
    decidedBy: r.decided_by,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
    decidedAt: r.decided_at,
  })

  return {
    async version(): Promise<number> {
      const r = await db.selectFrom('wallet_changes').select('version').where('id', '=', 1).executeTakeFirst()
      return r?.version ?? 0
    },
    bump,

    // ---- accounts
    async listAccounts(): Promise<WalletAccount[]> {
      const rows = await db
        .selectFrom('wallet_accounts')
        .selectAll()
        .where('removed_at', 'is', null)
        .orderBy('hd_index')
        .execute()
      return rows.map((r) => ({ address: r.address, index: r.hd_index, label: r.label, createdAt: r.created_at }))
    },
    /** Next unused BIP-44 index (removed accounts keep theirs, so a re-add gives a new address). */
    async nextAccountIndex(): Promise<number> {
      const r = await db
        .selectFrom('wallet_accounts')
        .select((eb) => eb.fn.max('hd_index').as('max'))
        .executeTakeFirst()
      return r?.max === null || r?.max === undefined ? 0 : Number(r.max) + 1
    },
    async addAccount(address: string, index: number, label: string, now: number): Promise<void> {
      await db
        .insertInto('wallet_accounts')
        .values({ address: address.toLowerCase(), hd_index: index, label, created_at: now, removed_at: null })
        .onConflict((oc) => oc.column('address').doUpdateSet({ removed_at: null }))
        .execute()
      await bump()
    },
    async removeAccount(address: string, now: number): Promise<boolean> {
      const r = await db
        .updateTable('wallet_accounts')
        .set({ removed_at: now })
        .where('address', '=', address.toLowerCase())
        .where('removed_at', 'is', null)
        .executeTakeFirst()
      await bump()
      return Number(r.numUpdatedRows) > 0
    },
    /** Forgets every account (a new keystore replaces the old one). */
    async clearAccounts(): Promise<void> {
      await db.deleteFrom('wallet_accounts').execute()
      await bump()
    },

    // ---- sessions
    async listSessions(): Promise<SessionRow[]> {
      const rows = await db.selectFrom('wallet_sessions').selectAll().orderBy('origin').execute()
      return rows.map((r) => ({
        origin: r.origin,
        session: JSON.parse(r.session) as PairedSession,
        createdAt: r.created_at,
        updatedAt: r.updated_at,
        expiresAt: r.expires_at,
      }))
    },
    async putSession(origin: string, session: StoredSession, now: number): Promise<void> {
      const expiry = session.sessionProperties.expiry
      const expiresAt = expiry === undefined ? null : Date.parse(expiry)
      await db
        .insertInto('wallet_sessions')
        .values({ origin, session: JSON.stringify(session), created_at: now, updated_at: now, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.column('origin').doUpdateSet({ session: JSON.stringify(session), updated_at: now, expires_at: expiresAt }),
        )
        .execute()
      await bump()
    },
    async deleteSession(origin: string): Promise<boolean> {
      const r = await db.deleteFrom('wallet_sessions').where('origin', '=', origin).executeTakeFirst()
      await bump()
      return Number(r.numDeletedRows) > 0
    },

    // ---- approvals
    async insertApproval(a: {
      id: string
      origin: string
      kind: ApprovalKind
      request: unknown
      createdAt: number
      expiresAt: number
    }) {
      await db
        .insertInto('wallet_approvals')
        .values({
          id: a.id,
          origin: a.origin,
          kind: a.kind,
          request: JSON.stringify(a.request),
          status: 'pending',
          decision: null,
          decided_by: null,
          created_at: a.createdAt,
          expires_at: a.expiresAt,
          decided_at: null,
        })
        .execute()
      await bump()
    },
    async getApproval(id: string): Promise<ApprovalRow | undefined> {
      const r = await db.selectFrom('wallet_approvals').selectAll().where('id', '=', id).executeTakeFirst()
      return r ? toApproval(r) : undefined
    },
    async listApprovals(status?: ApprovalStatus): Promise<ApprovalRow[]> {
      let q = db.selectFrom('wallet_approvals').selectAll().orderBy('created_at')
      if (status) q = q.where('status', '=', status)
      return (await q.execute()).map(toApproval)
    },
    /** Decides a pending approval; false when it was no longer pending (someone else answered, or it expired). */
    async decideApproval(
      id: string,
      { status, decision, by }: { status: Exclude<ApprovalStatus, 'pending'>; decision?: unknown; by: string },
      now: number,
    ): Promise<boolean> {
      const r = await db
        .updateTable('wallet_approvals')
        .set({
          status,
          decision: decision === undefined ? null : JSON.stringify(decision),
          decided_by: by,
          decided_at: now,
        })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .executeTakeFirst()
      await bump()
      return Number(r.numUpdatedRows) > 0
    },
    /** Forgets answered approvals decided before `before` (the table would otherwise only grow). */
    async pruneApprovals(before: number): Promise<void> {
      await db
        .deleteFrom('wallet_approvals')
        .where('status', '!=', 'pending')
        .where('decided_at', '<', before)
        .execute()
    },
    /** Pending approvals left over from a previous run can never be answered to their dapp. */
    async cancelAllPending(now: number): Promise<void> {
      await db
        .updateTable('wallet_approvals')
        .set({ status: 'cancelled', decided_by: 'restart', decided_at: now })
        .where('status', '=', 'pending')
        .execute()
      await bump()
    },
  }
}
