/**
 * Dashboard passwords of accounts: scrypt hashes (passwords.ts) kept by the accounts' credentials repository.
 * Accounts made with the CLI have no password until the operator sets one (`setAccountPassword`), so sign-up can
 * never claim an existing account.
 */
import { createCredentialsRepository, type CredentialsRepository } from '../../accounts/password-repository.ts'
import type { Db } from '../../db/database.ts'
import { errors } from '../../errors/index.ts'
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.ts'

/** Sets an account's password (CLI `account set-password`); ends every existing log-in of the account. */
export async function setAccountPassword(db: Db, accountId: string, password: string, nowMs: number): Promise<void> {
  const problem = passwordProblem(password)
  if (problem) throw errors.validation(problem)
  if (!(await createCredentialsRepository(db).setPasswordHash(accountId, await hashPassword(password), nowMs)))
    throw errors.notFound(`account ${accountId}`)
}

/** The account id when the email and password match; null otherwise (same time either way). */
export async function checkLogin(
  credentials: CredentialsRepository,
  email: string,
  password: string,
): Promise<string | null> {
  const row = await credentials.findByEmail(email)
  if (!row) return verifyAgainstDummy(password).then(() => null)
  return (await verifyPassword(password, row.passwordHash)) ? row.accountId : null
}
