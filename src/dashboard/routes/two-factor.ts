/**
 * Two-factor log-in (TOTP, RFC 6238) and the account's active log-ins (docs/dashboard.md).
 *
 * After the right password an account with 2FA gets a short-lived, single-use "login-2fa" token in a cookie
 * (link-tokens.ts) instead of a session; the code form counts against the same log-in limits as passwords. A code
 * is accepted once (a replay within its window is refused); a recovery code once. Turning 2FA off needs the
 * password and a code; an operator can reset it for a locked-out user (admin API, CLI).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { accountMails } from '../../mail/account-mails.ts'
import {
  checkSecondFactor,
  hashRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  totpEnrollment,
  totpStep,
} from '../auth/two-factor.ts'
import { verifyPassword } from '../auth/passwords.ts'
import { emailSubject } from '../../accounts/login-limiter.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { noteActor, noteChange } from '../middleware/audit.ts'
import { checkPost, preloginCtx, preloginPostOk } from '../middleware/csrf.ts'
import { requireAccount, setDashboardCookie, startSession, twoFactorRequired } from '../middleware/session.ts'
import { messagePage } from '../pages/layout.ts'
import { enrollPage, recoveryCodesPage, secondFactorPage } from '../pages/two-factor.ts'
import { sendAccountMail } from './account-links.ts'

const PENDING_COOKIE = 'cg_2fa'
const PENDING_TTL_MS = 5 * 60_000

/** After the password: the second step's token in a cookie, and the code form. */
export async function beginSecondFactor(
  dash: Dash,
  reply: FastifyReply,
  accountId: string,
  next: string | undefined,
): Promise<FastifyReply> {
  const token = await dash.linkTokens.issue(
    { purpose: 'login-2fa', accountId, data: next ?? null, ttlMs: PENDING_TTL_MS },
    dash.clock.now(),
  )
  setDashboardCookie(reply, PENDING_COOKIE, token, PENDING_TTL_MS / 1000)
  return reply.redirect('/login/2fa', 303)
}

