/**
 * The gateway's in-memory view of every active key with its account's plan: one Map lookup per request, no
 * database on the hot path. It reloads whenever `settings_version` moves (CLI, dashboard), polled every
 * `settingsPollMs`; an unknown key never reaches the database.
 */
import type { Db } from '../db/database.ts'
import { readSettingsVersion } from '../db/settings-version.ts'
import type { PlanConfig } from '../config/schema.ts'
import type { KeySecurity } from './security/types.ts'
import type { KeyLimits } from '../credits/limits/memory.ts'

export interface KeyEntry {
  id: string
  accountId: string
  name: string
  networks: Set<string>
  creditsPerSecond: number | null
  creditsPerDay: number | null
  plan: PlanConfig
  planName: string
  /** Secret, allowlists and JWT settings; null when the key has none. */
  security: KeySecurity | null
  /** What the limit store checks, built once here rather than on every call. */
  limits: KeyLimits
}

export interface KeySnapshot {
  get(key: string): KeyEntry | undefined
  /** The entry of a key id (used by the wallet's own key and tests). */
  byId(id: string): KeyEntry | undefined
  reload(): Promise<void>
  /**
   * Reloads soon if `settings_version` moved (a change pushed by another replica, src/redis/settings-push.ts); calls
   * made
   * while a check runs lead to one more check after it, so no change is missed.
   */
  refresh(): Promise<void>
  /** Starts polling every `pollMs` (or `intervalMs`: slower when changes are pushed). */
  start(intervalMs?: number): void
  stop(): void
  /** Listeners run after each reload (e.g. close WebSockets of revoked keys). */
  onReload(listener: () => void): void
}

export type SecurityLoader = (db: Db) => Promise<Map<string, KeySecurity>>

export function createKeySnapshot(
  db: Db,
  /** `loadSecurity` is required: a snapshot without key security would serve protected keys unchecked. */
  opts: {
    plans: Record<string, PlanConfig>
    pollMs: number
    loadSecurity: SecurityLoader
    onError: (err: unknown) => void
  },
): KeySnapshot {
  let byKey = new Map<string, KeyEntry>()
  let byId = new Map<string, KeyEntry>()
  let version = -1
  let timer: NodeJS.Timeout | undefined
  let polling: Promise<void> | undefined
  let again = false
  const listeners: (() => void)[] = []

  const load = async () => {
    const v = await readSettingsVersion(db)
    const rows = await db
      .selectFrom('api_keys')
      .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
      .select([
        'api_keys.id',
        'api_keys.key',
        'api_keys.account_id',
        'api_keys.name',
        'api_keys.credits_per_second',
        'api_keys.credits_per_day',
        'accounts.plan',
      ])
      .where('api_keys.revoked_at', 'is', null)
      .where('accounts.disabled_at', 'is', null)
      .execute()
    const nets = await db.selectFrom('api_key_networks').selectAll().execute()
    const security = await opts.loadSecurity(db)
    const netsByKey = new Map<string, Set<string>>()
    for (const n of nets) {
      let s = netsByKey.get(n.key_id)
      if (!s) netsByKey.set(n.key_id, (s = new Set()))
      s.add(n.network)
    }
    const nextByKey = new Map<string, KeyEntry>()
    const nextById = new Map<string, KeyEntry>()
    for (const r of rows) {
      const plan = opts.plans[r.plan]
      if (!plan) continue // an account on a plan the config no longer has: its keys stop working until fixed
      const entry: KeyEntry = {
        id: r.id,
        accountId: r.account_id,
        name: r.name,
        networks: netsByKey.get(r.id) ?? new Set(),
        creditsPerSecond: r.credits_per_second,
        creditsPerDay: r.credits_per_day,
        plan,
        planName: r.plan,
        security: security.get(r.id) ?? null,
        limits: {
          accountId: r.account_id,
          keyId: r.id,
          accountCreditsPerDay: plan.creditsPerDay,
          accountCreditsPerSecond: plan.creditsPerSecond,
          keyCreditsPerDay: r.credits_per_day,
          keyCreditsPerSecond: r.credits_per_second,
        },
      }
      nextByKey.set(r.key, entry)
      nextById.set(r.id, entry)
    }
    byKey = nextByKey
    byId = nextById
    version = v
    for (const l of listeners) l()
  }
  // One load at a time, each after the previous one: a load that read the database before a change (a poll) must not
  // land after one that read it after (a caller's reload right after creating or revoking a key) and undo it.
  let loading: Promise<void> = Promise.resolve()
  const reload = (): Promise<void> => {
    const next = loading.then(load, load)
    loading = next.catch(() => undefined)
    return next
  }

  const check = async () => {
    do {
      again = false
      try {
        if ((await readSettingsVersion(db)) !== version) await reload()
      } catch (err) {
        opts.onError(err)
      }
    } while (again)
  }
  const poll = (): Promise<void> => {
    if (polling) {
      again = true
      return polling
    }
    polling = check().finally(() => {
      polling = undefined
    })
    return polling
  }

  return {
    get: (key) => byKey.get(key),
    byId: (id) => byId.get(id),
    reload,
    refresh: poll,
    start(intervalMs) {
      timer = setInterval(poll, intervalMs ?? opts.pollMs)
      timer.unref()
    },
    stop() {
      if (timer) clearInterval(timer)
    },
    onReload(l) {
      listeners.push(l)
    },
  }
}
