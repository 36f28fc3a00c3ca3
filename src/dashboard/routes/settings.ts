/**
 * The account's own settings: change the password (the current one required; other sessions end) and delete the
 * account (the password required; keys revoked, sessions ended, email freed, usage rows kept — docs/dashboard.md).
 * Password checks here count against the log-in limiter, so a stolen session cannot guess the password faster
 * than the log-in form allows.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../../accounts/repository.ts'
import { parseRefusalRate, parseThresholds, webhookChangeSummary } from '../../alerts/settings.ts'
import { isChaingateError } from '../../errors/index.ts'
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from '../auth/passwords.ts'
import { emailSubject } from '../../accounts/login-limiter.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { noteChange } from '../middleware/audit.ts'
import { checkPost } from '../middleware/csrf.ts'
import { endSession, requireAccount, startSession, twoFactorRequired } from '../middleware/session.ts'
import { requireTeam } from '../middleware/team.ts'
import { currentTeam } from '../middleware/current-team.ts'
import { alertsSection } from '../pages/alerts.ts'
import { settingsPage } from '../pages/settings.ts'
import { sessionsSection, twoFactorSection } from '../pages/two-factor.ts'
import { html } from '../../shared/html.ts'
import type { PageContext } from '../pages/layout.ts'

const DONE: Record<string, string> = {
  password: 'Password changed. Every other session of this account was logged out.',
  alerts: 'Usage alerts saved.',
  '2fa-off': 'Two-factor log-in turned off.',
  session: 'That log-in was ended.',
  '2fa-required': 'This gateway requires two-factor log-in: set it up below to use the dashboard.',
}

export function registerSettingsRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash

  const render = async (
    req: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    { status = 200, flash, secret }: { status?: number; flash?: PageContext['flash']; secret?: string } = {},
  ) => {
    const activeKeys = (await dash.keys.list({ accountId: account.id })).length
    const ctx = await dash.pageCtx(req, '/account', flash)
    // Alerts belong to the current team (a personal team's id is its person's account id).
    const teamId = (await currentTeam(dash, req, account.id))?.team.id ?? account.id
    const alerts = alertsSection(ctx.csrfToken, {
      settings: await dash.alertSettings.get(teamId),
      recent: await dash.alertLog.recent(teamId, 20),
      secret,
    })
    const tfa = await dash.twoFactor.get(account.id)
    const security = html`${twoFactorSection(ctx.csrfToken, {
      enabled: Boolean(tfa?.enabledAt),
      codesLeft: tfa?.enabledAt ? await dash.twoFactor.recoveryCodesLeft(account.id) : 0,
      required: twoFactorRequired(dash, account),
    })}${sessionsSection(
      ctx.csrfToken,
      await dash.sessions.listByAccount(account.id, clock.now()),
      req.dashboardSession?.idHash ?? '',
    )}`
    return sendPage(reply, status, settingsPage(ctx, { account, activeKeys, alerts: html`${security}${alerts}` }))
  }

  /** The password check of a settings form: rate-limited like log-in; answers the page itself when it fails. */
  const passwordOk = async (
    req: FastifyRequest,
    reply: FastifyReply,
    account: Account,
    password: string,
  ): Promise<boolean> => {
    const subject = emailSubject(account.email)
    const admitted = await dash.loginLimiter.begin([subject, `ip:${req.ip}`], clock.now())
    if ('waitMs' in admitted) {
      const seconds = Math.ceil(admitted.waitMs / 1000)
      reply.header('retry-after', String(seconds))
      await render(req, reply, account, {
        status: 429,
        flash: {
          kind: 'error',
          message: `Too many wrong passwords. Try again in ${seconds} seconds.`,
        },
      })
      return false
    }
    const stored = await dash.credentials.findByEmail(account.email)
    const ok = stored ? await verifyPassword(password, stored.passwordHash) : await verifyAgainstDummy(password)
    if (ok) {
      dash.loginLimiter.forgive(admitted.attempt, subject)
      return true
    }
    logger.info({ accountId: account.id, ip: req.ip }, 'dashboard settings: wrong password')
    await render(req, reply, account, { status: 401, flash: { kind: 'error', message: 'The password is wrong.' } })
    return false
  }

  app.get('/account', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who) return reply
    const done = (req.query as Record<string, string | undefined>).done
    return render(req, reply, who.account, {
      flash: done && DONE[done] ? { kind: 'ok', message: DONE[done] } : undefined,
    })
  })

  app.post('/account/password', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const next = field(req.body, 'newPassword')
    const problem = passwordProblem(next)
    if (problem)
      return render(req, reply, who.account, {
        status: 400,
        flash: { kind: 'error', message: `Choose another password: ${problem}.` },
      })
    if (next !== field(req.body, 'confirmPassword'))
      return render(req, reply, who.account, {
        status: 400,
        flash: {
          kind: 'error',
          message: 'The two new passwords differ. Type the same one twice.',
        },
      })
    if (!(await passwordOk(req, reply, who.account, field(req.body, 'currentPassword')))) return reply
    // Replacing the hash ends every session of the account (this one too); this browser gets a fresh one.
    await dash.credentials.setPasswordHash(who.account.id, await hashPassword(next), clock.now())
    await startSession(dash, req, reply, who.account.id)
    logger.info({ accountId: who.account.id }, 'dashboard password changed')
    return reply.redirect('/account?done=password', 303)
  })

  // Usage alerts (docs/alerts.md): saved through the same rules as the CLI and the admin API (src/alerts/settings.ts).
  app.post('/account/alerts', async (req, reply) => {
    const who = await requireTeam(dash, req, reply, 'settings.manage')
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const webhookUrl = field(req.body, 'webhookUrl').trim() || null
    // The audit names a webhook change with both URLs (masked: src/alerts/settings.ts), also when it is refused.
    const change = webhookChangeSummary((await dash.alertSettings.get(who.team.id))?.webhookUrl, webhookUrl)
    noteChange(req, { target: who.team.id })
    if (change) noteChange(req, { summary: `usage alerts saved; ${change}` })
    let saved: Awaited<ReturnType<typeof dash.alertSettings.set>>
    try {
      saved = await dash.alertSettings.set(
        who.team.id,
        {
          creditThresholds: parseThresholds(field(req.body, 'thresholds')),
          refusalsPerMinute: parseRefusalRate(field(req.body, 'refusalsPerMinute').trim()),
          webhookUrl,
          rotateSecret: field(req.body, 'rotateSecret') === 'yes',
        },
        clock.now(),
      )
    } catch (err) {
      if (!isChaingateError(err) || err.code !== 'VALIDATION') throw err
      return render(req, reply, who.account, {
        status: 400,
        flash: { kind: 'error', message: `Alerts not saved: ${err.message}` },
      })
    }
    logger.info({ accountId: who.account.id, teamId: who.team.id }, 'dashboard usage alerts saved')
    // The secret is shown in this answer only (a redirect would have to carry it).
    if (saved.secret)
      return render(req, reply, who.account, { flash: { kind: 'ok', message: DONE.alerts! }, secret: saved.secret })
    return reply.redirect('/account?done=alerts', 303)
  })

  app.post('/account/delete', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    if (field(req.body, 'confirm') !== 'yes')
      return render(req, reply, who.account, {
        status: 400,
        flash: {
          kind: 'error',
          message: 'Tick the confirmation box to delete the account.',
        },
      })
    if (!(await passwordOk(req, reply, who.account, field(req.body, 'password')))) return reply
    let revokedKeys: number
    try {
      ;({ revokedKeys } = await dash.accounts.delete(who.account.id, clock.now()))
    } catch (err) {
      if (!isChaingateError(err) || err.code !== 'CONFLICT') throw err
      return render(req, reply, who.account, {
        status: 409,
        flash: { kind: 'error', message: `Not deleted: ${err.message}` },
      })
    }
    await endSession(dash, who.session, reply)
    logger.info({ accountId: who.account.id, revokedKeys }, 'dashboard account deleted')
    return reply.redirect('/login?deleted=done', 303)
  })
}
