/**
 * `chaingate wallet …`: keystore create/import, accounts, pending approvals (headless approval) and sessions.
 * Works while the server runs: everything goes through the database, and the server picks changes up within
 * `wallet.pollMs`. The passphrase comes from the environment variable `wallet.keystore.passphraseEnv`
 * (default CHAINGATE_WALLET_PASSPHRASE) or `--passphrase-file`; a mnemonic is read from a file or stdin, never
 * from the command line (it would show in `ps` and shell history).
 */
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { Kysely } from 'kysely'
import { WalletConfigSchema, isLoopbackHost, type WalletConfig } from '../config/wallet-schema.ts'
import { openDatabase } from '../db/database.ts'
import type { Database } from '../db/tables.ts'
import { KeystoreError, readKeystore } from '../wallet/keystore.ts'
import { keystorePath } from '../wallet/wallet.ts'
import { consoleTokenPath, loadOrCreateConsoleToken, rotateConsoleToken } from '../wallet/console-token.ts'
import { createWalletRepository } from '../wallet/repository.ts'
import { approvalsCommand } from './wallet-approval-commands.ts'
import { UsageError, type WalletCommandEnv } from './wallet-command-env.ts'
import { WALLET_HELP } from './wallet-help.ts'
import { accountsCommand, keystoreCommand } from './wallet-keystore-commands.ts'
import { printLine } from './printable.ts'

export interface WalletCliContext {
  dataDir: string
  json: boolean
  /** The wallet config section (defaults when omitted). */
  config?: WalletConfig
  /**
   * An open database; when omitted, `databaseUrl` (PostgreSQL) or `<dataDir>/chaingate.sqlite` is opened and closed.
   */
  db?: Kysely<Database>
  /** config database.url: the wallet's records live where the server keeps them. */
  databaseUrl?: string | null
  out?: (text: string) => void
  err?: (text: string) => void
  env?: NodeJS.ProcessEnv
  /** stdin contents for `keystore import` without --mnemonic-file (tests); default: read process.stdin. */
  stdin?: () => Promise<string>
  /** The networks the config serves (chain id and name), to name them in `approvals list`. */
  chains?: { chainId: number; network: string }[]
  /** Solana networks whose CAIP-2 id the config names (an embedded devnet's comes from its node at start). */
  solanaChains?: { chain: string; network: string }[]
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const c of process.stdin) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/**
 * Runs `chaingate wallet <argv…>` (argv: the words after `wallet`, options included). Returns the exit code:
 * 0 ok, 1 failed, 2 usage error.
 */
