/**
 * The `chaingate` command: `start` runs the service; the other commands administer accounts, keys and usage in
 * the same database, also while a server runs (it picks changes up within `gateway.settingsPollMs`).
 */
// First: before any module that loads the undici package (src/shared/builtin-fetch.ts).
import '../shared/builtin-fetch.ts'
import { readFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { isChaingateError } from '../errors/index.ts'
import { extraCommands } from './extra-commands.ts'
import { commandHelp, COMMANDS, fullHelp } from './help.ts'
import { didYouMean } from './suggest.ts'
import { UsageError } from './usage-error.ts'
import { printLine } from './printable.ts'
import type { CliContext } from './context.ts'
// Everything else is imported where a command needs it, so `--help` and the admin commands load only their part.

// The help texts and the known command names: ./help.ts (no server code).

function parseOptions(argv: string[], strict: boolean) {
  // `--credits-per-day -5` is a (bad) value, not an option: join it so the command can say what is wrong with it.
  const args = argv
    .map((a, i) => (a.startsWith('--') && /^-\d/.test(argv[i + 1] ?? '') ? `${a}=${argv[i + 1]}` : a))
    .filter((a, i) => !(/^-\d/.test(a) && argv[i - 1]?.startsWith('--')))
  return parseArgs({
    args,
    allowPositionals: true,
    strict,
    options: {
      config: { type: 'string' },
      'data-dir': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean' },
      port: { type: 'string' },
      'log-requests': { type: 'string' },
      workers: { type: 'string' },
      'copy-from': { type: 'string' },
      email: { type: 'string' },
      plan: { type: 'string' },
      account: { type: 'string' },
      key: { type: 'string' },
      name: { type: 'string' },
      networks: { type: 'string' },
      all: { type: 'boolean' },
      day: { type: 'string' },
      by: { type: 'string' },
      'credits-per-second': { type: 'string' },
      'credits-per-day': { type: 'string' },
      method: { type: 'string' },
      status: { type: 'string' },
      errors: { type: 'boolean' },
      limit: { type: 'string' },
      at: { type: 'string' },
      webhook: { type: 'string' },
      'refusals-per-minute': { type: 'string' },
      'rotate-secret': { type: 'boolean' },
    },
  })
}

async function main(argv: string[]): Promise<number> {
  // Extra commands (wallet) read their own options; everything else is parsed strictly, so a misspelled
  // option is an error instead of being ignored.
  const strict = !extraCommands().some((e) => argv.includes(e.command))
  let parsed: ReturnType<typeof parseOptions>
  try {
    parsed = parseOptions(argv, strict)
  } catch (err) {
    const unknown = /Unknown option '(-{1,2}[^']+)'/.exec((err as Error).message)?.[1]
    if (unknown)
      throw new UsageError(`unknown option ${unknown}${didYouMean(unknown, OPTION_NAMES, '--')}; see chaingate help`)
    throw new UsageError(`${(err as Error).message}; see chaingate --help`)
  }
  const { values, positionals } = parsed
  const [command, sub, ...rest] = positionals
  const extras = extraCommands()
  if (values.version) {
    process.stdout.write(`chaingate ${version()}\n`)
    return 0
  }
  if (command === 'help' || (values.help && command && COMMANDS.includes(command))) {
    const topic = command === 'help' ? sub : command
    if (topic === undefined) process.stdout.write(`${fullHelp(extras.map((e) => e.help).join(''))}\n`)
    else {
      const text = commandHelp(topic)
      if (!text) throw new UsageError(`unknown command "${topic}"${didYouMean(topic, COMMANDS)}; see chaingate help`)
      process.stdout.write(`${text}\n`)
    }
    return 0
  }
  if (values.help || !command) {
    process.stdout.write(`${fullHelp(extras.map((e) => e.help).join(''))}\n`)
    return 0 // help asked for explicitly or implicitly (no command) is not an error
  }
  if (!COMMANDS.includes(command))
    throw new UsageError(`unknown command "${command}"${didYouMean(command, COMMANDS)}; see chaingate help`)
  if (command !== 'start' && (values['log-requests'] !== undefined || values.workers !== undefined))
    throw new UsageError(`--log-requests and --workers belong to chaingate start`)
  // `chaingate upstreams --port N` finds a server started with `--port N` (its /healthz is on that port).
  if (command !== 'start' && command !== 'upstreams' && values.port !== undefined)
    throw new UsageError(`--port belongs to chaingate start and chaingate upstreams`)
  if (command === 'config')
    return (await import('./config-command.ts')).configCommand(sub, rest, {
      config: values.config,
      'data-dir': values['data-dir'],
      json: values.json,
    })
  if (command === 'reload') {
    if (sub !== undefined)
      throw new UsageError('reload takes no arguments (it reads --config); see chaingate help reload')
    return (await import('./reload-command.ts')).reloadCommand(values)
  }
  const { loadConfig } = await import('../config/load.ts')
  const config = loadConfig(
    values.config as string | undefined,
    values['data-dir'] ? { dataDir: values['data-dir'] as string } : {},
  )
  const json = Boolean(values.json)
  // Every command's text and JSON output goes through here: made printable (./printable.ts).
  const out = (text: string) => printLine(process.stdout, text)
  const ctx: CliContext = { config, json, out }

  if (values.port !== undefined) {
    const port = Number(values.port)
    if (!/^\d+$/.test(String(values.port)) || port > 65535)
      throw new UsageError('--port must be a port number (0-65535; 0 picks a free one)')
    config.gateway.port = port
  }
  if (command === 'start') {
    const logRequests = values['log-requests'] as string | undefined
    if (logRequests !== undefined && !['file', 'stdout', 'off'].includes(logRequests))
      throw new UsageError(
        `--log-requests must be file, stdout or off${didYouMean(logRequests, ['file', 'stdout', 'off'])}`,
      )
    let workers: number | undefined
    if (values.workers !== undefined) {
      workers = Number(values.workers)
      if (!/^\d+$/.test(String(values.workers)) || workers < 1 || workers > 256)
        throw new UsageError('--workers must be a number of processes (1-256)')
    }
    const overrides = values['data-dir'] ? { dataDir: values['data-dir'] as string } : {}
    const readConfig = () => {
      const again = loadConfig(values.config as string | undefined, overrides)
      if (values.port !== undefined) again.gateway.port = config.gateway.port
      if (logRequests === 'off') again.log.requests = false
      return again
    }
    return (await import('./start.ts')).runStart(config, {
      readConfig,
      configFile: values.config as string | undefined,
      logRequests: logRequests as 'file' | 'stdout' | 'off' | undefined,
      version: version(),
      workers,
    })
  }
  if (command === 'migrate') {
    // Opening applies every pending migration (under kysely's migration lock: safe while replicas start).
    const { openDatabase, databaseTarget, describeTarget } = await import('../db/database.ts')
    const target = databaseTarget(config)
    if (values['copy-from'] !== undefined)
      return (await import('./copy-data-command.ts')).copyDataCommand(values['copy-from'] as string, target, ctx)
    const database = await openDatabase(target)
    await database.close()
    if (json) out(JSON.stringify({ database: describeTarget(target), applied: database.migrated }, null, 2))
    else
      out(
        database.migrated.length
          ? `${describeTarget(target)}: applied ${database.migrated.join(', ')}`
          : `${describeTarget(target)}: up to date`,
      )
    return 0
  }
  if (command === 'requests') return (await import('./requests-command.ts')).requestsCommand(values, ctx)
  if (command === 'audit') return (await import('./audit-command.ts')).auditCommand(values, ctx)
  if (command === 'alerts') return (await import('./alerts-command.ts')).alertsCommand(sub, values, ctx)
  if (command === 'upstreams') return (await import('./upstreams-command.ts')).upstreamsCommand(ctx)
  if (command === 'plans') {
    const plans = (await import('../accounts/plans.ts')).planList(config.plans)
    if (json) out(JSON.stringify(plans, null, 2))
    else
      for (const p of plans)
        out(
          `${p.name.padEnd(12)} ${String(p.creditsPerDay).padStart(16)} credits/day ` +
            `${String(p.creditsPerSecond).padStart(12)} credits/s  keys: ${p.maxKeys ?? 'unlimited'}`,
        )
    return 0
  }
  const extra = extras.find((e) => e.command === command)
  if (extra)
    return extra.run(
      [sub, ...rest].filter((x): x is string => x !== undefined),
      values,
      ctx,
    )

  // account, key and usage: ./admin-commands.ts (opens the database).
  return (await import('./admin-commands.ts')).adminCommand(command, sub, rest, values, ctx)
}

