/**
 * Teams and their members (migration 0810_teams; docs/dashboard.md, "Teams"). A team owns keys, usage, alerts and
 * requests through the `account_id` of those rows, which is the team's id; a shared team has its own `accounts`
 * row (kind 'team': its plan), a personal team is its person's account. Membership is read at every dashboard
 * request (src/dashboard/middleware/team.ts), so a removal holds at once on every replica sharing the database.
 */
import { randomUUID } from 'node:crypto'
import type { Db } from '../../db/database.ts'
import { bumpSettingsVersion } from '../../db/settings-version.ts'
import { errors } from '../../errors/index.ts'
import { isTeamRole, TEAM_ROLES, type TeamRole } from './roles.ts'

export interface Team {
  id: string
  name: string
  /** The person's own team (its id is their account id): it cannot be deleted or left by its person. */
  personal: boolean
  plan: string
  createdAt: number
}

export interface Membership {
  team: Team
  role: TeamRole
}

export interface Member {
  accountId: string
  email: string
  role: TeamRole
  since: number
}

const MAX_NAME = 64
/** Control, format and line-separator characters: a name goes into mail subjects and terminals. */
const UNSAFE_NAME = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u

/** Why `name` (trimmed) cannot name a team, or undefined. */
export function teamNameProblem(name: string): string | undefined {
  if (name === '') return 'a team needs a name'
  if (name.length > MAX_NAME) return `a team name has at most ${MAX_NAME} characters`
  if (UNSAFE_NAME.test(name)) return 'a team name cannot hold control characters or line breaks'
  return undefined
}

function checkedName(name: string): string {
  const trimmed = name.trim()
  const problem = teamNameProblem(trimmed)
  if (problem !== undefined) throw errors.validation(problem, 'name')
  return trimmed
}

function checkedRole(role: string): TeamRole {
  if (!isTeamRole(role)) throw errors.validation(`unknown role ${role}; roles: ${TEAM_ROLES.join(', ')}`, 'role')
  return role
}

type TeamRow = { id: string; name: string; created_at: number; plan: string; kind: string }
const toTeam = (r: TeamRow): Team => ({
  id: r.id,
  name: r.name,
  personal: r.kind === 'person',
  plan: r.plan,
  createdAt: Number(r.created_at),
})

export interface TeamsRepository {
  /** A person's own team of one (at sign-up; migration 0810 made them for earlier accounts). */
  createPersonal(account: { id: string; email: string }, nowMs: number): Promise<void>
  /** A shared team, `ownerId` its owner, on `plan`. */
  create(input: { name: string; ownerId: string; plan: string }, nowMs: number): Promise<Team>
  get(id: string): Promise<Team | undefined>
  /** Every live team, oldest first, with its member count. */
  list(): Promise<(Team & { members: number })[]>
  /** The teams an account belongs to: its personal team first, then by name. */
  ofAccount(accountId: string): Promise<Membership[]>
  /** The account's role in the team, or undefined (not a member, or the team is gone). */
  roleOf(teamId: string, accountId: string): Promise<TeamRole | undefined>
  members(teamId: string): Promise<Member[]>
  addMember(teamId: string, accountId: string, role: TeamRole, nowMs: number): Promise<void>
  /** Refuses to leave a team without an owner. */
  setRole(teamId: string, accountId: string, role: string): Promise<void>
  /** Refuses to remove the last owner. */
  removeMember(teamId: string, accountId: string): Promise<void>
  rename(teamId: string, name: string): Promise<void>
  /** Deletes a shared team: its keys revoked, its members and invitations gone. Returns the keys revoked. */
  delete(teamId: string, nowMs: number): Promise<{ revokedKeys: number }>
  /** Moves a key to another team (its usage so far stays with the team it was used by). */
  moveKey(keyId: string, teamId: string): Promise<{ from: string }>
}

/** The rows of a person's own team of one (`db` may be a transaction). */
export async function insertPersonalTeam(db: Db, account: { id: string; email: string }, nowMs: number) {
  await db.insertInto('teams').values({ id: account.id, name: account.email, created_at: nowMs }).execute()
  await db
    .insertInto('team_members')
    .values({ team_id: account.id, account_id: account.id, role: 'owner', created_at: nowMs })
    .execute()
}

