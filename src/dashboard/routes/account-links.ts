/**
 * The mailed links (docs/dashboard.md, "Mail"): sign-up confirmation, "Forgot password" and the reset form.
 *
 * A link's GET only shows a form (mail scanners fetch links); its POST, with the pre-log-in CSRF token, uses the
 * token once. A link for one account is refused while logged in as another. "Forgot password" answers the same
 * and does the same work for any address: one token issued and one mail sent (an unknown address is told no account
 * uses it), rate-limited per email and per client IP before any work.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { normalizeEmail } from '../../accounts/email.ts'
import { accountMails } from '../../mail/account-mails.ts'
import type { MailMessage } from '../../mail/mailer.ts'
import { hashPassword, passwordProblem } from '../auth/passwords.ts'
import { emailSubject } from '../../accounts/login-limiter.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { noteActor, noteChange } from '../middleware/audit.ts'
import { checkPost, preloginCtx, preloginPostOk } from '../middleware/csrf.ts'
import { requireAccount } from '../middleware/session.ts'
import { confirmPage, forgotPage, resetPage } from '../pages/account-links.ts'
import { messagePage } from '../pages/layout.ts'

const LINK_INVALID = 'This link is invalid, already used or expired. Ask for a new one.'
const OTHER_ACCOUNT = 'This link belongs to another account than the one logged in here. Log out first, then open it.'
const FORM_EXPIRED = 'This form is missing its security token or has expired. Reload the page and try again.'

/** Sends a mail; a failure is logged, never shown (the answer must not depend on it). */
export async function sendAccountMail(dash: Dash, message: MailMessage, what: string): Promise<void> {
  try {
    await dash.mailer.send(message)
  } catch (err) {
    dash.logger.error({ err: { message: (err as Error).message }, what }, 'mail not sent')
  }
}

/** Issues a confirmation token for the account and mails its link. */
export async function mailConfirmation(dash: Dash, req: FastifyRequest, accountId: string, email: string) {
  const hours = dash.cfg.confirmLinkHours
  const token = await dash.linkTokens.issue(
    { purpose: 'confirm', accountId, email, ttlMs: hours * 3_600_000 },
    dash.clock.now(),
  )
  await sendAccountMail(
    dash,
    accountMails.confirm(email, `${dash.linkBase(req)}/confirm?token=${token}`, hours),
    'confirm',
  )
}

/** Issues a reset token (replacing older ones) and mails its link with `mail`. */
export async function mailResetLink(
  dash: Dash,
  req: FastifyRequest,
  email: string,
  accountId: string | null,
  mail: (to: string, url: string, minutes: number) => MailMessage,
) {
  const minutes = dash.cfg.resetLinkMinutes
  const now = dash.clock.now()
  if (accountId) await dash.linkTokens.revokeAll('reset', accountId, now)
  const token = await dash.linkTokens.issue({ purpose: 'reset', accountId, email, ttlMs: minutes * 60_000 }, now)
  await sendAccountMail(dash, mail(email, `${dash.linkBase(req)}/reset?token=${token}`, minutes), 'reset')
}

