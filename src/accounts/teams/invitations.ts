/**
 * Team invitations (table team_invitations: team, email, role and state): single use, expiring, bound to one email
 * address. The link's token is a link token of purpose 'invite' (../link-tokens.ts, the one store of mailed links)
 * naming the invitation's id. The invitee accepts while logged in as that address (signing up through the link
 * first if they have no account), so a forwarded link does not let another account in.
 */
import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/database.ts'
import { errors } from '../../errors/index.ts'
import { emailProblem, normalizeEmail } from '../email.ts'
import { createLinkTokens } from '../link-tokens.ts'
import { isTeamRole, type TeamRole } from './roles.ts'

export interface Invitation {
  id: string
  teamId: string
  email: string
  role: TeamRole
  invitedBy: string
  createdAt: number
  expiresAt: number
}

type Row = {
  id: string
  team_id: string
  email: string
  role: string
  invited_by: string
  created_at: number
  expires_at: number
}
const toInvitation = (r: Row): Invitation => ({
  id: r.id,
  teamId: r.team_id,
  email: r.email,
  role: isTeamRole(r.role) ? r.role : 'viewer',
  invitedBy: r.invited_by,
  createdAt: Number(r.created_at),
  expiresAt: Number(r.expires_at),
})

export interface InvitationsRepository {
  /** A new invitation and its link token (shown only in the mail). */
  create(
    input: { teamId: string; email: string; role: TeamRole; invitedBy: string; ttlMs: number },
    nowMs: number,
  ): Promise<{ invitation: Invitation; token: string }>
  /** The pending invitation a token names (not used, revoked or expired), or undefined. */
  find(token: string, nowMs: number): Promise<Invitation | undefined>
  /** Uses the link's token and marks its invitation accepted by `accountId`; false when another use came first. */
  accept(token: string, accountId: string, nowMs: number): Promise<boolean>
  pending(teamId: string, nowMs: number): Promise<Invitation[]>
  revoke(teamId: string, id: string, nowMs: number): Promise<void>
}

export function createInvitationsRepository(db: Db): InvitationsRepository {
  const links = createLinkTokens(db)
  const open = (nowMs: number) =>
    db
      .selectFrom('team_invitations')
      .selectAll()
      .where('accepted_at', 'is', null)
      .where('revoked_at', 'is', null)
      .where('expires_at', '>', nowMs)
  return {
    async create({ teamId, email, role, invitedBy, ttlMs }, nowMs) {
      const normalized = normalizeEmail(email)
      const problem = emailProblem(normalized)
      if (problem !== undefined) throw errors.validation(problem, 'email')
      const row = {
        id: randomUUID(),
        team_id: teamId,
        email: normalized,
        role,
        invited_by: invitedBy,
        created_at: nowMs,
        expires_at: nowMs + ttlMs,
      }
      // The token first: should the invitation's insert fail, the token names nothing and finds nothing.
      const token = await links.issue({ purpose: 'invite', email: normalized, data: row.id, ttlMs }, nowMs)
      await db.insertInto('team_invitations').values(row).execute()
      return { invitation: toInvitation(row), token }
    },
    async find(token, nowMs) {
      const link = await links.peek('invite', token, nowMs)
      const r = link?.data ? await open(nowMs).where('id', '=', link.data).executeTakeFirst() : undefined
      return r && toInvitation(r)
    },
    async accept(token, accountId, nowMs) {
      // One conditional UPDATE each: of two simultaneous accepts only one uses the token.
      const id = (await links.consume('invite', token, nowMs))?.data
      if (!id) return false
      const r = await db
        .updateTable('team_invitations')
        .set({ accepted_at: nowMs, accepted_by: accountId })
        .where('id', '=', id)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async pending(teamId, nowMs) {
      return (await open(nowMs).where('team_id', '=', teamId).orderBy('created_at').execute()).map(toInvitation)
    },
    async revoke(teamId, id, nowMs) {
      const r = await db
        .updateTable('team_invitations')
        .set({ revoked_at: nowMs })
        .where('id', '=', id)
        .where('team_id', '=', teamId)
        .where('accepted_at', 'is', null)
        .where('revoked_at', 'is', null)
        .executeTakeFirst()
      if (Number(r.numUpdatedRows) === 0) throw errors.notFound('invitation')
    },
  }
}
