/**
 * CSRF defences: every POST of a logged-in page carries the session's token (hidden `_csrf` field); log-in and
 * sign-up, which have no session yet, use a double-submit cookie (`cg_csrf`) with the same value in the form.
 * A POST whose Origin header names another site is refused too (defence in depth next to the token).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { PRELOGIN_CSRF_COOKIE, randomToken, tokensEqual } from '../auth/logins.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { messagePage, type PageContext } from '../pages/layout.ts'
import { setDashboardCookie } from './session.ts'

/** When the browser sends Origin on a POST, it must be this site. */
export function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin
  if (origin === undefined) return true
  try {
    return new URL(origin).host === req.host
  } catch {
    return false
  }
}

/** A pre-login page gets a double-submit CSRF cookie (kept if present) and the same value in its form. */
export function preloginCtx(
  req: FastifyRequest,
  reply: FastifyReply,
  current: string,
  flash?: PageContext['flash'],
): PageContext {
  const token = req.cookies[PRELOGIN_CSRF_COOKIE] || randomToken()
  setDashboardCookie(reply, PRELOGIN_CSRF_COOKIE, token, 3600)
  return { csrfToken: token, current, flash }
}

/** A log-in or sign-up POST from this site's own form. */
export function preloginPostOk(req: FastifyRequest): boolean {
  return sameOrigin(req) && tokensEqual(req.cookies[PRELOGIN_CSRF_COOKIE], field(req.body, '_csrf'))
}

/** Every POST of a logged-in page: same origin and the session's CSRF token; otherwise answers 403 and false. */
export async function checkPost(
  dash: Dash,
  req: FastifyRequest,
  reply: FastifyReply,
  expected: string | undefined,
): Promise<boolean> {
  if (sameOrigin(req) && tokensEqual(expected, field(req.body, '_csrf'))) return true
  dash.logger.warn({ url: req.url.split('?')[0], ip: req.ip }, 'dashboard form refused: CSRF token missing or wrong')
  await sendPage(
    reply,
    403,
    messagePage(
      'Form expired',
      await dash.pageCtx(req, ''),
      'This form is missing its security token or has expired. Reload the page and try again.',
    ),
  )
  return false
}
