/**
 * `chaingate account set-plan`, `account set-role`, `account disable|enable`, `account confirm` and
 * `account reset-2fa`: the operator's account commands (docs/dashboard.md, "Operators"). Each prints the changed
 * account (`--json`: the account object).
 */
import { createSessionsRepository } from '../accounts/login-repository.ts'
import type { AccountRole, AccountsRepository, Account } from '../accounts/repository.ts'
import { createTwoFactorRepository } from '../accounts/two-factor-repository.ts'
import type { Db } from '../db/database.ts'

export interface AccountCommandIo {
  json: boolean
  out(text: string): void
}

export async function setPlanCommand(
  accounts: AccountsRepository,
  account: Account,
  plan: string,
  io: AccountCommandIo,
): Promise<number> {
  await accounts.setPlan(account.id, plan)
  const changed = (await accounts.get(account.id)) ?? { ...account, plan }
  io.out(io.json ? JSON.stringify(changed, null, 2) : `account ${changed.email} is now on plan ${changed.plan}`)
  return 0
}

export async function setRoleCommand(
  accounts: AccountsRepository,
  account: Account,
  role: string,
  io: AccountCommandIo,
): Promise<number> {
  await accounts.setRole(account.id, role as AccountRole)
  const changed = (await accounts.get(account.id)) ?? { ...account, role: role as AccountRole }
  io.out(
    io.json
      ? JSON.stringify(changed, null, 2)
      : `account ${changed.email} is now ${
          changed.role === 'operator' ? 'an operator (the dashboard shows it every account at /accounts)' : 'a user'
        }`,
  )
  return 0
}

export async function setDisabledCommand(
  accounts: AccountsRepository,
  account: Account,
  disabled: boolean,
  nowMs: number,
  io: AccountCommandIo,
): Promise<number> {
  const changed = await accounts.setDisabled(account.id, disabled, nowMs)
  io.out(
    io.json
      ? JSON.stringify(changed, null, 2)
      : `account ${changed.email} is ${disabled ? 'disabled: its keys are refused' : 'enabled again'}`,
  )
  return 0
}

/** Marks a sign-up's email confirmed (the user never got the link). */
export async function confirmCommand(
  accounts: AccountsRepository,
  account: Account,
  nowMs: number,
  io: AccountCommandIo,
): Promise<number> {
  const changed = await accounts.confirmEmail(account.id, nowMs)
  const after = (await accounts.get(account.id)) ?? account
  io.out(
    io.json
      ? JSON.stringify(after, null, 2)
      : `account ${after.email} ${changed ? 'is confirmed: it can create keys' : 'was already confirmed'}`,
  )
  return 0
}

/** Turns two-factor log-in off for a user who lost their app and codes; their dashboard sessions end too. */
export async function resetTwoFactorCommand(db: Db, account: Account, io: AccountCommandIo): Promise<number> {
  const reset = await createTwoFactorRepository(db).disable(account.id)
  await createSessionsRepository(db).deleteAllOfAccount(account.id)
  io.out(
    io.json
      ? JSON.stringify({ account: account.id, reset })
      : reset
        ? `two-factor log-in of ${account.email} is off; they log in with the password and can set it up again`
        : `${account.email} had no two-factor log-in`,
  )
  return 0
}
