/**
 * `chaingate account set-plan`, `account set-role` and `account disable|enable`: the operator's account commands
 * (docs/dashboard.md, "Operators"). Each prints the changed account (`--json`: the account object).
 */
import type { AccountRole, AccountsRepository, Account } from '../accounts/repository.ts'

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
