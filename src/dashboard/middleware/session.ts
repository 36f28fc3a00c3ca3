/**
 * Log-in sessions: the `cg_session` cookie (HttpOnly, SameSite=Lax, Secure when the request came over TLS — behind
 * a TLS-terminating proxy that needs `gateway.trustProxy`) is resolved to a session before every dashboard route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../../accounts/repository.ts'
import { createSession, findSession, PRELOGIN_CSRF_COOKIE, SESSION_COOKIE, type Session } from '../auth/logins.ts'
import { sendPage, type Dash } from '../context.ts'
import { messagePage } from '../pages/layout.ts'
import { noteActor } from './audit.ts'

/** Sets a dashboard cookie; max age 0 deletes it. */
export function setDashboardCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number): void {
  reply.setCookie(name, value, { path: '/', httpOnly: true, sameSite: 'lax', secure: 'auto', maxAge: maxAgeSeconds })
}

export function registerSessionMiddleware(app: FastifyInstance, dash: Dash): void {
  app.addHook('onRequest', async (req, reply) => {
    const session = await findSession(dash.sessions, req.cookies[SESSION_COOKIE], dash.clock.now())
    req.dashboardSession = session
    if (!session) return
    // An account an operator disabled (or deleted) loses its log-ins at their next request, not at their expiry.
    const account = await dash.accounts.get(session.accountId)
    if (account && account.disabledAt === null) {
      // Last seen, for the account page's list of log-ins (written at most once a minute).
      await dash.sessions.touch(session.idHash, dash.clock.now())
      return
    }
    await endSession(dash, session, reply)
    req.dashboardSession = null
    req.dashboardAccountDisabled = account !== undefined
  })
}

const TFA = 'This gateway requires two-factor log-in: set it up on the account page first.'
/** Whether the config makes two-factor log-in mandatory for this account. */
export const twoFactorRequired = (dash: Dash, account: Pick<Account, 'role'>): boolean =>
  dash.cfg.requireTwoFactor === 'all' || (dash.cfg.requireTwoFactor === 'operators' && account.role === 'operator')
const lacksTwoFactor = async (dash: Dash, account: Account) => !(await dash.twoFactor.get(account.id))?.enabledAt

/** Why a disabled account cannot log in (the log-in form and the page a disabled account's session ends on). */
export const ACCOUNT_DISABLED =
  "This account is disabled by the gateway's operator: it cannot log in and its keys are refused. Ask the operator."

/**
 * The logged-in account, or null after answering: a GET goes to the log-in page (and comes back after), anything
 * else is refused with 403.
 */
export async function requireAccount(
  dash: Dash,
  req: FastifyRequest,
  reply: FastifyReply,
): Promise<{ session: Session; account: Account } | null> {
  const session = req.dashboardSession
  const account = session ? await dash.accounts.get(session.accountId) : undefined
  if (session && account) {
    noteActor(req, account.id)
    // Two-factor log-in required (config dashboard.requireTwoFactor) and not set up: only the account page (where it
    // is set up) and log-out are open.
    if (twoFactorRequired(dash, account) && !req.url.startsWith('/account') && (await lacksTwoFactor(dash, account))) {
      if (req.method === 'GET') await reply.redirect('/account?done=2fa-required', 303)
      else await sendPage(reply, 403, messagePage('Two-factor log-in required', await dash.pageCtx(req, ''), TFA))
      return null
    }
    return { session, account }
  }
  if (req.dashboardAccountDisabled) {
    if (req.method === 'GET') await reply.redirect('/login?disabled=1', 303)
    else await sendPage(reply, 403, messagePage('Account disabled', { csrfToken: '', current: '' }, ACCOUNT_DISABLED))
    return null
  }
  if (req.method === 'GET') {
    const next = req.url.startsWith('/') && !req.url.startsWith('//') ? req.url : '/'
    await reply.redirect(`/login?next=${encodeURIComponent(next)}`, 303)
  } else {
    await sendPage(
      reply,
      403,
      messagePage('Not logged in', { csrfToken: '', current: '' }, 'Your session has ended. Log in again.'),
    )
  }
  return null
}

/** A new session id at every log-in (no session fixation); the old one, if any, is dropped. */
export async function startSession(
  dash: Dash,
  req: FastifyRequest,
  reply: FastifyReply,
  accountId: string,
): Promise<void> {
  if (req.dashboardSession) await dash.sessions.delete(req.dashboardSession.idHash)
  const origin = { userAgent: req.headers['user-agent'] ?? null, ip: req.ip }
  const { cookieValue } = await createSession(dash.sessions, accountId, dash.clock.now(), dash.sessionTtlMs, origin)
  setDashboardCookie(reply, SESSION_COOKIE, cookieValue, Math.floor(dash.sessionTtlMs / 1000))
  setDashboardCookie(reply, PRELOGIN_CSRF_COOKIE, '', 0)
}

export async function endSession(dash: Dash, session: Session, reply: FastifyReply): Promise<void> {
  await dash.sessions.delete(session.idHash)
  setDashboardCookie(reply, SESSION_COOKIE, '', 0)
}
