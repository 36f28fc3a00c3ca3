/**
 * Account routes: the landing/overview page, sign-up, log-in and log-out.
 *
 * Sign-up answers the same way whether or not the email already has an account (a 303 to the log-in page with
 * the same message, after the same scrypt work and exactly one mail: the confirmation link to a new address, a
 * "someone tried to sign up with your address" notice with a reset link to a known one), so the form cannot be
 * used to learn who has an account. Log-in and sign-up attempts are counted before the password work starts
 * (login-limiter.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { creditsUsedToday, dailyCredits } from '../../usage/queries.ts'
import { isChaingateError } from '../../errors/index.ts'
import { checkLogin } from '../auth/set-password.ts'
import { hashPassword, passwordProblem } from '../auth/passwords.ts'
import { emailSubject } from '../../accounts/login-limiter.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { preloginCtx, preloginPostOk, checkPost } from '../middleware/csrf.ts'
import { noteActor } from '../middleware/audit.ts'
import { ACCOUNT_DISABLED, endSession, setDashboardCookie, startSession } from '../middleware/session.ts'
import { requireTeam } from '../middleware/team.ts'
import { TEAM_COOKIE } from '../middleware/current-team.ts'
import { landingPage, loginPage, overviewPage, signupPage } from '../pages/account.ts'
import { messagePage } from '../pages/layout.ts'
import { accountMails } from '../../mail/account-mails.ts'
import { mailConfirmation, mailResetLink, sendAccountMail } from './account-links.ts'
import { beginSecondFactor } from './two-factor.ts'

/** Where the dashboard goes after log-in when `next` is missing or not a page of this site. */
export const HOME = '/keys'

const OWN = new URL('http://dashboard.invalid/')

/**
 * `next` resolved against the dashboard's own origin with the WHATWG URL parser (as the browser will), kept only
 * when it is a path (starts with `/`) that stays on that origin: tabs, backslashes, `//host` and schemes all fall
 * away. The result is the parser's normalized path, so the Location header cannot be read differently.
 */
export function safeNext(next: string | undefined): string | undefined {
  if (!next || next.length > 2048 || !next.startsWith('/')) return undefined
  let url: URL
  try {
    url = new URL(next, OWN)
  } catch {
    return undefined
  }
  if (url.origin !== OWN.origin || url.username || url.password) return undefined
  const path = `${url.pathname}${url.search}${url.hash}`
  return path.startsWith('//') || path.startsWith('/\\') ? undefined : path
}

const SIGNED_UP = 'Sign-up received. Log in with the email and password you chose.'
const SIGNED_UP_CONFIRM =
  'Sign-up received. We mailed a link to confirm your address: follow it to create API keys. You can log in now.'
const LOGIN_FLASH: Record<string, Record<string, { kind: 'ok' | 'error'; message: string }>> = {
  reset: {
    sent: { kind: 'ok', message: 'If an account uses that address, a link to set a new password is on its way.' },
    done: { kind: 'ok', message: 'Password set, and every session logged out. Log in with the new password.' },
  },
  confirmed: { done: { kind: 'ok', message: 'Email confirmed. Log in to create API keys.' } },
}
const ACCOUNT_DELETED = 'Your account was deleted and its keys revoked.'