export function createTeamsRepository(db: Db): TeamsRepository {
  const teamQuery = () =>
    db
      .selectFrom('teams')
      .innerJoin('accounts', 'accounts.id', 'teams.id')
      .select(['teams.id', 'teams.name', 'teams.created_at', 'accounts.plan', 'accounts.kind'])
      .where('teams.deleted_at', 'is', null)

  /** Owners left if `accountId` stopped being one. */
  const otherOwners = async (teamId: string, accountId: string) =>
    Number(
      (
        await db
          .selectFrom('team_members')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('team_id', '=', teamId)
          .where('role', '=', 'owner')
          .where('account_id', '!=', accountId)
          .executeTakeFirst()
      )?.n ?? 0,
    )

  const repo: TeamsRepository = {
    async createPersonal(account, nowMs) {
      await insertPersonalTeam(db, account, nowMs)
    },
    async create({ name, ownerId, plan }, nowMs) {
      const teamName = checkedName(name)
      const id = randomUUID()
      await db.transaction().execute(async (tx) => {
        // "team:<id>" has no @: never an address anyone signs up or logs in with.
        await tx
          .insertInto('accounts')
          .values({ id, email: `team:${id}`, plan, role: 'user', kind: 'team', created_at: nowMs })
          .execute()
        await tx.insertInto('teams').values({ id, name: teamName, created_at: nowMs }).execute()
        await tx
          .insertInto('team_members')
          .values({ team_id: id, account_id: ownerId, role: 'owner', created_at: nowMs })
          .execute()
      })
      await bumpSettingsVersion(db)
      return { id, name: teamName, personal: false, plan, createdAt: nowMs }
    },
    async get(id) {
      const r = await teamQuery().where('teams.id', '=', id).executeTakeFirst()
      return r && toTeam(r)
    },
    async list() {
      const rows = await teamQuery()
        .select((eb) =>
          eb
            .selectFrom('team_members')
            .select((e) => e.fn.countAll().as('n'))
            .whereRef('team_members.team_id', '=', 'teams.id')
            .as('members'),
        )
        .orderBy('teams.created_at')
        .orderBy('teams.id')
        .execute()
      return rows.map((r) => ({ ...toTeam(r), members: Number(r.members ?? 0) }))
    },
    async ofAccount(accountId) {
      const rows = await teamQuery()
        .innerJoin('team_members', 'team_members.team_id', 'teams.id')
        .select('team_members.role')
        .where('team_members.account_id', '=', accountId)
        .execute()
      return rows
        .map((r) => ({ team: toTeam(r), role: checkedRole(r.role) }))
        .sort((a, b) => Number(b.team.id === accountId) - Number(a.team.id === accountId) || cmp(a.team, b.team))
    },
    async roleOf(teamId, accountId) {
      const r = await db
        .selectFrom('team_members')
        .innerJoin('teams', 'teams.id', 'team_members.team_id')
        .select('team_members.role')
        .where('team_members.team_id', '=', teamId)
        .where('team_members.account_id', '=', accountId)
        .where('teams.deleted_at', 'is', null)
        .executeTakeFirst()
      return r && isTeamRole(r.role) ? r.role : undefined
    },
    async members(teamId) {
      const rows = await db
        .selectFrom('team_members')
        .innerJoin('accounts', 'accounts.id', 'team_members.account_id')
        .select(['team_members.account_id', 'accounts.email', 'team_members.role', 'team_members.created_at'])
        .where('team_members.team_id', '=', teamId)
        .orderBy('team_members.created_at')
        .orderBy('accounts.email')
        .execute()
      return rows.map((r) => ({
        accountId: r.account_id,
        email: r.email,
        role: checkedRole(r.role),
        since: Number(r.created_at),
      }))
    },
    async addMember(teamId, accountId, role, nowMs) {
      if (await repo.roleOf(teamId, accountId)) throw errors.conflict('already a member of this team')
      await db
        .insertInto('team_members')
        .values({ team_id: teamId, account_id: accountId, role: checkedRole(role), created_at: nowMs })
        .execute()
    },
    async setRole(teamId, accountId, role) {
      const next = checkedRole(role)
      const current = await repo.roleOf(teamId, accountId)
      if (!current) throw errors.notFound('team member')
      if (current === 'owner' && next !== 'owner' && (await otherOwners(teamId, accountId)) === 0)
        throw errors.conflict('the last owner of a team cannot be demoted: make another member owner first')
      await db
        .updateTable('team_members')
        .set({ role: next })
        .where('team_id', '=', teamId)
        .where('account_id', '=', accountId)
        .execute()
    },
    async removeMember(teamId, accountId) {
      const current = await repo.roleOf(teamId, accountId)
      if (!current) throw errors.notFound('team member')
      if (current === 'owner' && (await otherOwners(teamId, accountId)) === 0)
        throw errors.conflict('the last owner cannot leave the team: make another member owner first')
      await db.deleteFrom('team_members').where('team_id', '=', teamId).where('account_id', '=', accountId).execute()
    },
    async rename(teamId, name) {
      const r = await db
        .updateTable('teams')
        .set({ name: checkedName(name) })
        .where('id', '=', teamId)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      if (Number(r.numUpdatedRows) === 0) throw errors.notFound(`team ${teamId}`)
    },
    async delete(teamId, nowMs) {
      const team = await repo.get(teamId)
      if (!team) throw errors.notFound(`team ${teamId}`)
      if (team.personal) throw errors.conflict('a personal team goes only with its account (delete the account)')
      const revokedKeys = await db.transaction().execute(async (tx) => {
        await tx.updateTable('teams').set({ deleted_at: nowMs }).where('id', '=', teamId).execute()
        await tx.updateTable('accounts').set({ deleted_at: nowMs }).where('id', '=', teamId).execute()
        await tx.deleteFrom('team_members').where('team_id', '=', teamId).execute()
        await tx
          .updateTable('team_invitations')
          .set({ revoked_at: nowMs })
          .where('team_id', '=', teamId)
          .where('accepted_at', 'is', null)
          .where('revoked_at', 'is', null)
          .execute()
        const keys = await tx
          .updateTable('api_keys')
          .set({ revoked_at: nowMs })
          .where('account_id', '=', teamId)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
        return Number(keys.numUpdatedRows)
      })
      await bumpSettingsVersion(db)
      return { revokedKeys }
    },
    async moveKey(keyId, teamId) {
      if (!(await repo.get(teamId))) throw errors.notFound(`team ${teamId}`)
      const key = await db.selectFrom('api_keys').select('account_id').where('id', '=', keyId).executeTakeFirst()
      if (!key) throw errors.notFound(`key ${keyId}`)
      if (key.account_id === teamId) throw errors.conflict('the key already belongs to this team')
      await db.updateTable('api_keys').set({ account_id: teamId }).where('id', '=', keyId).execute()
      // The gateway reloads its key snapshot: the key now draws on the new team's plan.
      await bumpSettingsVersion(db)
      return { from: key.account_id }
    },
  }
  return repo
}

const cmp = (a: Team, b: Team) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : 1)