/**
 * Errors whose message is the whole story (PostgreSQL unreachable or refusing, Redis refusing; an unreachable Redis is
 * waited for): no stack trace. Names, not classes, so main loads neither module.
 */
const UNREACHABLE = new Set(['DatabaseUnreachableError', 'RedisRefusedError'])

const OPTION_NAMES = [
  'config',
  'data-dir',
  'json',
  'help',
  'version',
  'port',
  'log-requests',
  'workers',
  'copy-from',
  'email',
  'plan',
  'account',
  'key',
  'name',
  'networks',
  'all',
  'day',
  'by',
  'credits-per-second',
  'credits-per-day',
  'method',
  'status',
  'errors',
  'limit',
  'at',
  'webhook',
  'refusals-per-minute',
  'rotate-secret',
]

/** package.json's version (the same relative path from src/cli and from dist/cli). */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code !== -1) process.exitCode = code
  },
  (err) => {
    // ConfigError (src/config/load.ts), matched by name so the error path loads nothing.
    if ((err as Error)?.name === 'ConfigError') printLine(process.stderr, err.message)
    // PostgreSQL down or refusing, Redis refusing (src/db/database.ts, src/redis/connection.ts): the message says which
    // and why.
    else if (UNREACHABLE.has((err as Error)?.name)) printLine(process.stderr, `error: ${(err as Error).message}`)
    else if (err instanceof UsageError || isChaingateError(err)) printLine(process.stderr, `error: ${err.message}`)
    else printLine(process.stderr, `error: ${(err as Error)?.stack ?? err}`)
    process.exitCode = err instanceof UsageError ? 2 : 1
  },
)
