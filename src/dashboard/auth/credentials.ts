/**
 * Dashboard passwords of accounts (table `account_credentials`). Only the scrypt string is stored. Accounts made
 * with the CLI have no password until the operator sets one (`setAccountPassword`), so sign-up can never claim
 * an existing account.
 */
import type { Db } from '../../db/database.ts'
import { errors } from '../../errors/index.ts'
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.ts'

export async function setAccountPassword(db: Db, accountId: string, password: string, nowMs: number): Promise<void> {
  const problem = passwordProblem(password)
  if (problem) throw errors.validation(problem)
  const account = await db.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst()
  if (!account) throw errors.notFound(`account ${accountId}`)
  const row = { account_id: accountId, password_hash: await hashPassword(password), updated_at: nowMs }
  await db
    .insertInto('account_credentials')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doUpdateSet({ password_hash: row.password_hash, updated_at: nowMs }))
    .execute()
  // A new password ends every existing login of the account.
  await db.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute()
}

/** The account id when the email and password match; null otherwise (same time either way). */
export async function checkLogin(db: Db, email: string, password: string): Promise<string | null> {
  const row = await db
    .selectFrom('accounts')
    .innerJoin('account_credentials', 'account_credentials.account_id', 'accounts.id')
    .select(['accounts.id', 'account_credentials.password_hash'])
    .where('accounts.email', '=', email.trim().toLowerCase())
    .executeTakeFirst()
  if (!row) return verifyAgainstDummy(password).then(() => null)
  return (await verifyPassword(password, row.password_hash)) ? row.id : null
}