export function registerAccountLinkRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash
  const page = (req: FastifyRequest, reply: FastifyReply, status: number, title: string, message: string) =>
    sendPage(reply, status, messagePage(title, preloginCtx(req, reply, ''), message))
  const tokenOf = (req: FastifyRequest) =>
    req.method === 'GET' ? String((req.query as Record<string, unknown>).token ?? '') : field(req.body, 'token')
  /** The link's account is not the logged-in one. */
  const otherAccount = (req: FastifyRequest, accountId: string | null) =>
    req.dashboardSession != null && req.dashboardSession.accountId !== accountId

  app.get('/forgot', async (req, reply) => sendPage(reply, 200, forgotPage(preloginCtx(req, reply, '/forgot'))))

  app.post('/forgot', async (req, reply) => {
    if (!preloginPostOk(req)) return page(req, reply, 403, 'Form expired', FORM_EXPIRED)
    const email = normalizeEmail(field(req.body, 'email'))
    const admitted = await dash.resetLimiter.begin([emailSubject(email), `ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) {
      const seconds = Math.ceil(admitted.waitMs / 1000)
      reply.header('retry-after', String(seconds))
      logger.warn({ ip: req.ip }, 'dashboard password reset rate limited')
      const message = `Too many reset requests for this email or from your address. Try again in ${seconds} seconds.`
      return sendPage(reply, 429, forgotPage(preloginCtx(req, reply, '/forgot', { kind: 'error', message }), { email }))
    }
    const account = await dash.accounts.findByEmail(email)
    // The same steps either way: one token, one mail (an unknown address is told no account uses it).
    if (account) await mailResetLink(dash, req, account.email, account.id, accountMails.reset)
    else await mailResetLink(dash, req, email, null, (to) => accountMails.resetUnknown(to))
    logger.info({ ip: req.ip }, 'dashboard password reset requested')
    return reply.redirect('/login?reset=sent', 303)
  })

  app.get('/reset', async (req, reply) => {
    const token = tokenOf(req)
    const found = await dash.linkTokens.peek('reset', token, clock.now())
    if (!found?.accountId) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    if (otherAccount(req, found.accountId)) return page(req, reply, 403, 'Another account', OTHER_ACCOUNT)
    return sendPage(reply, 200, resetPage(preloginCtx(req, reply, ''), token))
  })

  app.post('/reset', async (req, reply) => {
    if (!preloginPostOk(req)) return page(req, reply, 403, 'Form expired', FORM_EXPIRED)
    const token = field(req.body, 'token')
    const password = field(req.body, 'password')
    const found = await dash.linkTokens.peek('reset', token, clock.now())
    if (!found?.accountId) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    if (otherAccount(req, found.accountId)) return page(req, reply, 403, 'Another account', OTHER_ACCOUNT)
    // A password refused keeps the link usable: it is checked before the token is used.
    const problem = passwordProblem(password)
    if (problem) {
      const ctx = preloginCtx(req, reply, '', { kind: 'error', message: `Choose another password: ${problem}.` })
      return sendPage(reply, 400, resetPage(ctx, token))
    }
    const hash = await hashPassword(password)
    const used = await dash.linkTokens.consume('reset', token, clock.now())
    const account = used?.accountId ? await dash.accounts.get(used.accountId) : undefined
    if (!account) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    // Ends every session of the account (the one in this browser too, if any).
    await dash.credentials.setPasswordHash(account.id, hash, clock.now())
    await dash.linkTokens.revokeAll('reset', account.id, clock.now())
    // Following the mailed link proves the address too.
    await dash.accounts.confirmEmail(account.id, clock.now())
    noteActor(req, account.id)
    noteChange(req, { target: account.id, summary: 'password set with a reset link; every session ended' })
    await sendAccountMail(dash, accountMails.passwordChanged(account.email), 'password changed')
    logger.info({ accountId: account.id }, 'dashboard password reset')
    return reply.redirect('/login?reset=done', 303)
  })

  app.get('/confirm', async (req, reply) => {
    const token = tokenOf(req)
    const found = await dash.linkTokens.peek('confirm', token, clock.now())
    if (!found?.accountId || !found.email) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    if (otherAccount(req, found.accountId)) return page(req, reply, 403, 'Another account', OTHER_ACCOUNT)
    return sendPage(reply, 200, confirmPage(preloginCtx(req, reply, ''), token, found.email))
  })

  app.post('/confirm', async (req, reply) => {
    if (!preloginPostOk(req)) return page(req, reply, 403, 'Form expired', FORM_EXPIRED)
    const token = field(req.body, 'token')
    const found = await dash.linkTokens.peek('confirm', token, clock.now())
    if (!found?.accountId) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    if (otherAccount(req, found.accountId)) return page(req, reply, 403, 'Another account', OTHER_ACCOUNT)
    const used = await dash.linkTokens.consume('confirm', token, clock.now())
    const account = used?.accountId ? await dash.accounts.get(used.accountId) : undefined
    // The address must still be the account's (no link outlives an email change or a deletion).
    if (!account || account.email !== used?.email) return page(req, reply, 400, 'Link not valid', LINK_INVALID)
    await dash.accounts.confirmEmail(account.id, clock.now())
    noteActor(req, account.id)
    noteChange(req, { target: account.id, summary: 'email confirmed' })
    logger.info({ accountId: account.id }, 'dashboard email confirmed')
    return reply.redirect(req.dashboardSession ? '/keys?confirmed=done' : '/login?confirmed=done', 303)
  })

  app.post('/confirm/resend', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    if (who.account.emailConfirmedAt !== null) return reply.redirect('/keys', 303)
    const admitted = await dash.resetLimiter.begin([`confirm:${who.account.id}`], clock.now())
    if ('waitMs' in admitted) {
      const seconds = Math.ceil(admitted.waitMs / 1000)
      reply.header('retry-after', String(seconds))
      const message = `Too many links sent. Try again in ${seconds} seconds.`
      return sendPage(reply, 429, messagePage('Try later', await dash.pageCtx(req, ''), message))
    }
    await mailConfirmation(dash, req, who.account.id, who.account.email)
    return reply.redirect('/keys?confirm=sent', 303)
  })
}
