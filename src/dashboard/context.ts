/**
 * What every dashboard route and middleware shares: the dependencies (database repositories, config, clock,
 * logger), the log-in and sign-up limiters, and the small helpers that render a page or find an owned key.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { createAccountsRepository, type AccountsRepository } from '../accounts/repository.ts'
import { createCredentialsRepository, type CredentialsRepository } from '../accounts/password-repository.ts'
import { createSessionsRepository, type SessionsRepository } from '../accounts/login-repository.ts'
import { createInvitationsRepository, type InvitationsRepository } from '../accounts/teams/invitations.ts'
import { createTeamsRepository, type TeamsRepository } from '../accounts/teams/repository.ts'
import { createAlertLog, type AlertLog } from '../alerts/log.ts'
import { createAlertSettingsRepository, type AlertSettingsRepository } from '../alerts/settings.ts'
import { createKeysRepository, type ApiKey, type KeysRepository } from '../keys/repository.ts'
import type { DashboardConfig } from '../config/dashboard-schema.ts'
import type { PlanConfig } from '../config/schema.ts'
import type { Db } from '../db/database.ts'
import { createDashboardLimiters, type AttemptLimiter, type DashboardLimiters } from '../accounts/login-limiter.ts'
import type { RedisConnection } from '../redis/connection.ts'
import type { Session } from './auth/logins.ts'
import { currentTeam } from './middleware/current-team.ts'
import { messagePage, type PageContext } from './pages/layout.ts'
import type { ChainFamily } from '../methods/catalog.ts'
import type { Mailer } from '../mail/mailer.ts'
import { createLinkTokens, type LinkTokens } from '../accounts/link-tokens.ts'
import { createTwoFactorRepository, type TwoFactorRepository } from '../accounts/two-factor-repository.ts'

/** Minimal logger shape (pino's Logger fits). */
export interface DashboardLogger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
  error(obj: object, msg?: string): void
}

export interface DashboardDeps {
  db: Db
  /** The parts of the chaingate config the dashboard reads; the whole `Config` fits. */
  config: {
    networks: { name: string; hosts?: string[] | undefined; family?: ChainFamily | undefined }[]
    plans: Record<string, PlanConfig>
    gateway: {
      defaultPlan: string
      /** The listener's address: on a loopback address only local host names reach the dashboard by default. */
      host?: string | undefined
      /** Host names the dashboard answers to (docs/dashboard.md); null or absent: chosen from `host`. */
      allowedHosts?: string[] | null | undefined
    }
    dashboard: DashboardConfig
    /** The request explorer (docs/requests.md); absent: the key page has no requests section. */
    requests?: { enabled: boolean; retentionHours: number } | undefined
    /** Usage alerts (docs/alerts.md): which webhook hosts are allowed; absent: any public host. */
    alerts?: { allowedHosts: string[] | null; allowPrivateTargets?: boolean | undefined } | undefined
  }
  clock: { now(): number }
  logger: DashboardLogger
  /** Reuse the app's repositories; created from `db` when omitted. */
  accounts?: AccountsRepository
  keys?: KeysRepository
  /** The shared Redis (config redis.url): log-in and sign-up limits then hold across replicas. */
  redis?: RedisConnection | undefined
  /** The process's limiters, shared with the admin API's unlock; made here (on `redis`) when omitted. */
  limiters?: DashboardLimiters | undefined
  /** Outgoing mail (src/mail): sign-up confirmation, password reset, invitations, notices. */
  mailer: MailSender
}

/** What the dashboard needs of the mailer (src/mail's Mailer). */
export type MailSender = Pick<Mailer, 'send'>

declare module 'fastify' {
  interface FastifyRequest {
    dashboardSession?: Session | null
    /** The session's account is disabled: the session was ended at this request (middleware/session.ts). */
    dashboardAccountDisabled?: boolean
  }
}

