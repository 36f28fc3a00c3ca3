/**
 * The admin commands (`account ...`, `key ...`, `team ...`, `usage`) for src/cli/main.ts: each opens the database
 * (and, with Redis configured, the settings push), runs one change or report, and closes them again. The key
 * commands are ./key-commands.ts, the operator's account commands ./account-commands.ts.
 */
import type { DayDimension } from '../usage/day-report.ts'
import type { CliContext } from './context.ts'
import { SUBCOMMANDS } from './help.ts'
import { didYouMean } from './suggest.ts'
import { UsageError } from './usage-error.ts'
import { isChaingateError } from '../errors/index.ts'

export async function adminCommand(
  command: string,
  sub: string | undefined,
  rest: string[],
  values: Record<string, unknown>,
  ctx: CliContext,
): Promise<number> {
  const { config, json, out } = ctx
  const name = `${command} ${sub ?? ''}`.trim()
  const ADMIN = [
    'account create',
    'account list',
    'account set-plan',
    'account set-role',
    'account set-password',
    'account disable',
    'account enable',
    'account confirm',
    'account reset-2fa',
    'account unlock',
    'key create',
    'key list',
    'key show',
    'key enable-network',
    'key disable-network',
    'key limits',
    'key rename',
    'key revoke',
    'key move',
    'team list',
    'team members',
    'usage',
  ]
  // Checked before opening the database, so a typo does not create a data dir.
  if (!ADMIN.includes(name)) {
    const hint = sub && SUBCOMMANDS[command] ? didYouMean(sub, SUBCOMMANDS[command]!, `${command} `) : ''
    throw new UsageError(
      `unknown command "${[command, sub].filter(Boolean).join(' ')}"${hint}; see chaingate help ${command}`,
    )
  }
  const [{ openDatabase, databaseTarget }, { createAccountsRepository }, { createKeysRepository }] = await Promise.all([
    import('../db/database.ts'),
    import('../accounts/repository.ts'),
    import('../keys/repository.ts'),
  ])
  const database = await openDatabase(databaseTarget(config))
  // With Redis configured, a change made here is pushed to every running replica at once (src/redis/settings-push.ts).
  const push = config.redis.url
    ? await (await import('../redis/settings-push-attach.ts')).attachSettingsPush({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        db: database.db,
      })
    : undefined
  try {
    const now = Date.now()
    const accounts = createAccountsRepository(database.db, config.plans)
    const keys = createKeysRepository(database.db, {
      networks: config.networks.map((n) => n.name),
      plans: config.plans,
    })
    // The account or key acted on, for the audit.
    let target: string | null = null
    const needAccount = async (ref: string | undefined) => {
      if (!ref) throw new UsageError('--account is required (an account id or email)')
      const a = await accounts.resolve(ref)
      if (!a) throw new UsageError(`no account ${ref}`)
      target = a.id
      return a
    }
    const needKey = async (ref: string | undefined) => {
      if (!ref) throw new UsageError('a key id (or the key) is required')
      const k = await keys.resolve(ref)
      if (!k) throw new UsageError(`no key ${ref}`)
      target = k.id
      return k
    }

    const run = async (): Promise<number> => {
      switch (`${command} ${sub ?? ''}`.trim()) {
        case 'account create': {
          if (!values.email) throw new UsageError('--email is required')
          const a = await accounts.create(
            { email: values.email as string, plan: (values.plan as string) ?? config.gateway.defaultPlan },
            now,
          )
          out(json ? JSON.stringify(a, null, 2) : `created account ${a.id} (${a.email}, plan ${a.plan})`)
          return 0
        }
        case 'account list': {
          const list = await accounts.list()
          if (json) out(JSON.stringify(list, null, 2))
          else for (const a of list) out(`${a.id}  ${a.email.padEnd(30)} ${a.plan}${a.disabledAt ? '  DISABLED' : ''}`)
          return 0
        }
        case 'account set-plan': {
          const a = await needAccount(rest[0])
          if (!rest[1]) throw new UsageError('usage: account set-plan <account> <plan>')
          return await (await import('./account-commands.ts')).setPlanCommand(accounts, a, rest[1], ctx)
        }
        case 'account set-role': {
          const a = await needAccount(rest[0])
          if (!rest[1]) throw new UsageError('usage: account set-role <account> user|operator')
          return await (await import('./account-commands.ts')).setRoleCommand(accounts, a, rest[1], ctx)
        }
        case 'account disable':
        case 'account enable': {
          const a = await needAccount(rest[0])
          return (await import('./account-commands.ts')).setDisabledCommand(accounts, a, sub === 'disable', now, ctx)
        }
        case 'account confirm':
        case 'account reset-2fa': {
          const a = await needAccount(rest[0])
          const commands = await import('./account-commands.ts')
          if (sub === 'confirm') return commands.confirmCommand(accounts, a, now, ctx)
          return commands.resetTwoFactorCommand(database.db, a, ctx)
        }
        case 'account unlock': {
          const a = await needAccount(rest[0])
          return (await import('./account-commands.ts')).unlockCommand(config, a, ctx)
        }
        case 'account set-password': {
          const a = await needAccount(rest[0])
          const password = (await readStdin()).replace(/\r?\n$/, '')
          const { setAccountPassword } = await import('../dashboard/auth/set-password.ts')
          await setAccountPassword(database.db, a.id, password, now)
          out(
            json
              ? JSON.stringify({ id: a.id, email: a.email, password: 'set' })
              : `password set for ${a.email}; log in at /login`,
          )
          return 0
        }
        case 'key create':
        case 'key list':
        case 'key show':
        case 'key enable-network':
        case 'key disable-network':
        case 'key limits':
        case 'key rename':
        case 'key revoke':
          return (await import('./key-commands.ts')).keyCommand(sub, rest, values, ctx, {
            keys,
            now,
            needAccount,
            needKey,
          })
        case 'key move':
        case 'team list':
        case 'team members': {
          const teams = (await import('../accounts/teams/repository.ts')).createTeamsRepository(database.db)
          if (name === 'key move') {
            const k = await needKey(rest[0])
            if (!rest[1]) throw new UsageError('usage: key move <key-id> <team-id>')
            const { from } = await teams.moveKey(k.id, rest[1])
            out(json ? JSON.stringify({ keyId: k.id, from, teamId: rest[1] }) : `key ${k.id} moved to team ${rest[1]}`)
          } else if (name === 'team list') {
            const list = await teams.list()
            if (json) out(JSON.stringify(list, null, 2))
            else for (const t of list) out(`${t.id}  ${t.plan.padEnd(12)} ${String(t.members).padStart(3)}  ${t.name}`)
          } else {
            if (!rest[0] || !(await teams.get(rest[0]))) throw new UsageError(`no team ${rest[0] ?? ''}`.trim())
            const members = await teams.members(rest[0])
            if (json) out(JSON.stringify(members, null, 2))
            else for (const m of members) out(`${m.accountId}  ${m.role.padEnd(9)} ${m.email}`)
          }
          return 0
        }
        case 'usage': {
          const [{ dayUsageReport, isUtcDay, utcDay, DAY_DIMENSIONS }, { usageLines }] = await Promise.all([
            import('../usage/day-report.ts'),
            import('./usage-view.ts'),
          ])
          const day = (values.day as string | undefined) ?? utcDay(now)
          if (!isUtcDay(day)) throw new UsageError('--day must be a date as YYYY-MM-DD (UTC)')
          const by = ((values.by as string | undefined) ?? 'method') as DayDimension
          if (!DAY_DIMENSIONS.includes(by)) throw new UsageError('--by must be method, network, key or upstream')
          // The gateway's own cost, not an account's: per network and upstream (docs/upstream-usage.md).
          if (by === 'upstream' && (values.account || values.key))
            throw new UsageError('--by upstream reports the whole gateway: --account and --key do not apply')
          const account = values.account ? await needAccount(values.account as string) : undefined
          const key = values.key ? await needKey(values.key as string) : undefined
          const report = await dayUsageReport(database.db, {
            day,
            by,
            accountId: account?.id,
            keyId: key?.id,
            owner: account ?? (key ? await accounts.get(key.accountId) : undefined),
            plans: config.plans,
            nowMs: now,
          })
          if (json) out(JSON.stringify(report, null, 2))
          else for (const line of usageLines(report, { day, by, account, key })) out(line)
          return 0
        }
        default:
          throw new UsageError(`unknown command "${[command, sub].filter(Boolean).join(' ')}"; see chaingate --help`)
      }
    }
    // Account and key changes are audited like the admin API's (docs/admin-api.md, "Audit").
    if (!AUDITED.has(name)) return await run()
    const audit = async (status: number) =>
      (await import('../audit/repository.ts')).recordAudit(database.db, {
        at: Date.now(),
        actor: 'cli',
        action: `cli ${name}`,
        target,
        summary: [...rest.slice(target ? 1 : 0), ...cliOptions(values)].join(' '),
        status,
      })
    try {
      const code = await run()
      await audit(200)
      return code
    } catch (err) {
      await audit(isChaingateError(err) ? err.httpStatus : err instanceof UsageError ? 400 : 500)
      throw err
    }
  } finally {
    await push?.close()
    await database.close()
  }
}

/** The changes the audit records (reports are not). */
const AUDITED = new Set([
  'account create',
  'account set-plan',
  'account set-role',
  'account set-password',
  'account disable',
  'account enable',
  'account confirm',
  'account reset-2fa',
  'account unlock',
  'key create',
  'key enable-network',
  'key disable-network',
  'key limits',
  'key rename',
  'key revoke',
  'key move',
])

/** The options of a command as typed, for the audit (where the files are is not what changed). */
const cliOptions = (values: Record<string, unknown>) =>
  Object.entries(values)
    .filter(([k, v]) => !['config', 'data-dir', 'json'].includes(k) && v !== undefined)
    .map(([k, v]) => (v === true ? `--${k}` : `--${k} ${String(v)}`))

async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('password (then Enter): ')
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) {
    chunks.push(chunk as Buffer)
    if (process.stdin.isTTY && String(chunk).includes('\n')) break
  }
  return Buffer.concat(chunks).toString('utf8')
}
