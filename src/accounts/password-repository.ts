/**
 * Dashboard passwords of accounts (table `account_credentials`): only the scrypt string is stored (hashing lives
 * in src/dashboard/auth/passwords.ts). Accounts made with the CLI have no row until the operator sets a password.
 */
import type { Db } from '../db/database.ts'

export interface CredentialsRepository {
  /** The account and its stored password hash; undefined when the email has no account or no password. */
  findByEmail(email: string): Promise<{ accountId: string; passwordHash: string } | undefined>
  /**
   * Sets (or replaces) the account's password hash and ends every dashboard session of the account; false when
   * there is no such account.
   */
  setPasswordHash(accountId: string, passwordHash: string, nowMs: number): Promise<boolean>
}

export function createCredentialsRepository(db: Db): CredentialsRepository {
  return {
    async findByEmail(email) {
      const row = await db
        .selectFrom('accounts')
        .innerJoin('account_credentials', 'account_credentials.account_id', 'accounts.id')
        .select(['accounts.id', 'account_credentials.password_hash'])
        .where('accounts.email', '=', email.trim().toLowerCase())
        .executeTakeFirst()
      return row && { accountId: row.id, passwordHash: row.password_hash }
    },
    async setPasswordHash(accountId, passwordHash, nowMs) {
      return db.transaction().execute(async (tx) => {
        if (!(await tx.selectFrom('accounts').select('id').where('id', '=', accountId).executeTakeFirst())) return false
        await tx
          .insertInto('account_credentials')
          .values({ account_id: accountId, password_hash: passwordHash, updated_at: nowMs })
          .onConflict((oc) => oc.column('account_id').doUpdateSet({ password_hash: passwordHash, updated_at: nowMs }))
          .execute()
        // A new password ends every existing login of the account.
        await tx.deleteFrom('dashboard_sessions').where('account_id', '=', accountId).execute()
        return true
      })
    },
  }
}
