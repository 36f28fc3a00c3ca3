/**
 * The wallet as one long-lived part: keystore → accounts → engine → WebSocket listener and console → poll loop.
 * `src/app.ts` builds it with the gateway-backed ChainAccess; tests use the direct one.
 */
import { randomBytes } from 'node:crypto'
import { isAbsolute, join } from 'node:path'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { FastifyInstance } from 'fastify'
import { isLoopbackHost, type WalletConfig } from '../config/wallet-schema.ts'
import type { Database } from '../db/tables.ts'
import { buildWalletServer } from '../http/wallet/server.ts'
import { createApprovals } from './approvals.ts'
import { createWalletEngine, type SessionApprovalRequest, type WalletEngine } from './engine.ts'
import {
  ANVIL_TEST_MNEMONIC,
  KeystoreError,
  encryptMnemonic,
  readKeystore,
  unlockKeyring,
  writeKeystore,
  type Keyring,
} from './keystore.ts'
import type { ChainAccess } from './ports.ts'
import { createWalletStore, type WalletStore } from './store.ts'

export interface WalletServiceDeps {
  config: WalletConfig
  dataDir: string
  db: Kysely<Database>
  chainAccess: ChainAccess
  logger: Logger
  clock?: { now(): number }
  /** Environment to read the keystore passphrase from (default process.env). */
  env?: NodeJS.ProcessEnv
}

export interface WalletStarted {
  /** ws:// URL dapps connect to. */
  url: string
  /** http:// URL of the console, token included. */
  consoleUrl: string
  consoleToken: string
  /** True when the keys are the public anvil test mnemonic's. */
  publicTestKeys: boolean
}

export interface WalletService {
  start(): Promise<WalletStarted>
  stop(): Promise<void>
}

export function keystorePath(config: WalletConfig, dataDir: string): string {
  return isAbsolute(config.keystore.file) ? config.keystore.file : join(dataDir, config.keystore.file)
}

/**
 * Opens (or, with `keystore.useTestMnemonic`, creates from the public anvil mnemonic) the keystore, and makes sure
 * the database lists its first accounts. Shared by the service and the CLI.
 */
export async function openKeyring(
  deps: Pick<WalletServiceDeps, 'config' | 'dataDir' | 'logger' | 'env'> & { store: WalletStore; now: number },
): Promise<Keyring> {
  const { config, dataDir, logger, store } = deps
  const env = deps.env ?? process.env
  const path = keystorePath(config, dataDir)
  let file = readKeystore(path)
  const passphrase = env[config.keystore.passphraseEnv]
  if (!file) {
    if (!config.keystore.useTestMnemonic)
      throw new KeystoreError(`no wallet keystore at ${path}: create one with \`chaingate wallet keystore create\` or import one`)
    file = encryptMnemonic(ANVIL_TEST_MNEMONIC, passphrase ?? '', { scryptLogN: config.keystore.scryptLogN, publicTestMnemonic: true })
    writeKeystore(path, file)
    await store.clearAccounts()
  }
  if (passphrase === undefined && !file.publicTestMnemonic)
    throw new KeystoreError(`the wallet keystore is locked: set ${config.keystore.passphraseEnv} to its passphrase`)
  const keyring = unlockKeyring(file, passphrase ?? '')
  const accounts = await store.listAccounts()
  if (accounts.length === 0 && (await store.nextAccountIndex()) === 0) {
    for (let i = 0; i < config.keystore.initialAccounts; i++) await store.addAccount(keyring.addressAt(i), i, '', deps.now)
  } else {
    // The database must describe this keystore; a mismatch means the keystore file was swapped.
    const first = accounts[0]
    if (first && keyring.addressAt(first.index) !== first.address)
      throw new KeystoreError('the wallet accounts in the database do not belong to this keystore (was the keystore file replaced?)')
  }
  if (file.publicTestMnemonic)
    logger.warn(
      'wallet: using the PUBLIC anvil test mnemonic (test test … junk). Anyone can spend from these accounts: use them only on devnets.',
    )
  return keyring
}

export function createWalletService(deps: WalletServiceDeps): WalletService {
  const { config, db, logger } = deps
  const clock = deps.clock ?? { now: () => Date.now() }
  const store = createWalletStore(db)
  let app: FastifyInstance | undefined
  let engine: WalletEngine | undefined
  let approvals: ReturnType<typeof createApprovals> | undefined
  let timer: NodeJS.Timeout | undefined
  let ticking: Promise<void> | undefined

  return {
    async start() {
      if (!isLoopbackHost(config.host)) {
        if (!config.allowNonLoopback) throw new Error('wallet.host is not a loopback address and wallet.allowNonLoopback is false')
        logger.warn({ host: config.host }, 'wallet: listening on a NON-LOOPBACK address (wallet.allowNonLoopback): any host that reaches it can ask for sessions')
      }
      if (config.autoApprove)
        logger.warn('wallet: AUTO-APPROVE IS ON (wallet.autoApprove): every session and every signature or transaction is approved without asking. Development only!')
      const keyring = await openKeyring({ ...deps, store, now: clock.now() })
      approvals = createApprovals({
        store,
        clock,
        logger,
        timeoutMs: config.approvalTimeoutMs,
        autoDecision: config.autoApprove
          ? (kind, request) => {
              if (kind !== 'session') return {}
              const r = request as SessionApprovalRequest
              return { accounts: r.preselectedAccounts.length > 0 ? r.preselectedAccounts : engine!.accounts().slice(0, 1).map((a) => a.address) }
            }
          : undefined,
      })
      engine = await createWalletEngine({ store, approvals, chainAccess: deps.chainAccess, keyring, clock, logger, config })
      const consoleToken = randomBytes(16).toString('hex')
      app = await buildWalletServer({ config, engine, approvals, store, logger, consoleToken })
      await app.listen({ host: config.host, port: config.port })
      const addr = app.server.address()
      const port = typeof addr === 'object' && addr ? addr.port : config.port
      const host = config.host.includes(':') ? `[${config.host}]` : config.host
      const consoleHost = isLoopbackHost(config.host) ? host : '127.0.0.1'
      timer = setInterval(() => {
        if (ticking) return
        ticking = engine!
          .tick()
          .catch((err: unknown) => logger.error({ err }, 'wallet: poll failed'))
          .finally(() => {
            ticking = undefined
          })
      }, config.pollMs)
      timer.unref()
      const started: WalletStarted = {
        url: `ws://${host}:${port}/`,
        consoleUrl: `http://${consoleHost}:${port}/console?token=${consoleToken}`,
        consoleToken,
        publicTestKeys: keyring.publicTestMnemonic,
      }
      logger.info({ url: started.url }, 'wallet: listening')
      return started
    },

    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await ticking
      await approvals?.close()
      if (app) {
        // Close dapp sockets first so app.close() does not wait for them.
        for (const client of app.websocketServer?.clients ?? []) client.terminate()
        await app.close()
      }
      await engine?.close()
      app = undefined
      engine = undefined
    },
  }
}
