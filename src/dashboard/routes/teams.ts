/**
 * Team routes (docs/dashboard.md, "Teams"): the team page, creating and switching teams, inviting by email,
 * accepting an invitation, changing roles, removing members, leaving, renaming and deleting. Every POST is checked
 * like the others (session, CSRF token, the role's permission through requireTeam) and lands in the audit with the
 * acting account; a role is only ever given by someone allowed to give it (canGrant).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { canGrant, isTeamRole } from '../../accounts/teams/roles.ts'
import { isChaingateError } from '../../errors/index.ts'
import { field, sendPage, type Dash } from '../context.ts'
import { invitationMail } from '../invite-mail.ts'
import { noteChange } from '../middleware/audit.ts'
import { checkPost } from '../middleware/csrf.ts'
import { requireAccount, setDashboardCookie } from '../middleware/session.ts'
import { requireTeam } from '../middleware/team.ts'
import { TEAM_COOKIE } from '../middleware/current-team.ts'
import { messagePage } from '../pages/layout.ts'
import { invitationPage, teamPage } from '../pages/team.ts'
import type { Permission } from '../../accounts/teams/roles.ts'
import type { PageContext } from '../pages/layout.ts'

const DONE: Record<string, string> = {
  created: 'Team created. You are its owner.',
  invited: 'Invitation sent.',
  role: 'Role changed.',
  removed: 'Member removed. Their access to this team ended.',
  renamed: 'Team renamed.',
  revoked: 'Invitation revoked.',
  joined: 'You joined the team.',
}

const refusal = (err: unknown) => isChaingateError(err) && ['VALIDATION', 'CONFLICT', 'NOT_FOUND'].includes(err.code)

export function registerTeamRoutes(app: FastifyInstance, dash: Dash): void {
  const { clock, logger } = dash
  const teamCookie = (reply: FastifyReply, teamId: string) =>
    setDashboardCookie(reply, TEAM_COOKIE, teamId, Math.floor(dash.sessionTtlMs / 1000))

  const render = async (req: FastifyRequest, reply: FastifyReply, status = 200, flash?: PageContext['flash']) => {
    const who = await requireTeam(dash, req, reply, 'team.read')
    if (!who) return reply
    return sendPage(
      reply,
      status,
      teamPage(await dash.pageCtx(req, '/team', flash), {
        team: who.team,
        role: who.role,
        accountId: who.account.id,
        members: await dash.teams.members(who.team.id),
        invitations: await dash.invitations.pending(who.team.id, clock.now()),
      }),
    )
  }

  /** A team form: permission, CSRF, then `run`; a refused change re-renders the page with its reason. */
  const teamForm = (
    url: string,
    permission: Permission,
    run: (
      who: NonNullable<Awaited<ReturnType<typeof requireTeam>>>,
      req: FastifyRequest,
      reply: FastifyReply,
    ) => Promise<string | FastifyReply>,
  ) =>
    app.post(url, async (req, reply) => {
      const who = await requireTeam(dash, req, reply, permission)
      if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
      noteChange(req, { target: who.team.id })
      try {
        const done = await run(who, req, reply)
        return typeof done === 'string' ? reply.redirect(`/team?done=${done}`, 303) : done
      } catch (err) {
        if (!refusal(err)) throw err
        const status = (err as { httpStatus: number }).httpStatus
        return render(req, reply, status, { kind: 'error', message: `Not done: ${(err as Error).message}.` })
      }
    })

  /** 403 for a role change or invitation above what the actor may give. */
  const escalation = async (req: FastifyRequest, reply: FastifyReply, role: string) => {
    noteChange(req, { summary: `refused: giving role ${role}` })
    return render(req, reply, 403, {
      kind: 'error',
      message: `Your role cannot give the role ${role}. Only an owner makes owners and admins.`,
    })
  }

  app.get('/team', async (req, reply) => {
    const done = (req.query as Record<string, string | undefined>).done
    return render(req, reply, 200, done && DONE[done] ? { kind: 'ok', message: DONE[done] } : undefined)
  })

  app.post('/teams', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    try {
      const plan = dash.deps.config.gateway.defaultPlan
      const team = await dash.teams.create(
        { name: field(req.body, 'name'), ownerId: who.account.id, plan },
        clock.now(),
      )
      noteChange(req, { target: team.id, summary: `team created: ${JSON.stringify(team.name)}` })
      teamCookie(reply, team.id)
      return reply.redirect('/team?done=created', 303)
    } catch (err) {
      if (!refusal(err)) throw err
      return render(req, reply, 400, { kind: 'error', message: `Team not created: ${(err as Error).message}.` })
    }
  })

  app.post('/teams/switch', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const teamId = field(req.body, 'team')
    // Only to a team of this account; anything else answers like a team that does not exist.
    if (!(await dash.teams.roleOf(teamId, who.account.id))) return dash.notFound(req, reply)
    noteChange(req, { target: teamId, summary: 'switched team' })
    teamCookie(reply, teamId)
    return reply.redirect('/keys', 303)
  })

  teamForm('/team/invite', 'members.invite', async (who, req, reply) => {
    const role = field(req.body, 'role')
    if (!isTeamRole(role)) return render(req, reply, 400, { kind: 'error', message: 'Choose a role.' })
    if (!canGrant(who.role, role)) return escalation(req, reply, role)
    const email = field(req.body, 'email')
    if ((await dash.teams.members(who.team.id)).some((m) => m.email === email.trim().toLowerCase()))
      return render(req, reply, 409, { kind: 'error', message: 'This address is already a member of the team.' })
    const ttlMs = dash.cfg.invitationTtlHours * 3_600_000
    const { invitation, token } = await dash.invitations.create(
      { teamId: who.team.id, email, role, invitedBy: who.account.id, ttlMs },
      clock.now(),
    )
    const base = dash.cfg.publicBaseUrl?.replace(/\/$/, '') ?? `${req.protocol}://${req.host}`
    // Sent the same way whether or not the address has an account (the answer tells nobody who has one).
    await dash.mailer.send(
      invitationMail({
        to: invitation.email,
        teamName: who.team.name,
        role,
        inviter: who.account.email,
        url: `${base}/invite/${token}`,
      }),
    )
    noteChange(req, { summary: `invited ${invitation.email} as ${role}` })
    logger.info({ accountId: who.account.id, teamId: who.team.id, invitationId: invitation.id }, 'team invitation')
    return 'invited'
  })

  teamForm('/team/members/:accountId/role', 'members.manage', async (who, req, reply) => {
    const target = (req.params as { accountId: string }).accountId
    const role = field(req.body, 'role')
    if (isTeamRole(role) && !canGrant(who.role, role)) return escalation(req, reply, role)
    await dash.teams.setRole(who.team.id, target, role)
    noteChange(req, { summary: `member ${target} role set to ${role}` })
    return 'role'
  })

  teamForm('/team/members/:accountId/remove', 'members.manage', async (who, req) => {
    const target = (req.params as { accountId: string }).accountId
    await dash.teams.removeMember(who.team.id, target)
    noteChange(req, { summary: `member ${target} removed` })
    return 'removed'
  })

  teamForm('/team/invitations/:id/revoke', 'members.manage', async (who, req) => {
    await dash.invitations.revoke(who.team.id, (req.params as { id: string }).id, clock.now())
    noteChange(req, { summary: 'invitation revoked' })
    return 'revoked'
  })

  teamForm('/team/rename', 'settings.manage', async (who, req, reply) => {
    if (who.team.personal)
      return render(req, reply, 409, { kind: 'error', message: 'A personal team is named after its account.' })
    await dash.teams.rename(who.team.id, field(req.body, 'name'))
    noteChange(req, { summary: `team renamed to ${JSON.stringify(field(req.body, 'name').trim())}` })
    return 'renamed'
  })

  teamForm('/team/leave', 'team.read', async (who, req, reply) => {
    if (who.team.personal)
      return render(req, reply, 409, { kind: 'error', message: 'Your personal team goes only with your account.' })
    await dash.teams.removeMember(who.team.id, who.account.id)
    noteChange(req, { summary: 'left the team' })
    teamCookie(reply, who.account.id)
    return reply.redirect('/keys', 303)
  })

  teamForm('/team/delete', 'team.own', async (who, req, reply) => {
    if (field(req.body, 'confirm') !== 'yes')
      return render(req, reply, 400, { kind: 'error', message: 'Tick the confirmation box to delete the team.' })
    const { revokedKeys } = await dash.teams.delete(who.team.id, clock.now())
    noteChange(req, { summary: `team deleted; ${revokedKeys} keys revoked` })
    teamCookie(reply, who.account.id)
    return reply.redirect('/keys', 303)
  })

  /** The invitation a link names, or a 404 page (used, revoked, expired or never issued: one answer). */
  const invitationOf = async (req: FastifyRequest, reply: FastifyReply) => {
    const token = (req.params as { token: string }).token
    const invitation = await dash.invitations.find(token, clock.now())
    const team = invitation && (await dash.teams.get(invitation.teamId))
    if (invitation && team) return { token, invitation, team }
    await sendPage(
      reply,
      404,
      messagePage(
        'Invitation not valid',
        await dash.pageCtx(req, ''),
        'This invitation link is not valid: it was used, revoked, or has expired. Ask the team for a new one.',
      ),
    )
    return null
  }

  app.get('/invite/:token', async (req, reply) => {
    const found = await invitationOf(req, reply)
    if (!found) return reply
    const account = req.dashboardSession ? await dash.accounts.get(req.dashboardSession.accountId) : undefined
    const state = !account ? 'anonymous' : account.email === found.invitation.email ? 'ready' : 'other-account'
    const ctx = await dash.pageCtx(req, '')
    return sendPage(
      reply,
      state === 'other-account' ? 403 : 200,
      invitationPage(ctx, { token: found.token, teamName: found.team.name, invitation: found.invitation, state }),
    )
  })

  app.post('/invite/:token/accept', async (req, reply) => {
    const who = await requireAccount(dash, req, reply)
    if (!who || !(await checkPost(dash, req, reply, who.session.csrfToken))) return reply
    const found = await invitationOf(req, reply)
    if (!found) return reply
    const { invitation, team } = found
    noteChange(req, { target: team.id })
    // Bound to the invited address: a forwarded link does not let another account in.
    if (who.account.email !== invitation.email) {
      noteChange(req, { summary: 'refused: invitation for another address' })
      return sendPage(
        reply,
        403,
        messagePage('Not your invitation', await dash.pageCtx(req, ''), 'This invitation is for another address.'),
      )
    }
    if (!(await dash.teams.roleOf(team.id, who.account.id))) {
      // Single use: only the first of two simultaneous accepts marks it.
      if (!(await dash.invitations.accept(found.token, who.account.id, clock.now()))) return dash.notFound(req, reply)
      await dash.teams.addMember(team.id, who.account.id, invitation.role, clock.now())
    }
    noteChange(req, { summary: `joined as ${invitation.role} (invited by ${invitation.invitedBy})` })
    teamCookie(reply, team.id)
    return reply.redirect('/team?done=joined', 303)
  })
}
