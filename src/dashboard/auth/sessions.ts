/**
 * Dashboard sessions. The cookie carries 32 random bytes (base64url); the table stores only their sha256, so a
 * copy of the database cannot be replayed as a login. Each session has its own CSRF token, sent back in a hidden
 * form field with every POST.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Db } from '../../db/database.ts'

export const SESSION_COOKIE = 'cg_session'
/** Double-submit CSRF cookie for the forms used before a session exists (login, sign-up). */
export const PRELOGIN_CSRF_COOKIE = 'cg_csrf'

export interface Session {
  idHash: string
  accountId: string
  csrfToken: string
  expiresAt: number
}

export const randomToken = () => randomBytes(32).toString('base64url')
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex')

export async function createSession(
  db: Db,
  accountId: string,
  nowMs: number,
  ttlMs: number,
): Promise<{ cookieValue: string; session: Session }> {
  const cookieValue = randomToken()
  const session: Session = { idHash: sha256(cookieValue), accountId, csrfToken: randomToken(), expiresAt: nowMs + ttlMs }
  await db
    .insertInto('dashboard_sessions')
    .values({
      id_hash: session.idHash,
      account_id: accountId,
      csrf_token: session.csrfToken,
      created_at: nowMs,
      expires_at: session.expiresAt,
    })
    .execute()
  // Expired sessions go away as new ones are made; no timer needed.
  await db.deleteFrom('dashboard_sessions').where('expires_at', '<=', nowMs).execute()
  return { cookieValue, session }
}

export async function findSession(db: Db, cookieValue: string | undefined, nowMs: number): Promise<Session | null> {
  if (!cookieValue || cookieValue.length > 100) return null
  const row = await db
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('id_hash', '=', sha256(cookieValue))
    .executeTakeFirst()
  if (!row || row.expires_at <= nowMs) return null
  return { idHash: row.id_hash, accountId: row.account_id, csrfToken: row.csrf_token, expiresAt: row.expires_at }
}

export async function deleteSession(db: Db, idHash: string): Promise<void> {
  await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute()
}

/** Constant-time comparison of two tokens; false when either is missing. */
export function tokensEqual(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
