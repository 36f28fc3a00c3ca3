/**
 * `chaingate account set-plan`, `account set-role`, `account disable|enable`, `account confirm`,
 * `account reset-2fa` and `account unlock`: the operator's account commands (docs/dashboard.md, "Operators"). Each
 * prints the changed account (`--json`: the account object) or what was done.
 */
import { createSessionsRepository } from '../accounts/login-repository.ts'
import type { AccountRole, AccountsRepository, Account } from '../accounts/repository.ts'
import { createTwoFactorRepository } from '../accounts/two-factor-repository.ts'
import type { Config } from '../config/schema.ts'
import type { Db } from '../db/database.ts'
import { UsageError } from './usage-error.ts'

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

/**
 * Clears the failed log-ins counted for the account's email. They live in Redis only with `redis.url`; without it
 * each running process counts in its own memory, which a command cannot reach: it says so and changes nothing.
 */
export async function unlockCommand(config: Config, account: Account, io: AccountCommandIo): Promise<number> {
  if (!config.redis.url)
    throw new UsageError(
      'without redis.url the log-in limits live in the memory of each running chaingate process: unlock through ' +
        `the running server's admin API (POST /admin/v1/accounts/${account.id}/unlock), or wait for the ` +
        'one-minute window to pass',
    )
  const [{ connectRedis }, { createDashboardLimiters, unlockLogins }] = await Promise.all([
    import('../redis/connection.ts'),
    import('../accounts/login-limiter.ts'),
  ])
  const redis = await connectRedis({
    url: config.redis.url,
    prefix: config.redis.keyPrefix,
    commandTimeoutMs: config.redis.commandTimeoutMs,
  })
  try {
    if (redis.unreachableAtStart !== undefined)
      throw new Error(`Redis cannot be reached (${redis.unreachableAtStart}): nothing was cleared; try again`)
    const cleared = await unlockLogins(createDashboardLimiters(config.dashboard, redis), account.email)
    io.out(
      io.json
        ? JSON.stringify({ account: account.id, cleared, scope: 'redis' })
        : cleared
          ? `${account.email} can log in again at once (its failed log-ins were cleared on every replica)`
          : `${account.email} had no failed log-ins counted`,
    )
    return 0
  } finally {
    await redis.close()
  }
}
