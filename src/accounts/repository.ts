/** Accounts: who owns keys and whose plan sets the daily balance and throughput. */
import { randomUUID } from 'node:crypto'
import type { Db } from '../db/database.ts'
import { bumpSettingsVersion } from '../db/settings-version.ts'
import { errors } from '../errors/index.ts'

export interface Account {
  id: string
  email: string
  plan: string
  createdAt: number
}

const toAccount = (r: { id: string; email: string; plan: string; created_at: number }): Account => ({
  id: r.id,
  email: r.email,
  plan: r.plan,
  createdAt: r.created_at,
})

export interface AccountsRepository {
  create(input: { email: string; plan: string }, nowMs: number): Promise<Account>
  get(id: string): Promise<Account | undefined>
  findByEmail(email: string): Promise<Account | undefined>
  /** An account id or email. */
  resolve(idOrEmail: string): Promise<Account | undefined>
  list(): Promise<Account[]>
  setPlan(id: string, plan: string): Promise<void>
}

const EMAIL = /^[^\s@]+@[^\s@]+$/

export function createAccountsRepository(db: Db, plans: Record<string, unknown>): AccountsRepository {
  const repo: AccountsRepository = {
    async create({ email, plan }, nowMs) {
      const normalized = email.trim().toLowerCase()
      if (!EMAIL.test(normalized)) throw errors.validation(`not an email address: ${email}`)
      if (!(plan in plans)) throw errors.validation(`unknown plan ${plan}; plans: ${Object.keys(plans).join(', ')}`)
      if (await repo.findByEmail(normalized)) throw errors.conflict(`an account with email ${normalized} exists`)
      const row = { id: randomUUID(), email: normalized, plan, created_at: nowMs }
      try {
        await db.insertInto('accounts').values(row).execute()
      } catch (err) {
        // Two sign-ups of one email at the same time: the second meets the unique index.
        if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw errors.conflict(`an account with email ${normalized} exists`)
        throw err
      }
      await bumpSettingsVersion(db)
      return toAccount(row)
    },
    async get(id) {
      const r = await db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst()
      return r && toAccount(r)
    },
    async findByEmail(email) {
      const r = await db.selectFrom('accounts').selectAll().where('email', '=', email.trim().toLowerCase()).executeTakeFirst()
      return r && toAccount(r)
    },
    async resolve(idOrEmail) {
      return idOrEmail.includes('@') ? repo.findByEmail(idOrEmail) : repo.get(idOrEmail)
    },
    async list() {
      return (await db.selectFrom('accounts').selectAll().orderBy('created_at').execute()).map(toAccount)
    },
    async setPlan(id, plan) {
      if (!(plan in plans)) throw errors.validation(`unknown plan ${plan}`)
      const r = await db.updateTable('accounts').set({ plan }).where('id', '=', id).executeTakeFirst()
      if (Number(r.numUpdatedRows) === 0) throw errors.notFound(`account ${id}`)
      await bumpSettingsVersion(db)
    },
  }
  return repo
}
