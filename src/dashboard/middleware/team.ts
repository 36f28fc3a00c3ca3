/**
 * Which team a dashboard request acts for, and the one authorization check of every logged-in route: the account's
 * membership is read from the database at each request (so a member removed on any replica is refused at their next
 * request), the team chosen by the `cg_team` cookie (the switcher; a team the account is no longer in falls back to
 * its personal team), and the role's permission looked up in the role table (src/accounts/teams/roles.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../../accounts/repository.ts'
import type { Membership, Team } from '../../accounts/teams/repository.ts'
import { can, type Permission, type TeamRole } from '../../accounts/teams/roles.ts'
import type { Session } from '../auth/logins.ts'
import { sendPage, type Dash } from '../context.ts'
import { messagePage } from '../pages/layout.ts'
import { requireAccount } from './session.ts'

export const TEAM_COOKIE = 'cg_team'

export interface TeamContext {
  team: Team
  role: TeamRole
  /** Every team of the account, for the switcher. */
  memberships: Membership[]
}

declare module 'fastify' {
  interface FastifyRequest {
    dashboardTeam?: TeamContext | null
  }
}

/** The request's team (read once per request): the cookie's if the account is a member, else its first team. */
export async function currentTeam(dash: Dash, req: FastifyRequest, accountId: string): Promise<TeamContext | null> {
  if (req.dashboardTeam !== undefined) return req.dashboardTeam
  const memberships = await dash.teams.ofAccount(accountId)
  const chosen = memberships.find((m) => m.team.id === req.cookies[TEAM_COOKIE]) ?? memberships[0]
  req.dashboardTeam = chosen ? { team: chosen.team, role: chosen.role, memberships } : null
  return req.dashboardTeam
}

/**
 * The logged-in account acting for its current team with `permission`, or null after answering: not logged in as
 * requireAccount answers; a role without the permission gets 403 with what it lacks.
 */
export async function requireTeam(
  dash: Dash,
  req: FastifyRequest,
  reply: FastifyReply,
  permission: Permission,
): Promise<({ session: Session; account: Account } & TeamContext) | null> {
  const who = await requireAccount(dash, req, reply)
  if (!who) return null
  const ctx = await currentTeam(dash, req, who.account.id)
  if (ctx && can(ctx.role, permission)) return { ...who, ...ctx }
  await sendPage(
    reply,
    403,
    messagePage(
      'Not allowed',
      await dash.pageCtx(req, ''),
      ctx
        ? `Your role in team "${ctx.team.name}" (${ctx.role}) cannot do this. Ask an owner of the team.`
        : 'You belong to no team. Ask a team owner for an invitation.',
    ),
  )
  return null
}