export async function runWalletCommand(argv: string[], ctx: WalletCliContext): Promise<number> {
  const out = ctx.out ?? ((t: string) => printLine(process.stdout, t))
  const err = ctx.err ?? ((t: string) => printLine(process.stderr, t))
  const env = ctx.env ?? process.env
  const config = ctx.config ?? WalletConfigSchema.parse({})
  let parsed: ReturnType<typeof parse>
  const parse = () =>
    parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        words: { type: 'string' },
        force: { type: 'boolean' },
        'mnemonic-file': { type: 'string' },
        'passphrase-file': { type: 'string' },
        label: { type: 'string' },
        accounts: { type: 'string' },
        scopes: { type: 'string' },
        json: { type: 'boolean' },
        config: { type: 'string' },
        'data-dir': { type: 'string' },
      },
    })
  try {
    parsed = parse()
  } catch (e) {
    err(`${(e as Error).message}\n\n${WALLET_HELP}`)
    return 2
  }
  const { values, positionals } = parsed
  const json = ctx.json || Boolean(values.json)
  const [group, action, arg] = positionals
  const print = (human: string, data: unknown) => out(json ? JSON.stringify(data, null, 2) : human)

  const opened = ctx.db
    ? undefined
    : await openDatabase({
        url: ctx.databaseUrl ?? null,
        file: join(resolve(ctx.dataDir), 'chaingate.sqlite'),
        poolSize: 2,
      })
  const db = ctx.db ?? opened!.db
  const repository = createWalletRepository(db)
  const now = Date.now()
  const path = keystorePath(config, resolve(ctx.dataDir))
  const passphrase = (): string => {
    if (values['passphrase-file']) return readFileSync(values['passphrase-file'], 'utf8').replace(/\r?\n$/, '')
    const p = env[config.keystore.passphraseEnv]
    if (p !== undefined) return p
    const file = readKeystore(path)
    if (file?.publicTestMnemonic) return ''
    throw new UsageError(`set ${config.keystore.passphraseEnv} (or --passphrase-file) to the keystore passphrase`)
  }

  const commandEnv: WalletCommandEnv = {
    action,
    arg,
    values,
    repository,
    config,
    path,
    now,
    json,
    print,
    passphrase,
    readStdin: ctx.stdin ?? readStdin,
    describeEnv: async () => ({
      chains: ctx.chains ?? [],
      solanaChains: ctx.solanaChains ?? [],
      accounts: await repository.listAccounts(),
    }),
  }

  try {
    switch (`${group ?? ''} ${action ?? ''}`.trim()) {
      case 'keystore create':
      case 'keystore import':
        return await keystoreCommand(commandEnv)
      case 'accounts list':
      case 'accounts add':
      case 'accounts remove':
        return await accountsCommand(commandEnv)
      case 'approvals list':
      case 'approvals approve':
      case 'approvals reject':
        return await approvalsCommand(commandEnv)
      case 'sessions list': {
        // The pairing hash stays in the database; the listing says only whether the session is paired.
        const sessions = (await repository.listSessions()).map(({ session: { pairing, ...session }, ...row }) => ({
          ...row,
          session,
          pairing: pairing ? (pairing.resumable ? 'resumable' : 'connection') : 'none',
        }))
        print(
          sessions
            .map(
              (s) =>
                `${s.origin}  (pairing: ${s.pairing})\n${Object.entries(s.session.sessionScopes)
                  .map(([k, v]) => {
                    const accounts = v.accounts.map((a) => a.split(':')[2]).join(',') || '(no accounts)'
                    return `    ${k}  ${accounts}  ${v.methods.length} methods`
                  })
                  .join('\n')}`,
            )
            .join('\n') || '(no sessions)',
          sessions,
        )
        return 0
      }
      case 'console-token show':
      case 'console-token rotate': {
        // The token kept in the data dir (docs/wallet.md "The console"); a running wallet picks a rotation up at once.
        const dir = resolve(ctx.dataDir)
        const token = action === 'rotate' ? rotateConsoleToken(dir) : loadOrCreateConsoleToken(dir)
        const host = isLoopbackHost(config.host)
          ? config.host.includes(':')
            ? `[${config.host}]`
            : config.host
          : '127.0.0.1'
        const url = `http://${host}:${config.port}/console?token=${token}`
        print(
          action === 'rotate'
            ? `new console token; the old one no longer works
${url}`
            : url,
          { url, token, file: consoleTokenPath(dir) },
        )
        return 0
      }
      case 'sessions revoke': {
        if (!arg) throw new UsageError('usage: wallet sessions revoke <origin>')
        if (!(await repository.deleteSession(arg))) throw new UsageError(`no session for ${arg}`)
        print(`revoked the session of ${arg}`, { revoked: arg })
        return 0
      }
      default:
        err(WALLET_HELP)
        return 2
    }
  } catch (e) {
    if (e instanceof UsageError) {
      err(e.message)
      return 2
    }
    if (e instanceof KeystoreError) {
      err(e.message)
      return 1
    }
    throw e
  } finally {
    await opened?.close()
  }
}

/**
 * For src/cli/extra-commands.ts: `{ command: 'wallet', help, run }`. main.ts parses options loosely, so `run`
 * re-reads the raw words after `wallet` from process.argv.
 */
export const walletExtraCommand = {
  command: 'wallet',
  help: WALLET_HELP,
  async run(
    args: string[],
    _options: Record<string, unknown>,
    ctx: {
      config: {
        dataDir: string
        wallet: WalletConfig
        database?: { url: string | null }
        networks?: { name: string; chainId?: number | undefined; family?: string; chain?: string | undefined }[]
      }
      json: boolean
      out(text: string): void
    },
  ): Promise<number> {
    const i = process.argv.indexOf('wallet')
    const raw = i >= 0 ? process.argv.slice(i + 1) : args
    // --config/--data-dir were consumed by main.ts; drop them (and their values) here.
    const rest: string[] = []
    for (let j = 0; j < raw.length; j++) {
      const a = raw[j]!
      if (a === '--config' || a === '--data-dir') j++
      else if (!a.startsWith('--config=') && !a.startsWith('--data-dir=') && a !== '--json') rest.push(a)
    }
    return runWalletCommand(rest, {
      dataDir: ctx.config.dataDir,
      json: ctx.json,
      config: ctx.config.wallet,
      out: ctx.out,
      databaseUrl: ctx.config.database?.url ?? null,
      chains: ctx.config.networks
        ?.filter((n) => n.chainId !== undefined)
        .map((n) => ({ chainId: n.chainId!, network: n.name })),
      solanaChains: ctx.config.networks
        ?.filter((n) => n.family === 'solana' && n.chain !== undefined)
        .map((n) => ({ chain: n.chain!, network: n.name })),
    })
  },
}
