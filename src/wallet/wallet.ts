/**
 * The wallet without its transport: keystore → accounts → approvals → engine → poll loop. The listener
 * (src/wallet/listener/start.ts) puts the WebSocket API and the console in front of it; `src/app/parts/wallet.ts`
 * builds it with the gateway-backed ChainAccess, tests with the direct one.
 */
import { isAbsolute, join } from 'node:path'
import type { Kysely } from 'kysely'
import type { Logger } from 'pino'
import type { WalletConfig } from '../config/wallet-schema.ts'
import type { Database } from '../db/tables.ts'
import { createActivityRepository, type ActivityRepository } from './activity.ts'
import { createApprovals, type Approvals } from './approvals.ts'
import { createChangeFeed, type ChangeFeed } from './change-feed.ts'
import { createWalletEngine, type SessionApprovalRequest, type WalletEngine } from './engine.ts'
import {
  ANVIL_TEST_MNEMONIC,
  KeystoreError,
  decryptMnemonic,
  encryptMnemonic,
  readKeystore,
  unlockKeyring,
  writeKeystore,
  type Keyring,
} from './keystore.ts'
import type { ChainAccess } from './ports.ts'
import { createWalletRepository, type WalletRepository } from './repository.ts'

export interface WalletServiceDeps {
  config: WalletConfig
  /**
   * The networks the wallet's chains belong to. The public anvil test mnemonic is refused when any of them is not
   * an embedded devnet: its keys are public, so they must never hold value on a real network.
   */
  networks: { name: string; embedded: boolean }[]
  dataDir: string
  db: Kysely<Database>
  chainAccess: ChainAccess
  logger: Logger
  clock?: { now(): number }
  /** Environment to read the keystore passphrase from (default process.env). */
  env?: NodeJS.ProcessEnv
}

export interface WalletCore {
  engine: WalletEngine
  approvals: Approvals
  repository: WalletRepository
  activity: ActivityRepository
  chainAccess: ChainAccess
  /** Fires when pending requests, sessions or activity change (the console's event stream). */
  changes: ChangeFeed
  /** True when the keys are the public anvil test mnemonic's. */
  publicTestKeys: boolean
  /** Stops the poll loop and answers every waiting approval with 4001. */
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
  deps: Pick<WalletServiceDeps, 'config' | 'dataDir' | 'logger' | 'env' | 'networks'> & {
    repository: WalletRepository
    now: number
  },
): Promise<Keyring> {
  const { config, dataDir, logger, repository } = deps
  const env = deps.env ?? process.env
  const path = keystorePath(config, dataDir)
  let file = readKeystore(path)
  const real = deps.networks.filter((n) => !n.embedded).map((n) => n.name)
  if (real.length > 0 && (file ? file.publicTestMnemonic : config.keystore.useTestMnemonic))
    throw new KeystoreError(
      `the wallet ${file ? 'keystore holds' : 'would use'} the PUBLIC anvil test mnemonic, but ${real.join(', ')} ` +
        `${real.length > 1 ? 'are not embedded devnets' : 'is not an embedded devnet'}: ` +
        'anyone could spend from those keys there. Create or import your own keystore (`chaingate wallet keystore ' +
        'create`) ' +
        'and set wallet.keystore.useTestMnemonic: false, or disable the wallet (wallet.enabled: false).',
    )
  const passphrase = env[config.keystore.passphraseEnv]
  if (!file) {
    if (!config.keystore.useTestMnemonic)
      throw new KeystoreError(
        `no wallet keystore at ${path}: create one with \`chaingate wallet keystore create\` or import one`,
      )
    file = encryptMnemonic(ANVIL_TEST_MNEMONIC, passphrase ?? '', {
      scryptLogN: config.keystore.scryptLogN,
      publicTestMnemonic: true,
    })
    writeKeystore(path, file)
    await repository.clearAccounts()
  }
  if (passphrase === undefined && !file.publicTestMnemonic)
    throw new KeystoreError(`the wallet keystore is locked: set ${config.keystore.passphraseEnv} to its passphrase`)
  const keyring = unlockKeyring(file, passphrase ?? '')
  if (file.version === 1) {
    // Version 1 authenticated only part of the header: rewrite it so every field is covered.
    const opts = { scryptLogN: Math.log2(file.crypto.kdfparams.n), publicTestMnemonic: file.publicTestMnemonic }
    writeKeystore(path, encryptMnemonic(decryptMnemonic(file, passphrase ?? ''), passphrase ?? '', opts), {
      overwrite: true,
    })
    logger.info('wallet: keystore rewritten as version 2 (every header field authenticated)')
  }
  const accounts = await repository.listAccounts()
  if (accounts.length === 0 && (await repository.nextAccountIndex()) === 0) {
    for (let i = 0; i < config.keystore.initialAccounts; i++)
      await repository.addAccount(keyring.addressAt(i), i, '', deps.now)
  } else {
    // The database must describe this keystore; a mismatch means the keystore file was swapped.
    const first = accounts[0]
    if (first && keyring.addressAt(first.index) !== first.address)
      throw new KeystoreError(
        'the wallet accounts in the database do not belong to this keystore (was the keystore file replaced?)',
      )
  }
  if (file.publicTestMnemonic)
    logger.warn(
      'wallet: using the PUBLIC anvil test mnemonic (test test … junk). Anyone can spend from these accounts: use ' +
        'them only on devnets.',
    )
  return keyring
}

/** Starts the wallet's core: opens the keyring, then the approvals, the engine and the poll loop. */
export async function startWalletCore(deps: WalletServiceDeps): Promise<WalletCore> {
  const { config, db, logger } = deps
  const clock = deps.clock ?? { now: () => Date.now() }
  const repository = createWalletRepository(db)
  const changes = createChangeFeed()
  const activity = createActivityRepository(db, changes.notify)
  if (config.autoApprove)
    logger.warn(
      'wallet: AUTO-APPROVE IS ON (wallet.autoApprove): every session and every signature or transaction is ' +
        'approved without asking. Development only!',
    )
  const keyring = await openKeyring({ ...deps, repository, now: clock.now() })
  let engine: WalletEngine | undefined
  const approvals = createApprovals({
    repository,
    clock,
    logger,
    timeoutMs: config.approvalTimeoutMs,
    onChange: changes.notify,
    autoDecision: config.autoApprove
      ? (kind, request) => {
          if (kind !== 'session') return {}
          // The dapp's preselected accounts, else the first account (its EVM and its Solana address).
          const pre = (request as SessionApprovalRequest).preselectedAccounts
          const first = engine!.accountsWithSolana()[0]
          const evm = pre.some((a) => a.startsWith('0x')) || !first ? [] : [first.address]
          const solana = pre.some((a) => !a.startsWith('0x')) || !first ? [] : [first.solanaAddress]
          return { accounts: [...pre, ...evm, ...solana] }
        }
      : undefined,
  })
  engine = await createWalletEngine({
    repository,
    approvals,
    chainAccess: deps.chainAccess,
    keyring,
    clock,
    logger,
    config,
    activity,
    onChange: changes.notify,
  })
  let ticking: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined = setInterval(() => {
    if (ticking) return
    ticking = engine!
      .tick(changes.notify)
      .catch((err: unknown) => logger.error({ err }, 'wallet: poll failed'))
      .finally(() => {
        ticking = undefined
      })
  }, config.pollMs)
  timer.unref()
  return {
    engine,
    approvals,
    repository,
    activity,
    chainAccess: deps.chainAccess,
    changes,
    publicTestKeys: keyring.publicTestMnemonic,
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await ticking
      await approvals.close()
    },
  }
}
