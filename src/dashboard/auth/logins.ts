/**
 * Dashboard sessions. The cookie carries 32 random bytes (base64url); the sessions repository stores only their
 * sha256, so a copy of the database cannot be replayed as a login. Each session has its own CSRF token, sent back
 * in a hidden form field with every POST.
 */
import { createHash, randomBytes } from 'node:crypto'
import type { SessionOrigin, SessionRecord, SessionsRepository } from '../../accounts/login-repository.ts'
import { constantTimeEqual } from '../../shared/constant-time.ts'

export const SESSION_COOKIE = 'cg_session'
/** Double-submit CSRF cookie for the forms used before a session exists (login, sign-up). */
export const PRELOGIN_CSRF_COOKIE = 'cg_csrf'

export type Session = SessionRecord

export const randomToken = () => randomBytes(32).toString('base64url')
const sha256 = (v: string) => createHash('sha256').update(v).digest('hex')

export async function createSession(
  sessions: SessionsRepository,
  accountId: string,
  nowMs: number,
  ttlMs: number,
  origin?: SessionOrigin,
): Promise<{ cookieValue: string; session: Session }> {
  const cookieValue = randomToken()
  const session: Session = {
    idHash: sha256(cookieValue),
    accountId,
    csrfToken: randomToken(),
    expiresAt: nowMs + ttlMs,
  }
  await sessions.insert(session, nowMs, origin)
  // Expired sessions go away as new ones are made; no timer needed.
  await sessions.deleteExpired(nowMs)
  return { cookieValue, session }
}

export async function findSession(
  sessions: SessionsRepository,
  cookieValue: string | undefined,
  nowMs: number,
): Promise<Session | null> {
  if (!cookieValue || cookieValue.length > 100) return null
  const found = await sessions.find(sha256(cookieValue))
  return found && found.expiresAt > nowMs ? found : null
}

/** Constant-time comparison of two tokens; false when either is missing. */
export function tokensEqual(expected: string | undefined, actual: string | undefined): boolean {
  if (!expected || !actual) return false
  return constantTimeEqual(expected, actual)
}
