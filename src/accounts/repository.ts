/** Accounts: who owns keys and whose plan sets the daily balance and throughput. */
import { randomUUID } from 'node:crypto'
import type { Db } from '../db/database.ts'
import { isUniqueViolation } from '../db/dialect.ts'
import { bumpSettingsVersion } from '../db/settings-version.ts'
import { errors } from '../errors/index.ts'
import { emailProblem, normalizeEmail } from './email.ts'
import { insertPersonalTeam } from './teams/repository.ts'

/** Operators see every account in the dashboard and change their plans (docs/dashboard.md). */
export type AccountRole = 'user' | 'operator'
export const ACCOUNT_ROLES: readonly AccountRole[] = ['user', 'operator']

export interface Account {
  id: string
  email: string
  plan: string
  role: AccountRole
  createdAt: number
  /** Set while an operator has the account disabled: its keys are refused like unknown ones. */
  disabledAt: number | null
  /** When the sign-up's email was confirmed; null: not yet, so the account cannot create keys (docs/dashboard.md). */
  emailConfirmedAt: number | null
}

const toAccount = (r: {
  id: string
  email: string
  plan: string
  role: string
  created_at: number
  disabled_at?: number | null
  email_confirmed_at?: number | null
}): Account => ({
  id: r.id,
  email: r.email,
  plan: r.plan,
  role: r.role === 'operator' ? 'operator' : 'user',
  createdAt: r.created_at,
  disabledAt: r.disabled_at ?? null,
  emailConfirmedAt: r.email_confirmed_at ?? null,
})

export interface AccountsRepository {
  /**
   * A new account; `unconfirmed`: a dashboard sign-up whose email is still to be confirmed (accounts an operator
   * makes count as confirmed).
   */
  create(input: { email: string; plan: string; unconfirmed?: boolean }, nowMs: number): Promise<Account>
  /** Marks the account's email confirmed (the sign-up link, or an operator); false when it already was. */
  confirmEmail(id: string, nowMs: number): Promise<boolean>
  get(id: string): Promise<Account | undefined>
  findByEmail(email: string): Promise<Account | undefined>
  /** An account id or email. */
  resolve(idOrEmail: string): Promise<Account | undefined>
  /** Accounts that are not deleted, oldest first. */
  list(): Promise<Account[]>
  setPlan(id: string, plan: string): Promise<void>
  setRole(id: string, role: AccountRole): Promise<void>
  /** Disables (its keys stop serving within `settingsPollMs`) or enables an account; returns it as changed. */
  setDisabled(id: string, disabled: boolean, nowMs: number): Promise<Account>
  /**
   * Deletes an account: revokes its keys, ends its sessions, drops its password and frees its email. The row
   * stays, marked deleted, so its usage rows keep counting in the operator's totals. Returns the keys revoked.
   */
  delete(id: string, nowMs: number): Promise<{ revokedKeys: number }>
}

