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

export interface SessionsRepository {
  insert(session: SessionRecord, nowMs: number): Promise<void>
  /** The session with this id hash, expired or not. */
  find(idHash: string): Promise<SessionRecord | undefined>
  delete(idHash: string): Promise<void>
  deleteExpired(nowMs: number): Promise<void>
}

export function createSessionsRepository(db: Db): SessionsRepository {
  return {
    async insert(s, nowMs) {
      await db
        .insertInto('dashboard_sessions')
        .values({
          id_hash: s.idHash,
          account_id: s.accountId,
          csrf_token: s.csrfToken,
          created_at: nowMs,
          expires_at: s.expiresAt,
        })
        .execute()
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