export function registerAccountRoutes(app: FastifyInstance, dash: Dash): void {
  const { cfg, clock, logger } = dash

  /** Sets Retry-After; the whole seconds to wait, for the message. */
  const retryAfter = (reply: FastifyReply, waitMs: number) => {
    const seconds = Math.ceil(waitMs / 1000)
    reply.header('retry-after', String(seconds))
    return seconds
  }

  app.get('/', async (req, reply) => {
    if (!req.dashboardSession) return sendPage(reply, 200, landingPage(await dash.pageCtx(req, '/'), cfg.signup))
    const who = await requireTeam(dash, req, reply, 'team.read')
    if (!who) return reply
    const now = clock.now()
    const active = await dash.keys.list({ accountId: who.team.id })
    return sendPage(
      reply,
      200,
      overviewPage(await dash.pageCtx(req, '/'), {
        planName: who.team.plan,
        plan: dash.planOf(who.team.plan),
        usedToday: await creditsUsedToday(dash.deps.db, who.team.id, now),
        activeKeys: active.length,
        daily: await dailyCredits(dash.deps.db, who.team.id, 7, now),
      }),
    )
  })

  app.get('/signup', async (req, reply) => {
    if (req.dashboardSession) return reply.redirect(HOME, 303)
    const invite = (req.query as { invite?: unknown }).invite
    const opts = { enabled: cfg.signup, ...(typeof invite === 'string' ? { invite } : {}) }
    return sendPage(reply, 200, signupPage(preloginCtx(req, reply, '/signup'), opts))
  })

  app.post('/signup', async (req, reply) => {
    if (!cfg.signup) return sendPage(reply, 403, signupPage(preloginCtx(req, reply, '/signup'), { enabled: false }))
    if (!preloginPostOk(req))
      return sendPage(
        reply,
        403,
        messagePage(
          'Form expired',
          preloginCtx(req, reply, ''),
          'This form is missing its security token or has expired. Reload the page and try again.',
        ),
      )
    const email = field(req.body, 'email').trim().toLowerCase()
    const password = field(req.body, 'password')
    const invite = field(req.body, 'invite')
    const fail = (status: number, message: string) =>
      sendPage(
        reply,
        status,
        signupPage(preloginCtx(req, reply, '/signup', { kind: 'error', message }), { email, enabled: true, invite }),
      )
    const problem = passwordProblem(password)
    if (problem) return fail(400, `Choose another password: ${problem}.`)
    const admitted = await dash.signupLimiter.begin([`ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) {
      logger.warn({ ip: req.ip }, 'dashboard sign-up rate limited')
      const seconds = retryAfter(reply, admitted.waitMs)
      return fail(429, `Too many sign-ups from your address. Try again in ${seconds} seconds.`)
    }
    // The hash is computed first either way, so a known email does not answer faster.
    const hash = await hashPassword(password)
    // Signing up through an invitation to this address: the link proved the address, and the account joins at once.
    const found = invite ? await dash.invitations.find(invite, clock.now()) : undefined
    const invitation = found?.email === email ? found : undefined
    const confirm = cfg.confirmEmail && !invitation
    try {
      const plan = dash.deps.config.gateway.defaultPlan
      const account = await dash.accounts.create({ email, plan, unconfirmed: confirm }, clock.now())
      await dash.credentials.setPasswordHash(account.id, hash, clock.now())
      noteActor(req, account.id)
      logger.info({ accountId: account.id }, 'dashboard sign-up')
      if (invitation && (await dash.invitations.accept(invite, account.id, clock.now()))) {
        await dash.teams.addMember(invitation.teamId, account.id, invitation.role, clock.now())
        setDashboardCookie(reply, TEAM_COOKIE, invitation.teamId, Math.floor(dash.sessionTtlMs / 1000))
        logger.info({ accountId: account.id, teamId: invitation.teamId }, 'dashboard sign-up joined a team')
      }
      if (confirm) await mailConfirmation(dash, req, account.id, account.email)
      else await sendAccountMail(dash, accountMails.welcome(account.email, dash.linkBase(req)), 'welcome')
    } catch (err) {
      if (isChaingateError(err) && err.code === 'VALIDATION') return fail(400, 'Enter a valid email address.')
      if (!isChaingateError(err) || err.code !== 'CONFLICT') throw err
      // The email has an account: it stays as it is, and the answer is the same as for a new one. Its owner is told,
      // with a reset link (one token and one mail, as for a new address).
      const existing = await dash.accounts.findByEmail(email)
      if (existing) await mailResetLink(dash, req, existing.email, existing.id, accountMails.signupExists)
      logger.info({ ip: req.ip }, 'dashboard sign-up for an existing email (answered like a new one)')
    }
    const then = invitation ? '&next=%2Fteam' : ''
    return reply.redirect(`${confirm ? '/login?signup=confirm' : '/login?signup=done'}${then}`, 303)
  })

  app.get('/login', async (req, reply) => {
    if (req.dashboardSession) return reply.redirect(HOME, 303)
    const q = req.query as Record<string, string | undefined>
    const linkFlash = Object.keys(LOGIN_FLASH).map((k) => LOGIN_FLASH[k]![q[k] ?? ''])
    const flash = linkFlash.find(Boolean)
      ? linkFlash.find(Boolean)
      : q.signup === 'done' || q.signup === 'confirm'
        ? { kind: 'ok' as const, message: q.signup === 'done' ? SIGNED_UP : SIGNED_UP_CONFIRM }
        : q.deleted === 'done'
          ? { kind: 'ok' as const, message: ACCOUNT_DELETED }
          : q.disabled !== undefined
            ? { kind: 'error' as const, message: ACCOUNT_DISABLED }
            : undefined
    return sendPage(reply, 200, loginPage(preloginCtx(req, reply, '/login', flash), { next: safeNext(q.next) }))
  })

  app.post('/login', async (req, reply) => {
    const email = field(req.body, 'email').trim().toLowerCase()
    const password = field(req.body, 'password')
    const next = safeNext(field(req.body, 'next'))
    const again = (status: number, message: string) =>
      sendPage(reply, status, loginPage(preloginCtx(req, reply, '/login', { kind: 'error', message }), { email, next }))
    if (!preloginPostOk(req)) return again(403, 'The form expired. Try again.')
    // Counted now, before the ~70 ms password check, so parallel guesses see each other.
    const admitted = await dash.loginLimiter.begin([emailSubject(email), `ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) {
      logger.warn({ ip: req.ip }, 'dashboard login rate limited')
      const seconds = retryAfter(reply, admitted.waitMs)
      return again(429, `Too many failed log-ins for this email or from your address. Try again in ${seconds} seconds.`)
    }
    const accountId = email && password ? await checkLogin(dash.credentials, email, password) : null
    if (!accountId) {
      logger.info({ ip: req.ip }, 'dashboard login failed')
      return again(401, 'The email or password is wrong.')
    }
    dash.loginLimiter.forgive(admitted.attempt, emailSubject(email))
    // Told only after the right password, so the form does not say which accounts are disabled.
    if ((await dash.accounts.get(accountId))?.disabledAt != null) {
      logger.info({ accountId }, 'dashboard login of a disabled account refused')
      return again(403, ACCOUNT_DISABLED)
    }
    // With two-factor log-in on, the password only opens the second step (routes/two-factor.ts).
    if ((await dash.twoFactor.get(accountId))?.enabledAt) return beginSecondFactor(dash, reply, accountId, next)
    await startSession(dash, req, reply, accountId)
    logger.info({ accountId }, 'dashboard login')
    return reply.redirect(next ?? HOME, 303)
  })

  app.post('/logout', async (req: FastifyRequest, reply) => {
    const session = req.dashboardSession
    if (!session) return reply.redirect('/login', 303)
    if (!(await checkPost(dash, req, reply, session.csrfToken))) return reply
    await endSession(dash, session, reply)
    return reply.redirect('/login', 303)
  })
}