export function registerTwoFactorRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash
  const again = (req: FastifyRequest, reply: FastifyReply, status: number, message: string) =>
    sendPage(reply, status, secondFactorPage(preloginCtx(req, reply, '/login', { kind: 'error', message })))

  app.get('/login/2fa', async (req, reply) => {
    const pending = await dash.linkTokens.peek('login-2fa', req.cookies[PENDING_COOKIE] ?? '', clock.now())
    if (!pending) return reply.redirect('/login', 303)
    return sendPage(reply, 200, secondFactorPage(preloginCtx(req, reply, '/login')))
  })

  app.post('/login/2fa', async (req, reply) => {
    if (!preloginPostOk(req)) return again(req, reply, 403, 'The form expired. Try again.')
    const token = req.cookies[PENDING_COOKIE] ?? ''
    const pending = await dash.linkTokens.peek('login-2fa', token, clock.now())
    const account = pending?.accountId ? await dash.accounts.get(pending.accountId) : undefined
    if (!account) return reply.redirect('/login', 303)
    // Second-factor guesses count with password guesses: per email and per client IP.
    const admitted = await dash.loginLimiter.begin([emailSubject(account.email), `ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) {
      const seconds = Math.ceil(admitted.waitMs / 1000)
      reply.header('retry-after', String(seconds))
      return again(req, reply, 429, `Too many failed log-ins. Try again in ${seconds} seconds.`)
    }
    if (!(await checkSecondFactor(dash.twoFactor, account.id, field(req.body, 'code'), clock.now()))) {
      logger.info({ ip: req.ip }, 'dashboard login: second factor refused')
      return again(req, reply, 401, 'The code is wrong or was already used.')
    }
    if (!(await dash.linkTokens.consume('login-2fa', token, clock.now()))) return reply.redirect('/login', 303)
    dash.loginLimiter.forgive(admitted.attempt, emailSubject(account.email))
    setDashboardCookie(reply, PENDING_COOKIE, '', 0)
    await startSession(dash, req, reply, account.id)
    logger.info({ accountId: account.id }, 'dashboard login (two-factor)')
    return reply.redirect(pending?.data ?? '/keys', 303)
  })

  app.post('/account/2fa/setup', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const secret = newTotpSecret()
    if (!(await dash.twoFactor.setPending(who.account.id, secret, clock.now()))) return reply.redirect('/account', 303)
    const issuer = dash.cfg.publicBaseUrl ? new URL(dash.cfg.publicBaseUrl).host : 'chaingate'
    const enrollment = await totpEnrollment(secret, who.account.email, issuer)
    return sendPage(reply, 200, enrollPage(await dash.pageCtx(req, '/account'), { ...enrollment, secret }))
  })

  app.post('/account/2fa/enable', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const record = await dash.twoFactor.get(who.account.id)
    if (!record || record.enabledAt) return reply.redirect('/account', 303)
    const step = totpStep(record.secret, field(req.body, 'code'), clock.now())
    if (step === null) {
      const enrollment = await totpEnrollment(record.secret, who.account.email, 'chaingate')
      const ctx = await dash.pageCtx(req, '/account', {
        kind: 'error',
        message: 'The code is wrong. Try the next one.',
      })
      return sendPage(reply, 400, enrollPage(ctx, { ...enrollment, secret: record.secret }))
    }
    const codes = newRecoveryCodes()
    await dash.twoFactor.enable(who.account.id, step, codes.map(hashRecoveryCode), clock.now())
    noteChange(req, { target: who.account.id, summary: 'two-factor log-in turned on' })
    await sendAccountMail(dash, accountMails.twoFactor(who.account.email, true), '2fa on')
    logger.info({ accountId: who.account.id }, 'dashboard two-factor log-in on')
    return sendPage(reply, 200, recoveryCodesPage(await dash.pageCtx(req, '/account'), codes))
  })

  app.post('/account/2fa/disable', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const refuse = async (status: number, message: string) =>
      sendPage(reply, status, messagePage('Two-factor log-in', await dash.pageCtx(req, '/account'), message))
    if (twoFactorRequired(dash, who.account)) return refuse(403, 'Two-factor log-in is required on this gateway.')
    const admitted = await dash.loginLimiter.begin([emailSubject(who.account.email), `ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) return refuse(429, 'Too many wrong passwords or codes. Try again later.')
    const stored = await dash.credentials.findByEmail(who.account.email)
    const passwordOk = stored ? await verifyPassword(field(req.body, 'password'), stored.passwordHash) : false
    const codeOk =
      passwordOk && (await checkSecondFactor(dash.twoFactor, who.account.id, field(req.body, 'code'), clock.now()))
    if (!codeOk) return refuse(401, 'The password or the code is wrong. Two-factor log-in is still on.')
    dash.loginLimiter.forgive(admitted.attempt)
    await dash.twoFactor.disable(who.account.id)
    noteChange(req, { target: who.account.id, summary: 'two-factor log-in turned off' })
    await sendAccountMail(dash, accountMails.twoFactor(who.account.email, false), '2fa off')
    logger.info({ accountId: who.account.id }, 'dashboard two-factor log-in off')
    return reply.redirect('/account?done=2fa-off', 303)
  })

  app.post('/account/sessions/end', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const idHash = field(req.body, 'session')
    // Only a session of this account: another account's id answers like an unknown one.
    if (!(await dash.sessions.deleteOfAccount(who.account.id, idHash))) return dash.notFound(req, reply)
    noteActor(req, who.account.id)
    noteChange(req, { target: who.account.id, summary: 'a log-in session ended' })
    if (idHash === who.session.idHash) {
      setDashboardCookie(reply, 'cg_session', '', 0)
      return reply.redirect('/login', 303)
    }
    return reply.redirect('/account?done=session', 303)
  })
}
