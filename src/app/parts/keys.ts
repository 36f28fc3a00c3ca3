/**
 * Tenancy for src/app/build.ts: the accounts and keys repositories, key security (always on: a key that requires a
 * secret, a JWT or an allowlist is never served unchecked, whoever starts the app), and the in-memory key snapshot the
 * hot path reads, pushed over Redis when there are several replicas. `ensureAccountKey` is the one "find or create
 * an account and its key" (the dev key `npm start` prints, the wallet's own key).
 */
import type { Config } from '../../config/schema.ts'
import type { OpenedDatabase } from '../../db/database.ts'
import type { NetworkRegistry } from '../../networks/registry.ts'
import type { Logger } from '../../observability/logger.ts'
import type { RedisConnection } from '../../redis/connection.ts'
import { createAccountsRepository, type AccountsRepository } from '../../accounts/repository.ts'
import { createKeysRepository, type ApiKey, type KeysRepository } from '../../keys/repository.ts'
import { createKeySnapshot, type KeySnapshot, type SecurityLoader } from '../../keys/snapshot.ts'
import { evaluateKeyAccess } from '../../keys/security/evaluate.ts'
import { loadAllKeySecurity } from '../../keys/security/repository.ts'
import type { AccessCheck, Clock } from '../../gateway/pipeline/types.ts'
import type { StopList } from '../stop-list.ts'

/** While the database is unreachable every poll fails: log the first failure, then at most one line per 30 s. */
const KEYS_ERROR_LOG_EVERY_MS = 30_000

export interface KeySecurity {
  load: SecurityLoader
  check: AccessCheck
}

/** Key security as the gateway runs it (src/keys/security): config `dashboard.jwtAudience`, the app's clock. */
export function keySecurity(config: Config, clock: Clock): KeySecurity {
  const jwtAudience = config.dashboard.jwtAudience
  return {
    load: loadAllKeySecurity,
    check: (security, request) => evaluateKeyAccess(security, request, { jwtAudience, now: clock.now() }),
  }
}

export interface TenancyParts {
  accounts: AccountsRepository
  keys: KeysRepository
  keySnapshot: KeySnapshot
  security: KeySecurity
  /** The networks keys may enable; `chaingate reload` changes the array in place. */
  networkNames: string[]
}

export async function startTenancy(w: {
  config: Config
  database: OpenedDatabase
  networks: NetworkRegistry
  redis: RedisConnection | undefined
  clock: Clock
  logger: Logger
  stops: StopList
}): Promise<TenancyParts> {
  const { config, database, logger, stops } = w
  const security = keySecurity(config, w.clock)
  const accounts = createAccountsRepository(database.db, config.plans)
  const networkNames = w.networks.all.map((n) => n.name)
  const keys = createKeysRepository(database.db, { networks: networkNames, plans: config.plans })
  let keysErrorLoggedMs = -Infinity
  const keySnapshot = createKeySnapshot(database.db, {
    plans: config.plans,
    pollMs: config.gateway.settingsPollMs,
    loadSecurity: security.load,
    // The keys loaded before keep serving while the database is away.
    onError: (err) => {
      const t = Date.now()
      if (t - keysErrorLoggedMs < KEYS_ERROR_LOG_EVERY_MS) return
      keysErrorLoggedMs = t
      logger.error({ err }, 'reloading keys failed')
    },
  })
  await keySnapshot.reload()
  // Several replicas: a change made on any of them (or by the CLI) is pushed to all over Redis; the poll slows down.
  // Redis unreachable at start: the subscription comes up (and reloads the snapshot) when Redis does.
  const push = config.redis.url
    ? await (await import('../../redis/settings-push-attach.ts')).attachSettingsPush({
        url: config.redis.url,
        keyPrefix: config.redis.keyPrefix,
        db: database.db,
        snapshot: keySnapshot,
        logger,
        unreachableAtStart: w.redis?.unreachableAtStart !== undefined,
      })
    : undefined
  keySnapshot.start(push ? config.gateway.settingsPushPollMs : undefined)
  stops.add('key snapshot', () => keySnapshot.stop())
  if (push) stops.add('settings push', () => push.close())
  return { accounts, keys, keySnapshot, security, networkNames }
}

/**
 * The first unrevoked key of the account `email` (created on `plan` if missing), or a new key `keyName`; the
 * snapshot is reloaded so the key serves at once. Found again on every start: the same key after a restart.
 */
export async function ensureAccountKey(
  parts: Pick<TenancyParts, 'accounts' | 'keys' | 'keySnapshot'> & { clock: Clock },
  wanted: { email: string; plan: string; keyName: string },
): Promise<ApiKey> {
  const { accounts, keys, clock } = parts
  const account =
    (await accounts.findByEmail(wanted.email)) ??
    (await accounts.create({ email: wanted.email, plan: wanted.plan }, clock.now()))
  const existing = await keys.list({ accountId: account.id })
  const key = existing[0] ?? (await keys.create({ accountId: account.id, name: wanted.keyName }, clock.now()))
  await parts.keySnapshot.reload()
  return key
}

/** The account and key `npm start` prints (config `gateway.devAccount`): created on first start, the same after. */
export async function ensureDevKey(
  app: Pick<TenancyParts, 'accounts' | 'keys' | 'keySnapshot'> & { clock: Clock; config: Config },
): Promise<ApiKey | undefined> {
  const dev = app.config.gateway.devAccount
  if (!dev) return undefined
  const key = await ensureAccountKey(app, { email: dev.email, plan: dev.plan, keyName: 'dev key' })
  // An embedded chain added since the key was made (the Solana devnet on an older data dir) is enabled on it too.
  const missing = app.config.networks.filter((n) => n.embedded && !key.networks.includes(n.name)).map((n) => n.name)
  if (missing.length === 0) return key
  const updated = await app.keys.setNetworks(key.id, [...key.networks, ...missing])
  await app.keySnapshot.reload()
  return updated
}
