/**
 * API keys: 32 lowercase hex characters (Infura's format), owned by an account, with the networks enabled on
 * them and optional per-key limits. Each key also has a short public id used in logs, the ledger and the CLI, so
 * the key itself never has to be written anywhere but here.
 */
import { randomBytes } from 'node:crypto'
import type { Db } from '../db/database.ts'
import { dialectOf } from '../db/dialect.ts'
import { bumpSettingsVersion } from '../db/settings-version.ts'
import { errors } from '../errors/index.ts'
import type { PlanConfig } from '../config/schema.ts'

export interface ApiKey {
  id: string
  key: string
  accountId: string
  name: string
  createdAt: number
  revokedAt: number | null
  networks: string[]
  creditsPerSecond: number | null
  creditsPerDay: number | null
}

export const KEY_FORMAT = /^[0-9a-f]{32}$/

/** First and last four characters only: safe to show in logs and lists. */
export const maskKey = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`

export interface KeysRepository {
  create(input: { accountId: string; name: string; networks?: string[] }, nowMs: number): Promise<ApiKey>
  get(id: string): Promise<ApiKey | undefined>
  /** A key id or the key itself. */
  resolve(idOrKey: string): Promise<ApiKey | undefined>
  list(filter?: { accountId?: string; includeRevoked?: boolean }): Promise<ApiKey[]>
  setNetwork(id: string, network: string, enabled: boolean): Promise<ApiKey>
  /** Enables exactly `networks` on the key (every other network disabled). */
  setNetworks(id: string, networks: string[]): Promise<ApiKey>
  rename(id: string, name: string): Promise<ApiKey>
  setLimits(id: string, limits: { creditsPerSecond?: number | null; creditsPerDay?: number | null }): Promise<ApiKey>
  revoke(id: string, nowMs: number): Promise<ApiKey>
}

export function createKeysRepository(
  db: Db,
  /** `networks` is read at each use: `chaingate reload` changes the array in place. */
  opts: { networks: string[]; plans: Record<string, PlanConfig> },
): KeysRepository {
  const postgres = dialectOf(db) === 'postgres'
  const checkNetwork = (n: string) => {
    if (!opts.networks.includes(n))
      throw errors.validation(`unknown network ${n}; networks: ${opts.networks.join(', ')}`, 'networks')
  }

  const load = async (
    ids?: string[],
    filter: { accountId?: string; includeRevoked?: boolean } = {},
  ): Promise<ApiKey[]> => {
    let q = db.selectFrom('api_keys').selectAll()
    if (ids) q = q.where('id', 'in', ids)
    if (filter.accountId) q = q.where('account_id', '=', filter.accountId)
    if (!filter.includeRevoked && !ids) q = q.where('revoked_at', 'is', null)
    const rows = await q.orderBy('created_at').execute()
    if (rows.length === 0) return []
    const nets = await db
      .selectFrom('api_key_networks')
      .selectAll()
      .where(
        'key_id',
        'in',
        rows.map((r) => r.id),
      )
      .execute()
    const byKey = new Map<string, string[]>()
    for (const n of nets) byKey.set(n.key_id, [...(byKey.get(n.key_id) ?? []), n.network])
    return rows.map((r) => ({
      id: r.id,
      key: r.key,
      accountId: r.account_id,
      name: r.name,
      createdAt: r.created_at,
      revokedAt: r.revoked_at,
      networks: (byKey.get(r.id) ?? []).sort(),
      creditsPerSecond: r.credits_per_second,
      creditsPerDay: r.credits_per_day,
    }))
  }
  const mustGet = async (id: string) => {
    const [k] = await load([id])
    if (!k) throw errors.notFound(`key ${id}`)
    return k
  }

  return {
    async create({ accountId, name, networks }, nowMs) {
      const trimmed = name.trim()
      // New keys have every network enabled, as on Infura
      // (https://docs.metamask.io/developer-tools/dashboard/get-started/create-api/).
      const enabled = networks ?? [...opts.networks]
      const id = randomBytes(6).toString('hex')
      const key = randomBytes(16).toString('hex')
      // The plan's key count is checked and the key inserted in one transaction under a lock (the account row on
      // PostgreSQL; SQLite runs one transaction at a time), so two creations at once (two replicas, a double
      // click) cannot both pass maxKeys.
      await db.transaction().execute(async (tx) => {
        let accountQuery = tx.selectFrom('accounts').select(['id', 'plan']).where('id', '=', accountId)
        if (postgres) accountQuery = accountQuery.forUpdate()
        const account = await accountQuery.executeTakeFirst()
        if (!account) throw errors.notFound(`account ${accountId}`)
        const plan = opts.plans[account.plan]
        const active = await tx
          .selectFrom('api_keys')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', accountId)
          .where('revoked_at', 'is', null)
          .executeTakeFirstOrThrow()
        if (plan?.maxKeys != null && Number(active.n) >= plan.maxKeys)
          throw errors.conflict(
            `the ${account.plan} plan allows ${plan.maxKeys} API key${plan.maxKeys === 1 ? '' : 's'}; ` +
              'revoke one or upgrade the plan',
          )
        if (trimmed.length === 0 || trimmed.length > 100)
          throw errors.validation('a key name needs 1 to 100 characters', 'name')
        enabled.forEach(checkNetwork)
        await tx
          .insertInto('api_keys')
          .values({
            id,
            key,
            account_id: accountId,
            name: trimmed,
            created_at: nowMs,
            revoked_at: null,
            credits_per_second: null,
            credits_per_day: null,
          })
          .execute()
        if (enabled.length > 0)
          await tx
            .insertInto('api_key_networks')
            .values([...new Set(enabled)].map((network) => ({ key_id: id, network })))
            .execute()
      })
      await bumpSettingsVersion(db)
      return mustGet(id)
    },
    async get(id) {
      return (await load([id]))[0]
    },
    async resolve(idOrKey) {
      if (KEY_FORMAT.test(idOrKey)) {
        const row = await db.selectFrom('api_keys').select('id').where('key', '=', idOrKey).executeTakeFirst()
        return row ? (await load([row.id]))[0] : undefined
      }
      return (await load([idOrKey]))[0]
    },
    list: (filter) => load(undefined, filter),
    async setNetwork(id, network, enabled) {
      checkNetwork(network)
      await mustGet(id)
      if (enabled)
        await db
          .insertInto('api_key_networks')
          .values({ key_id: id, network })
          .onConflict((oc) => oc.doNothing())
          .execute()
      else await db.deleteFrom('api_key_networks').where('key_id', '=', id).where('network', '=', network).execute()
      await bumpSettingsVersion(db)
      return mustGet(id)
    },
    async setNetworks(id, networks) {
      networks.forEach(checkNetwork)
      await mustGet(id)
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('api_key_networks').where('key_id', '=', id).execute()
        if (networks.length > 0)
          await tx
            .insertInto('api_key_networks')
            .values([...new Set(networks)].map((network) => ({ key_id: id, network })))
            .execute()
      })
      await bumpSettingsVersion(db)
      return mustGet(id)
    },
    async rename(id, name) {
      const trimmed = name.trim()
      if (trimmed.length === 0 || trimmed.length > 100)
        throw errors.validation('a key name needs 1 to 100 characters', 'name')
      await mustGet(id)
      await db.updateTable('api_keys').set({ name: trimmed }).where('id', '=', id).execute()
      await bumpSettingsVersion(db)
      return mustGet(id)
    },
    async setLimits(id, limits) {
      await mustGet(id)
      const set: { credits_per_second?: number | null; credits_per_day?: number | null } = {}
      // 0 means "plan default", as in Infura's key settings.
      if (limits.creditsPerSecond !== undefined) set.credits_per_second = limits.creditsPerSecond || null
      if (limits.creditsPerDay !== undefined) set.credits_per_day = limits.creditsPerDay || null
      for (const v of Object.values(set))
        if (v !== null && (!Number.isInteger(v) || v < 0))
          throw errors.validation('limits are whole numbers of credits', 'limits')
      if (Object.keys(set).length > 0) await db.updateTable('api_keys').set(set).where('id', '=', id).execute()
      await bumpSettingsVersion(db)
      return mustGet(id)
    },
    async revoke(id, nowMs) {
      const k = await mustGet(id)
      if (k.revokedAt === null) {
        await db.updateTable('api_keys').set({ revoked_at: nowMs }).where('id', '=', id).execute()
        await bumpSettingsVersion(db)
      }
      return mustGet(id)
    },
  }
}
