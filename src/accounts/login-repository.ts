/**
 * Dashboard log-in sessions (table `dashboard_sessions`). Rows hold only the sha256 of the cookie value, so a copy
 * of the database cannot be replayed as a log-in (src/dashboard/auth/logins.ts makes and checks the values).
 */
import type { Db } from '../db/database.ts'

export interface SessionRecord {
  idHash: string
  accountId: string
  csrfToken: string
  expiresAt: number
}

/** Where a log-in came from (the account page lists them); stored with the session. */
export interface SessionOrigin {
  userAgent: string | null
  ip: string | null
}

/** A session as the account page lists it. */
export interface SessionListing extends SessionOrigin {
  idHash: string
  createdAt: number
  lastSeenAt: number
  expiresAt: number
}

/** How often `touch` writes last-seen: at most once a minute per session. */
const TOUCH_EVERY_MS = 60_000

export interface SessionsRepository {
  insert(session: SessionRecord, nowMs: number, origin?: SessionOrigin): Promise<void>
  /** The account's unexpired sessions, most recently seen first. */
  listByAccount(accountId: string, nowMs: number): Promise<SessionListing[]>
  /** Notes the session was used now (written at most once a minute). */
  touch(idHash: string, nowMs: number): Promise<void>
  /** Ends one session of the account; false when it has no such session. */
  deleteOfAccount(accountId: string, idHash: string): Promise<boolean>
  /** Ends every session of the account. */
  deleteAllOfAccount(accountId: string): Promise<void>
  /** The session with this id hash, expired or not. */
  find(idHash: string): Promise<SessionRecord | undefined>
  delete(idHash: string): Promise<void>
  deleteExpired(nowMs: number): Promise<void>
}

export function createSessionsRepository(db: Db): SessionsRepository {
  return {
    async insert(s, nowMs, origin) {
      await db
        .insertInto('dashboard_sessions')
        .values({
          id_hash: s.idHash,
          account_id: s.accountId,
          csrf_token: s.csrfToken,
          created_at: nowMs,
          expires_at: s.expiresAt,
          user_agent: origin?.userAgent?.slice(0, 512) ?? null,
          ip: origin?.ip?.slice(0, 64) ?? null,
          last_seen_at: nowMs,
        })
        .execute()
    },
    async listByAccount(accountId, nowMs) {
      const rows = await db
        .selectFrom('dashboard_sessions')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('expires_at', '>', nowMs)
        .execute()
      return rows
        .map((r) => ({
          idHash: r.id_hash,
          userAgent: r.user_agent,
          ip: r.ip,
          createdAt: r.created_at,
          lastSeenAt: r.last_seen_at ?? r.created_at,
          expiresAt: r.expires_at,
        }))
        .sort((a, b) => b.lastSeenAt - a.lastSeenAt)
    },
    async touch(idHash, nowMs) {
      await db
        .updateTable('dashboard_sessions')
        .set({ last_seen_at: nowMs })
        .where('id_hash', '=', idHash)
        .where((eb) => eb.or([eb('last_seen_at', 'is', null), eb('last_seen_at', '<', nowMs - TOUCH_EVERY_MS)]))
        .execute()
    },
    async deleteOfAccount(accountId, idHash) {
      const r = await db
        .deleteFrom('dashboard_sessions')
        .where('account_id', '=', accountId)
        .where('id_hash', '=', idHash)
        .executeTakeFirst()
      return Number(r.numDeletedRows) === 1
    },
    async deleteAllOfAccount(accountId) {
      await db.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute()
    },
    async find(idHash) {
      const row = await db.selectFrom('dashboard_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst()
      return (
        row && { idHash: row.id_hash, accountId: row.account_id, csrfToken: row.csrf_token, expiresAt: row.expires_at }
      )
    },
    async delete(idHash) {
      await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute()
    },
    async deleteExpired(nowMs) {
      await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', nowMs).execute()
    },
  }
}