export interface Dash {
  deps: DashboardDeps
  cfg: DashboardConfig
  clock: { now(): number }
  logger: DashboardLogger
  accounts: AccountsRepository
  keys: KeysRepository
  credentials: CredentialsRepository
  sessions: SessionsRepository
  /** Usage alerts: the account's settings and the alerts that fired (src/alerts). */
  alertSettings: AlertSettingsRepository
  alertLog: AlertLog
  /** Teams, their members and invitations (src/accounts/teams). */
  teams: TeamsRepository
  invitations: InvitationsRepository
  networkNames: string[]
  /** Log-in attempts per email and per client IP, per minute. */
  loginLimiter: AttemptLimiter
  /** Sign-ups per client IP, per hour. */
  signupLimiter: AttemptLimiter
  /** Password-reset requests (and resent confirmation links) per email and per client IP, per hour. */
  resetLimiter: AttemptLimiter
  /** Single-use tokens of mailed links and of log-ins waiting for their second factor. */
  linkTokens: LinkTokens
  mailer: MailSender
  twoFactor: TwoFactorRepository
  /** Where mailed links start: `dashboard.publicBaseUrl`, else the scheme and host of the request. */
  linkBase(req: FastifyRequest): string
  sessionTtlMs: number
  planOf(planName: string): PlanConfig
  /** The key, only if this team owns it; anything else is undefined, so it answers like "no such key". */
  ownedKey(teamId: string, id: string): Promise<ApiKey | undefined>
  /** The page context of the logged-in account (or an anonymous one). */
  pageCtx(req: FastifyRequest, current: string, flash?: PageContext['flash']): Promise<PageContext>
  notFound(req: FastifyRequest, reply: FastifyReply): Promise<FastifyReply>
}

export function sendPage(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page)
}

export function createDash(deps: DashboardDeps): Dash {
  const { db } = deps
  const cfg = deps.config.dashboard
  const networkNames = deps.config.networks.map((n) => n.name)
  const accounts = deps.accounts ?? createAccountsRepository(db, deps.config.plans)
  const keys = deps.keys ?? createKeysRepository(db, { networks: networkNames, plans: deps.config.plans })
  const limiters = deps.limiters ?? createDashboardLimiters(cfg, deps.redis)
  const dash: Dash = {
    deps,
    cfg,
    clock: deps.clock,
    logger: deps.logger,
    accounts,
    keys,
    credentials: createCredentialsRepository(db),
    sessions: createSessionsRepository(db),
    alertSettings: createAlertSettingsRepository(db, deps.config.alerts ?? { allowedHosts: null }),
    alertLog: createAlertLog(db),
    teams: createTeamsRepository(db),
    invitations: createInvitationsRepository(db),
    // Read at each use: `chaingate reload` replaces the config's networks.
    get networkNames() {
      return deps.config.networks.map((n) => n.name)
    },
    loginLimiter: limiters.login,
    signupLimiter: limiters.signup,
    resetLimiter: limiters.reset,
    linkTokens: createLinkTokens(db),
    mailer: deps.mailer,
    twoFactor: createTwoFactorRepository(db),
    linkBase: (req) => (cfg.publicBaseUrl ?? `${req.protocol}://${req.host}`).replace(/\/+$/, ''),
    sessionTtlMs: cfg.sessionTtlHours * 3_600_000,
    planOf: (planName) => deps.config.plans[planName] ?? { creditsPerDay: 0, creditsPerSecond: 0, maxKeys: 0 },
    async ownedKey(teamId, id) {
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return undefined
      const key = await keys.get(id)
      return key && key.accountId === teamId ? key : undefined
    },
    async pageCtx(req, current, flash) {
      const session = req.dashboardSession
      if (session) {
        const account = await accounts.get(session.accountId)
        if (account) {
          const t = await currentTeam(dash, req, account.id)
          const team = t && {
            id: t.team.id,
            name: t.team.name,
            role: t.role,
            all: t.memberships.map((m) => ({ id: m.team.id, name: m.team.name })),
          }
          return { account, team, csrfToken: session.csrfToken, current, flash }
        }
      }
      return { csrfToken: '', current, flash }
    },
    async notFound(req, reply) {
      return sendPage(
        reply,
        404,
        messagePage('Not found', await dash.pageCtx(req, ''), 'There is no such page or API key.'),
      )
    },
  }
  return dash
}

type FormBody = Record<string, string | string[] | undefined>

/** A form field as one string ('' when missing; the first value when repeated). */
export function field(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return ''
  const v = (body as FormBody)[name]
  return typeof v === 'string' ? v : Array.isArray(v) ? (v[0] ?? '') : ''
}
