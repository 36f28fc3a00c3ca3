/**
 * The one authorization check of every logged-in dashboard route: the account's membership is read from the database
 * at each request (so a member removed on any replica is refused at their next request), the team is the one the
 * request acts for (./current-team.ts: the `cg_team` cookie's), and the role's permission is looked up in the role
 * table (src/accounts/teams/roles.ts).
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Account } from '../../accounts/repository.ts'
import { can, type Permission } from '../../accounts/teams/roles.ts'
import type { Session } from '../auth/logins.ts'
import { sendPage, type Dash } from '../context.ts'
import { messagePage } from '../pages/layout.ts'
import { currentTeam, type TeamContext } from './current-team.ts'
import { requireAccount } from './session.ts'

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