export function createAccountsRepository(db: Db, plans: Record<string, unknown>): AccountsRepository {
  const repo: AccountsRepository = {
    async create({ email, plan, unconfirmed }, nowMs) {
      const normalized = normalizeEmail(email)
      const problem = emailProblem(normalized)
      if (problem !== undefined) throw errors.validation(problem, 'email')
      if (!Object.hasOwn(plans, plan))
        throw errors.validation(`unknown plan ${plan}; plans: ${Object.keys(plans).join(', ')}`, 'plan')
      if (await repo.findByEmail(normalized)) throw errors.conflict(`an account with email ${normalized} exists`)
      const row = {
        id: randomUUID(),
        email: normalized,
        plan,
        role: 'user',
        created_at: nowMs,
        email_confirmed_at: unconfirmed ? null : nowMs,
      }
      try {
        // With its personal team (owner), which owns its keys (src/accounts/teams).
        await db.transaction().execute(async (tx) => {
          await tx.insertInto('accounts').values(row).execute()
          await insertPersonalTeam(tx, row, nowMs)
        })
      } catch (err) {
        // Two sign-ups of one email at the same time: the second meets the unique index.
        if (isUniqueViolation(err)) throw errors.conflict(`an account with email ${normalized} exists`)
        throw err
      }
      await bumpSettingsVersion(db)
      return toAccount(row)
    },
    async confirmEmail(id, nowMs) {
      if (!(await repo.get(id))) throw errors.notFound(`account ${id}`)
      const r = await db
        .updateTable('accounts')
        .set({ email_confirmed_at: nowMs })
        .where('id', '=', id)
        .where('email_confirmed_at', 'is', null)
        .executeTakeFirst()
      return Number(r.numUpdatedRows) === 1
    },
    async get(id) {
      const r = await db
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      return r && toAccount(r)
    },
    async findByEmail(email) {
      const r = await db
        .selectFrom('accounts')
        .selectAll()
        .where('email', '=', normalizeEmail(email))
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      return r && toAccount(r)
    },
    async resolve(idOrEmail) {
      return idOrEmail.includes('@') ? repo.findByEmail(idOrEmail) : repo.get(idOrEmail)
    },
    async list() {
      return (
        await db
          .selectFrom('accounts')
          .selectAll()
          .where('deleted_at', 'is', null)
          .where('kind', '=', 'person') // a shared team's billing row is listed with the teams
          .orderBy('created_at')
          .execute()
      ).map(toAccount)
    },
    async setPlan(id, plan) {
      if (!Object.hasOwn(plans, plan))
        throw errors.validation(`unknown plan ${plan}; plans: ${Object.keys(plans).join(', ')}`, 'plan')
      const r = await db
        .updateTable('accounts')
        .set({ plan })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      if (Number(r.numUpdatedRows) === 0) throw errors.notFound(`account ${id}`)
      await bumpSettingsVersion(db)
    },
    async setRole(id, role) {
      if (!ACCOUNT_ROLES.includes(role))
        throw errors.validation(`unknown role ${role}; roles: ${ACCOUNT_ROLES.join(', ')}`, 'role')
      const r = await db
        .updateTable('accounts')
        .set({ role })
        .where('id', '=', id)
        .where('deleted_at', 'is', null)
        .executeTakeFirst()
      if (Number(r.numUpdatedRows) === 0) throw errors.notFound(`account ${id}`)
    },
    async setDisabled(id, disabled, nowMs) {
      const before = await repo.get(id)
      if (!before) throw errors.notFound(`account ${id}`)
      if ((before.disabledAt !== null) === disabled)
        throw errors.conflict(`account ${before.email} is already ${disabled ? 'disabled' : 'enabled'}`)
      await db
        .updateTable('accounts')
        .set({ disabled_at: disabled ? nowMs : null })
        .where('id', '=', id)
        .execute()
      // The gateway reloads its key snapshot, which leaves out a disabled account's keys.
      await bumpSettingsVersion(db)
      return { ...before, disabledAt: disabled ? nowMs : null }
    },
    async delete(id, nowMs) {
      const revokedKeys = await db.transaction().execute(async (tx) => {
        // A shared team with other members keeps an owner: its last owner hands ownership on (or deletes it) first.
        const stranded = await tx
          .selectFrom('team_members as m')
          .innerJoin('teams as t', 't.id', 'm.team_id')
          .select('t.name')
          .where('m.account_id', '=', id)
          .where('m.role', '=', 'owner')
          .where('m.team_id', '!=', id)
          .where((eb) =>
            eb.not(
              eb.exists(
                eb
                  .selectFrom('team_members as o')
                  .select('o.account_id')
                  .whereRef('o.team_id', '=', 'm.team_id')
                  .where('o.role', '=', 'owner')
                  .where('o.account_id', '!=', id),
              ),
            ),
          )
          .where((eb) =>
            eb.exists(
              eb
                .selectFrom('team_members as x')
                .select('x.account_id')
                .whereRef('x.team_id', '=', 'm.team_id')
                .where('x.account_id', '!=', id),
            ),
          )
          .execute()
        if (stranded.length > 0)
          throw errors.conflict(
            `the account is the last owner of team ${stranded.map((t) => `"${t.name}"`).join(', ')}, which has ` +
              'other members: make another member owner first (or delete the team), then delete the account',
          )
        // "deleted:<id>" has no @, so it is never an email a sign-up or the CLI could claim.
        const r = await tx
          .updateTable('accounts')
          .set({ deleted_at: nowMs, email: `deleted:${id}`, role: 'user' })
          .where('id', '=', id)
          .where('deleted_at', 'is', null)
          .executeTakeFirst()
        if (Number(r.numUpdatedRows) === 0) throw errors.notFound(`account ${id}`)
        const keys = await tx
          .updateTable('api_keys')
          .set({ revoked_at: nowMs })
          .where('account_id', '=', id)
          .where('revoked_at', 'is', null)
          .executeTakeFirst()
        await tx.deleteFrom('dashboard_sessions').where('account_id', '=', id).execute()
        await tx.deleteFrom('account_credentials').where('account_id', '=', id).execute()
        // Out of every team; its personal team goes with it.
        await tx.deleteFrom('team_members').where('account_id', '=', id).execute()
        await tx.deleteFrom('team_members').where('team_id', '=', id).execute()
        await tx.updateTable('teams').set({ deleted_at: nowMs }).where('id', '=', id).execute()
        return Number(keys.numUpdatedRows)
      })
      // The gateway reloads its key snapshot: the revoked keys are refused and their sockets closed.
      await bumpSettingsVersion(db)
      return { revokedKeys }
    },
  }
  return repo
}
