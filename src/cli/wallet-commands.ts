/**
 * `chaingate wallet …`: keystore create/import, accounts, pending approvals (headless approval) and sessions.
 * Works while the server runs: everything goes through the database, and the server picks changes up within
 * `wallet.pollMs`. The passphrase comes from the environment variable `wallet.keystore.passphraseEnv`
 * (default CHAINGATE_WALLET_PASSPHRASE) or `--passphrase-file`; a mnemonic is read from a file or stdin, never
 * from the command line (it would show in `ps` and shell history).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import type { Kysely } from 'kysely'
import { WalletConfigSchema, isLoopbackHost, type WalletConfig } from '../config/wallet-schema.ts'
import { openDatabase } from '../db/database.ts'
import type { Database } from '../db/tables.ts'
import {
  KeystoreError,
  encryptMnemonic,
  isValidMnemonic,
  newMnemonic,
  readKeystore,
  unlockKeyring,
  writeKeystore,
} from '../wallet/keystore.ts'
import { keystorePath } from '../wallet/wallet.ts'
import { consoleTokenPath, loadOrCreateConsoleToken, rotateConsoleToken } from '../wallet/console-token.ts'
import { createWalletStore } from '../wallet/repository.ts'
import { WALLET_HELP } from './wallet-help.ts'

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
}

class UsageError extends Error {}

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
  const out = ctx.out ?? ((t: string) => process.stdout.write(`${t}\n`))
  const err = ctx.err ?? ((t: string) => process.stderr.write(`${t}\n`))
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
  const store = createWalletStore(db)
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

  try {
    switch (`${group ?? ''} ${action ?? ''}`.trim()) {
      case 'keystore create':
      case 'keystore import': {
        if (existsSync(path) && !values.force)
          throw new UsageError(`a keystore already exists at ${path} (--force replaces it; back it up first)`)
        const pass = passphrase()
        if (pass.length < 8) throw new UsageError('the passphrase must have at least 8 characters')
        let mnemonic: string
        if (action === 'create') {
          const words = values.words === undefined ? 12 : Number(values.words)
          if (words !== 12 && words !== 24) throw new UsageError('--words must be 12 or 24')
          mnemonic = newMnemonic(words)
        } else {
          const source = values['mnemonic-file']
          mnemonic = source && source !== '-' ? readFileSync(source, 'utf8') : await (ctx.stdin ?? readStdin)()
          mnemonic = mnemonic.trim().split(/\s+/).join(' ').toLowerCase()
          if (!isValidMnemonic(mnemonic))
            throw new UsageError('not a valid BIP-39 mnemonic (english wordlist, 12-24 words, checksum)')
        }
        const file = encryptMnemonic(mnemonic, pass, {
          scryptLogN: config.keystore.scryptLogN,
          publicTestMnemonic: false,
        })
        writeKeystore(path, file, { overwrite: true })
        const keyring = unlockKeyring(file, pass)
        await store.clearAccounts()
        for (let i = 0; i < config.keystore.initialAccounts; i++)
          await store.addAccount(keyring.addressAt(i), i, '', now)
        const accounts = await store.listAccounts()
        if (action === 'create') {
          // The only time the mnemonic is shown: it is the user's backup. Never logged.
          print(
            `created ${path}\n\nWrite down this recovery phrase and keep it offline; it is shown only now:\n\n  ${mnemonic}\n\naccounts:\n${accounts.map((a) => `  #${a.index} ${a.address}`).join('\n')}\n\nRestart a running server to use the new keystore.`,
            { keystore: path, mnemonic, accounts },
          )
        } else
          print(
            `imported into ${path}\naccounts:\n${accounts.map((a) => `  #${a.index} ${a.address}`).join('\n')}\n\nRestart a running server to use the new keystore.`,
            { keystore: path, accounts },
          )
        return 0
      }
      case 'accounts list': {
        const accounts = await store.listAccounts()
        print(
          accounts.map((a) => `#${a.index}  ${a.address}${a.label ? `  ${a.label}` : ''}`).join('\n') ||
            '(no accounts)',
          accounts,
        )
        return 0
      }
      case 'accounts add': {
        const file = readKeystore(path)
        if (!file)
          throw new UsageError(
            `no keystore at ${path}: run \`chaingate wallet keystore create\` (or start the server once)`,
          )
        const keyring = unlockKeyring(file, passphrase())
        const index = await store.nextAccountIndex()
        const address = keyring.addressAt(index)
        await store.addAccount(address, index, values.label ?? '', now)
        print(`added #${index} ${address}`, { index, address, label: values.label ?? '' })
        return 0
      }
      case 'accounts remove': {
        if (!arg) throw new UsageError('usage: wallet accounts remove <address>')
        if (!(await store.removeAccount(arg, now))) throw new UsageError(`the wallet holds no account ${arg}`)
        print(`removed ${arg.toLowerCase()} (it leaves every session)`, { removed: arg.toLowerCase() })
        return 0
      }
      case 'approvals list': {
        const pending = (await store.listApprovals('pending')).filter((p) => p.expiresAt > now)
        print(
          pending
            .map((p) => `${p.id}  ${p.kind.padEnd(21)} ${p.origin}\n    ${JSON.stringify(p.request)}`)
            .join('\n') || '(nothing waiting)',
          pending,
        )
        return 0
      }
      case 'approvals approve':
      case 'approvals reject': {
        if (!arg) throw new UsageError(`usage: wallet approvals ${action} <id>`)
        const row = await store.getApproval(arg)
        if (!row) throw new UsageError(`no approval ${arg}`)
        if (row.status !== 'pending') throw new UsageError(`approval ${arg} is ${row.status}, not pending`)
        let decision: unknown
        if (action === 'approve') {
          const list = (v: string | undefined) =>
            v
              ?.split(',')
              .map((s) => s.trim())
              .filter(Boolean)
          const d: Record<string, unknown> = {}
          if (row.kind === 'session') {
            const held = new Set((await store.listAccounts()).map((a) => a.address))
            const requested = row.request as { preselectedAccounts?: string[] }
            const accounts = list(values.accounts)?.map((a) => a.toLowerCase())
            for (const a of accounts ?? []) if (!held.has(a)) throw new UsageError(`the wallet holds no account ${a}`)
            // Default: the dapp's preselected accounts, else the first account.
            d.accounts =
              accounts ??
              (requested.preselectedAccounts?.length ? requested.preselectedAccounts : [...held].slice(0, 1))
            if (values.scopes) d.scopes = list(values.scopes)
          }
          decision = d
        }
        const ok = await store.decideApproval(arg, action === 'approve' ? 'approved' : 'rejected', decision, 'cli', now)
        if (!ok) throw new UsageError(`approval ${arg} was answered or expired meanwhile`)
        print(`${action === 'approve' ? 'approved' : 'rejected'} ${arg}`, {
          id: arg,
          status: action === 'approve' ? 'approved' : 'rejected',
          decision,
        })
        return 0
      }
      case 'sessions list': {
        // The pairing hash stays in the database; the listing says only whether the session is paired.
        const sessions = (await store.listSessions()).map(({ session: { pairing, ...session }, ...row }) => ({
          ...row,
          session,
          pairing: pairing ? (pairing.resumable ? 'resumable' : 'connection') : 'none',
        }))
        print(
          sessions
            .map(
              (s) =>
                `${s.origin}  (pairing: ${s.pairing})\n${Object.entries(s.session.sessionScopes)
                  .map(
                    ([k, v]) =>
                      `    ${k}  ${v.accounts.map((a) => a.split(':')[2]).join(',') || '(no accounts)'}  ${v.methods.length} methods`,
                  )
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
        if (!(await store.deleteSession(arg))) throw new UsageError(`no session for ${arg}`)
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
      config: { dataDir: string; wallet: WalletConfig; database?: { url: string | null } }
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
    })
  },
}
