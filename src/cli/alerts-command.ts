/**
 * `chaingate alerts …` (docs/alerts.md): an account's usage alert settings and the alerts that fired, through the
 * same domain code as the dashboard and the admin API (src/alerts). Works while the server runs: the sweep reads
 * the settings from the database every `alerts.sweepMs`.
 */
import { createAccountsRepository } from '../accounts/repository.ts'
import { createAlertLog, type AlertRecord } from '../alerts/log.ts'
import { createAlertSettingsRepository, parseRefusalRate, parseThresholds } from '../alerts/settings.ts'
import { recordAudit } from '../audit/repository.ts'
import { databaseTarget, openDatabase } from '../db/database.ts'
import { isChaingateError } from '../errors/index.ts'
import { didYouMean } from './suggest.ts'
import type { CliContext } from './context.ts'
import { UsageError } from './usage-error.ts'

export const ALERTS_SUBCOMMANDS = ['set', 'list', 'remove', 'deliveries'] as const

export async function alertsCommand(
  sub: string | undefined,
  values: Record<string, unknown>,
  ctx: CliContext,
): Promise<number> {
  const { config, json, out } = ctx
  if (!sub || !(ALERTS_SUBCOMMANDS as readonly string[]).includes(sub)) {
    const hint = sub ? didYouMean(sub, ALERTS_SUBCOMMANDS, 'alerts ') : ''
    throw new UsageError(`unknown command "alerts${sub ? ` ${sub}` : ''}"${hint}; see chaingate help alerts`)
  }
  const database = await openDatabase(databaseTarget(config))
  // Changes are audited like the other CLI changes (docs/admin-api.md, "Audit"); a webhook URL only by its host
  // (paths of hooks such as Slack's carry a token).
  const audit = (status: number) =>
    recordAudit(database.db, {
      at: Date.now(),
      actor: 'cli',
      action: `cli alerts ${sub}`,
      target: (values.account as string | undefined) ?? null,
      summary: auditSummary(values),
      status,
    })
  const changes = sub === 'set' || sub === 'remove'
  try {
    const code = await run()
    if (changes) await audit(200)
    return code
  } catch (err) {
    if (changes) await audit(isChaingateError(err) ? err.httpStatus : err instanceof UsageError ? 400 : 500)
    throw err
  } finally {
    await database.close()
  }

  async function run(): Promise<number> {
    const now = Date.now()
    const accounts = createAccountsRepository(database.db, config.plans)
    const settings = createAlertSettingsRepository(database.db, config.alerts)
    const log = createAlertLog(database.db)
    const accountRef = values.account as string | undefined
    const account = accountRef ? await accounts.resolve(accountRef) : undefined
    if (accountRef && !account) throw new UsageError(`no account ${accountRef}`)
    switch (sub) {
      case 'set': {
        if (!account) throw new UsageError('--account is required (an account id or email)')
        const at = values.at as string | undefined
        const rate = values['refusals-per-minute'] as string | undefined
        const webhook = values.webhook as string | undefined
        if (at === undefined && rate === undefined && webhook === undefined && !values['rotate-secret'])
          throw new UsageError('give --at, --refusals-per-minute, --webhook or --rotate-secret')
        const { settings: s, secret } = await settings.set(
          account.id,
          {
            ...(at !== undefined ? { creditThresholds: at === 'none' ? [] : parseThresholds(at) } : {}),
            ...(rate !== undefined ? { refusalsPerMinute: parseRefusalRate(rate) } : {}),
            ...(webhook !== undefined ? { webhookUrl: webhook === 'none' ? null : webhook } : {}),
            ...(values['rotate-secret'] ? { rotateSecret: true } : {}),
          },
          now,
        )
        if (json) out(JSON.stringify({ ...s, email: account.email, ...(secret ? { secret } : {}) }, null, 2))
        else {
          out(`alerts for ${account.email}: ${describe(s.creditThresholds, s.refusalsPerMinute, s.webhookUrl)}`)
          if (secret)
            out(`webhook signing secret (shown once; verify x-chaingate-signature with it, docs/alerts.md):\n${secret}`)
        }
        return 0
      }
      case 'list': {
        const list = (await settings.list()).filter((s) => !account || s.accountId === account.id)
        if (json) out(JSON.stringify(list, null, 2))
        else if (list.length === 0) out('no account has alerts')
        else
          for (const s of list)
            out(`${s.email.padEnd(30)} ${describe(s.creditThresholds, s.refusalsPerMinute, s.webhookUrl)}`)
        return 0
      }
      case 'remove': {
        if (!account) throw new UsageError('--account is required (an account id or email)')
        const removed = await settings.remove(account.id)
        out(
          json
            ? JSON.stringify({ accountId: account.id, removed })
            : `alerts ${removed ? 'removed' : 'were not set'} for ${account.email}`,
        )
        return 0
      }
      default: {
        // deliveries: the alerts that fired, newest first, with their delivery state (and attempts with --json).
        const recent = await log.recent(account?.id, 50)
        if (json) {
          const withAttempts = await Promise.all(
            recent.map(async (a) => ({ ...view(a), attemptLog: await log.attempts(a.id) })),
          )
          out(JSON.stringify(withAttempts, null, 2))
        } else if (recent.length === 0) out('no alerts have fired')
        else for (const a of recent) out(line(a))
        return 0
      }
    }
  }
}

function auditSummary(values: Record<string, unknown>): string {
  const host = (u: unknown) => {
    if (typeof u !== 'string' || u === 'none') return u
    try {
      return `${new URL(u).protocol}//${new URL(u).host}/…`
    } catch {
      return '(not a URL)'
    }
  }
  return [
    values.at !== undefined ? `--at ${values.at}` : '',
    values['refusals-per-minute'] !== undefined ? `--refusals-per-minute ${values['refusals-per-minute']}` : '',
    values.webhook !== undefined ? `--webhook ${host(values.webhook)}` : '',
    values['rotate-secret'] ? '--rotate-secret' : '',
  ]
    .filter(Boolean)
    .join(' ')
}

function describe(thresholds: number[], refusals: number | null, url: string | null): string {
  const parts = [
    thresholds.length
      ? `at ${thresholds.map((t) => `${t} %`).join(', ')} of the daily balance`
      : 'no credit thresholds',
    refusals === null ? 'no refusal threshold' : `at ${refusals} refused calls a minute`,
    url ? `webhook ${url}` : 'no webhook (dashboard only)',
  ]
  return parts.join('; ')
}

function view(a: AlertRecord) {
  const { payload, ...rest } = a
  return { ...rest, payload: JSON.parse(payload) as unknown }
}

function line(a: AlertRecord): string {
  const what = a.kind === 'credits' ? `${a.threshold} % of the daily balance` : `${a.threshold} refused calls/min`
  const when = new Date(a.createdAt).toISOString().replace('T', ' ').slice(0, 19)
  const next = a.status === 'pending' && a.nextAttemptAt ? `, next ${new Date(a.nextAttemptAt).toISOString()}` : ''
  const err = a.lastError ? `, last error: ${a.lastError}` : ''
  const attempts = `${a.attempts} attempt${a.attempts === 1 ? '' : 's'}`
  return `${when}  ${a.accountId}  ${what.padEnd(32)} ${a.status} (${attempts}${next}${err})`
}
