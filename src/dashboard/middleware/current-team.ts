/**
 * Which team a dashboard request acts for: the team chosen by the `cg_team` cookie (the switcher; a team the account
 * is no longer in falls back to its first team), read from the database once per request. Apart from ./team.ts (the
 * permission check), so that the dashboard's context (../context.ts) reads it without importing what imports it.
 */
import type { FastifyRequest } from 'fastify'
import type { Membership, Team, TeamsRepository } from '../../accounts/teams/repository.ts'
import type { TeamRole } from '../../accounts/teams/roles.ts'

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
export async function currentTeam(
  dash: { teams: Pick<TeamsRepository, 'ofAccount'> },
  req: FastifyRequest,
  accountId: string,
): Promise<TeamContext | null> {
  if (req.dashboardTeam !== undefined) return req.dashboardTeam
  const memberships = await dash.teams.ofAccount(accountId)
  const chosen = memberships.find((m) => m.team.id === req.cookies[TEAM_COOKIE]) ?? memberships[0]
  req.dashboardTeam = chosen ? { team: chosen.team, role: chosen.role, memberships } : null
  return req.dashboardTeam
}
