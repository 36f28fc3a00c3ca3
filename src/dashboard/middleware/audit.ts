/**
 * Dashboard changes go to the admin audit (src/audit/repository.ts; docs/admin-api.md, "Audit") next to the admin
 * API's and the CLI's, so an operator reads one list: every POST of a logged-in account (a key created, renamed,
 * revoked, its limits, networks, allowlists or secret changed; a password, usage alerts, an operator's plan change;
 * the account deleted) and each sign-up, as `dashboard:<account id>`, with the answer's status (a refused form too).
 * Never a form's values that can be secret: passwords, key secrets and full keys stay out of the summary.
 *
 * Written when the answer has been sent (onResponse): the page does not wait for it, and a failed write is logged
 * without changing what the browser got (the change it describes has already happened).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { recordAudit } from '../../audit/repository.ts'
import type { Dash } from '../context.ts'

/** What the audit records of one dashboard POST; routes add to it as they learn it. */
export interface DashboardAuditNote {
  actor: string
  target?: string | undefined
  summary?: string | undefined
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardAudit?: DashboardAuditNote
  }
}

export const dashboardActor = (accountId: string) => `dashboard:${accountId}`

/** The account acting on this request (set by requireAccount once the session's account is known). */
export function noteActor(req: FastifyRequest, accountId: string): void {
  req.dashboardAudit = { ...req.dashboardAudit, actor: dashboardActor(accountId) }
}

/** Adds what was changed; without an actor (nobody logged in) nothing is recorded. */
export function noteChange(req: FastifyRequest, note: Omit<DashboardAuditNote, 'actor'>): void {
  if (req.dashboardAudit) req.dashboardAudit = { ...req.dashboardAudit, ...note }
}

/** The summary of a route when it noted none (the route's pattern names the change). */
const SUMMARIES: Record<string, string> = {
  '/keys': 'key created',
  '/keys/:id/rename': 'key renamed',
  '/keys/:id/networks': 'key network changed',
  '/keys/:id/revoke': 'key revoked',
  '/keys/:id/secret': 'key secret rotated',
  '/keys/:id/security': 'key security settings saved',
  '/keys/:id/allowlists': 'key allowlist entries added',
  '/keys/:id/allowlists/remove': 'key allowlist entry removed',
  '/keys/:id/jwt': 'key JWT public key added',
  '/keys/:id/jwt/remove': 'key JWT public key removed',
  '/keys/:id/limits': 'key limits saved',
  '/account/password': 'password changed',
  '/account/alerts': 'usage alerts saved',
  '/account/delete': 'account deleted',
  '/accounts/:id/plan': 'plan changed by an operator',
  '/signup': 'signed up',
  '/teams': 'team created',
  '/teams/switch': 'switched team',
  '/team/invite': 'member invited',
  '/team/members/:accountId/role': 'member role changed',
  '/team/members/:accountId/remove': 'member removed',
  '/team/invitations/:id/revoke': 'invitation revoked',
  '/team/rename': 'team renamed',
  '/team/leave': 'left the team',
  '/team/delete': 'team deleted',
  '/invite/:token/accept': 'invitation accepted',
}

export function registerDashboardAudit(app: FastifyInstance, dash: Dash): void {
  app.addHook('onResponse', async (req, reply) => {
    const note = req.dashboardAudit
    if (req.method !== 'POST' || !note) return
    const route = req.routeOptions.url ?? req.url.split('?')[0]!
    const params = (req.params ?? {}) as { id?: unknown }
    const ok = reply.statusCode < 400
    const what = note.summary ?? SUMMARIES[route] ?? 'change'
    await recordAudit(dash.deps.db, {
      at: dash.clock.now(),
      actor: note.actor,
      action: `dashboard POST ${route}`,
      target: note.target ?? (typeof params.id === 'string' ? params.id : note.actor.slice('dashboard:'.length)),
      summary: ok ? what : `refused (${reply.statusCode}): ${what}`,
      status: reply.statusCode,
    }).catch((err: Error) => dash.logger.error({ err: { message: err.message } }, 'dashboard audit not written'))
  })
}
