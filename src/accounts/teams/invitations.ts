/**
 * Team invitations (table team_invitations): a link carrying 32 random bytes, of which only the sha256 is stored;
 * single use, expiring, bound to one email address. The invitee accepts while logged in as that address (signing
 * up through the link first if they have no account), so a forwarded link does not let another account in.
 * (The account-mail work keeps sign-up and reset links in its own table; the two are to be unified.)
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { Db } from '../../db/database.ts'
import { errors } from '../../errors/index.ts'
import { emailProblem, normalizeEmail } from '../email.ts'
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

const sha256 = (v: string) => createHash('sha256').update(v).digest('hex')
/** The token's shape (base64url of 32 bytes); anything else is never looked up. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/

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
  /** Marks it used by `accountId`; false when another use came first. */
  markAccepted(id: string, accountId: string, nowMs: number): Promise<boolean>
  pending(teamId: string, nowMs: number): Promise<Invitation[]>
  revoke(teamId: string, id: string, nowMs: number): Promise<void>
}

export function createInvitationsRepository(db: Db): InvitationsRepository {
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
      const token = randomBytes(32).toString('base64url')
      const row = {
        id: randomUUID(),
        team_id: teamId,
        email: normalized,
        role,
        token_hash: sha256(token),
        invited_by: invitedBy,
        created_at: nowMs,
        expires_at: nowMs + ttlMs,
      }
      await db.insertInto('team_invitations').values(row).execute()
      return { invitation: toInvitation(row), token }
    },
    async find(token, nowMs) {
      if (!TOKEN.test(token)) return undefined
      const r = await open(nowMs).where('token_hash', '=', sha256(token)).executeTakeFirst()
      return r && toInvitation(r)
    },
    async markAccepted(id, accountId, nowMs) {
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
