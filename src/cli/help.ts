/**
 * The `chaingate` help texts: the whole list (`--help`), one command's part (`help <command>`), and the known
 * command and option names the "did you mean" suggestions pick from. Plain text, no imports of the server.
 */
import { WALLET_HELP } from './wallet-help.ts'

export const HELP = `chaingate — chain-node JSON-RPC gateway and multichain wallet

Usage: chaingate <command> [options]      chaingate help <command>      chaingate --version

Service
  start [--port N] [--log-requests file|stdout|off] [--workers N]
                                          run the gateway (and wallet) on the config's settings;
                                          --port overrides gateway.port; request lines go to
                                          <data-dir>/logs/chaingate.log unless --log-requests stdout;
                                          --workers N: N gateway processes share the port (needs
                                          redis.url); SIGUSR2 restarts them one at a time
  reload                                  re-read the config file in every running process and apply it
                                          in place (networks, upstreams, plans, credits, log level);
                                          one line per process; exit 1 if any refused (SIGHUP too)
  migrate                                 apply the database migrations and exit (start does it too);
                                          SQLite in the data dir, or PostgreSQL with database.url
  migrate --copy-from FILE                migrate, then copy an embedded SQLite database's accounts,
                                          keys, usage and wallet records into the (empty) database
                                          the config names, e.g. PostgreSQL
  config validate [FILE]                  check a config file (or --config) and exit: every problem
                                          with its path, exit 1; for CI pipelines
  config show                             the effective config (defaults applied, \${VAR} expanded),
                                          secrets redacted; YAML, or JSON with --json
  upstreams [--port N]                    each network's nodes as the running server sees them: state
                                          (healthy, lagging, down, cordoned), head, lag, errors, latency;
                                          --port: the server was started with --port N

Accounts and keys
  plans                                   list the plans from the config
  account create --email E [--plan P]     create an account
  account list                            list accounts
  account set-plan <account> <plan>       change an account's plan
  account set-role <account> <role>       user or operator (operators manage plans in the dashboard)
  account set-password <account>          set the dashboard password (read from stdin)
  account disable <account>               refuse its keys and dashboard log-in (enable <account> undoes it)
  account confirm <account>               mark a sign-up's email confirmed (it can then create keys)
  account reset-2fa <account>             turn two-factor log-in off for a locked-out user (audited)
  account unlock <account>                clear its failed log-ins counted in Redis (redis.url; without it,
                                          POST /admin/v1/accounts/:id/unlock on the running server)
  key create --account A [--name N] [--networks a,b]
                                          create a key (all networks enabled unless --networks)
  key list [--account A] [--all]          list keys (--all includes revoked ones)
  key show <key-id>                       one key, with its endpoint URLs
  key enable-network <key-id> <network>   enable a network on a key
  key disable-network <key-id> <network>  disable a network on a key
  key limits <key-id> [--credits-per-second N] [--credits-per-day N]   per-key limits (0 = plan default)
  key rename <key-id> <name>
  key revoke <key-id>
  key move <key-id> <team-id>             move a key to a team (docs/dashboard.md, "Teams")
  team list                               list teams: id, plan, members, name
  team members <team-id>                  a team's members and their roles
  usage [--account A] [--key K] [--day YYYY-MM-DD] [--by method|network|key]
                                          calls, credits and errors for a UTC day (default today)
  usage --by upstream [--day YYYY-MM-DD]  per upstream: calls, upstream attempts, cache/dedup hits, credits
  requests --key K [--method M] [--status S] [--errors] [--limit N]
                                          a key's recent calls, newest first: time, network, method,
                                          status, latency, credits, served by, client (docs/requests.md)
  audit [--limit N]                       the admin audit, newest first: admin API calls and the
                                          account and key changes made here (docs/admin-api.md)
  alerts set --account A [--at 80,100] [--refusals-per-minute N] [--webhook URL] [--rotate-secret]
                                          usage alerts (docs/alerts.md): thresholds in % of the daily
                                          balance, refused calls a minute, a signed webhook (its secret
                                          is shown once); "none" clears a value
  alerts list [--account A]               accounts with alerts and their settings
  alerts remove --account A               turn an account's alerts off
  alerts deliveries [--account A]         the alerts that fired, newest first, and their delivery
                                          (status, attempts, next retry, last error; --json: attemptLog)
{{EXTRA}}
Options (every command)
  --config FILE      YAML or JSON config (default: embedded defaults)
  --data-dir DIR     data directory (default ./.chaingate)
  --json             machine-readable output
  -h, --help         this help
  --version          the version of chaingate

<account> is an account id or email; <key-id> is a key's id or the key itself.`

const OPTIONS_SECTION = HELP.slice(HELP.indexOf('Options (every command)'))

/** Sub-commands per command (the first words of the help lines), for suggestions. */
export const SUBCOMMANDS: Record<string, readonly string[]> = {
  account: [
    'create',
    'list',
    'set-plan',
    'set-role',
    'set-password',
    'disable',
    'enable',
    'confirm',
    'reset-2fa',
    'unlock',
  ],
  key: ['create', 'list', 'show', 'enable-network', 'disable-network', 'limits', 'rename', 'revoke', 'move'],
  team: ['list', 'members'],
  config: ['validate', 'show'],
  alerts: ['set', 'list', 'remove', 'deliveries'],
  wallet: ['keystore', 'accounts', 'approvals', 'sessions', 'console-token'],
}

export const COMMANDS: readonly string[] = [
  'start',
  'reload',
  'migrate',
  'config',
  'upstreams',
  'plans',
  'account',
  'key',
  'team',
  'usage',
  'requests',
  'audit',
  'alerts',
  'wallet',
  'help',
]

/** The whole help, with the contributed commands' lines in place. */
export function fullHelp(extraHelp: string): string {
  return HELP.replace('{{EXTRA}}', extraHelp)
}

/**
 * The help lines of one command (an entry line starting with the command, and the indented lines that continue
 * it), then the common options; undefined for an unknown command.
 */
export function commandHelp(command: string): string | undefined {
  if (!COMMANDS.includes(command)) return undefined
  if (command === 'help') return 'Usage: chaingate help [command]      the list of commands, or one command in detail'
  const lines = `${HELP}\n${WALLET_HELP}`.split('\n')
  const picked: string[] = []
  let inEntry = false
  for (const line of lines) {
    const entry = /^ {2}(\S+)/.exec(line)
    if (entry) inEntry = entry[1] === command
    else if (!/^ {4,}\S/.test(line)) inEntry = false
    if (inEntry) picked.push(line)
  }
  if (command === 'wallet') picked.push(...lines.filter((l) => l.startsWith('  Passphrase:')))
  return `Usage: chaingate ${command} …\n\n${picked.join('\n')}\n\n${OPTIONS_SECTION}`
}
