/**
 * The one reader of the usage ledger (`usage_hourly`, `usage_errors`, written by ledger.ts): the dashboard's
 * charts, the CLI's `usage` command and the limit store's seed at start all read through here.
 *
 * Dashboard periods follow Infura's dashboard (https://docs.metamask.io/developer-tools/dashboard/): 24 h in hourly
 * buckets, 7 d and 30 d in daily UTC buckets, each ending with the current (incomplete) bucket so today's calls
 * are visible.
 */
import type { Db } from '../db/database.ts'

export type UsageRange = '24h' | '7d' | '30d'
export type UsageDimension = 'method' | 'network' | 'key'
export const USAGE_RANGES: readonly UsageRange[] = ['24h', '7d', '30d']
export const USAGE_DIMENSIONS: readonly UsageDimension[] = ['method', 'network', 'key']

const HOUR = 3600
const DAY = 86_400
const COLUMN: Record<UsageDimension, 'method' | 'network' | 'key_id'> = {
  method: 'method',
  network: 'network',
  key: 'key_id',
}
const dayStartSeconds = (nowMs: number) => {
  const now = Math.floor(nowMs / 1000)
  return now - (now % DAY)
}

export interface Buckets {
  /** Start of each bucket, unix seconds. */
  starts: number[]
  /** Bucket length, seconds. */
  size: number
  labels: string[]
}

export function bucketsFor(range: UsageRange, nowMs: number): Buckets {
  const now = Math.floor(nowMs / 1000)
  if (range === '24h') {
    const last = now - (now % HOUR)
    const starts = Array.from({ length: 24 }, (_, i) => last - (23 - i) * HOUR)
    return { starts, size: HOUR, labels: starts.map((s) => `${new Date(s * 1000).toISOString().slice(11, 13)}h`) }
  }
  const days = range === '7d' ? 7 : 30
  const last = now - (now % DAY)
  const starts = Array.from({ length: days }, (_, i) => last - (days - 1 - i) * DAY)
  return { starts, size: DAY, labels: starts.map((s) => new Date(s * 1000).toISOString().slice(5, 10)) }
}

export interface UsageRow {
  bucket: number
  group: string
  calls: number
  credits: number
  errors: number
}

export interface Total {
  label: string
  /** Key id for byKey rows. */
  id: string
  calls: number
  credits: number
  errors: number
}

export interface UsageReport {
  buckets: Buckets
  rows: UsageRow[]
  totals: { calls: number; credits: number; errors: number }
  byMethod: Total[]
  byNetwork: Total[]
  byKey: Total[]
  errors: { error: string; count: number }[]
}

/** One account's usage over a dashboard period: per bucket and `dimension`, totals per method/network/key, errors. */
export async function usageReport(
  db: Db,
  opts: { accountId: string; range: UsageRange; dimension: UsageDimension; keyId?: string | undefined; nowMs: number },
): Promise<UsageReport> {
  const buckets = bucketsFor(opts.range, opts.nowMs)
  const from = buckets.starts[0]!
  let q = db
    .selectFrom('usage_hourly')
    .select(['hour', 'method', 'network', 'key_id', 'calls', 'credits', 'errors'])
    .where('account_id', '=', opts.accountId)
    .where('hour', '>=', from)
  if (opts.keyId) q = q.where('key_id', '=', opts.keyId)
  const raw = await q.execute()

  const bucketOf = (hour: number) => hour - ((hour - from) % buckets.size)
  const grouped = new Map<string, UsageRow>()
  const totals = { calls: 0, credits: 0, errors: 0 }
  const by = { method: new Map<string, Total>(), network: new Map<string, Total>(), key: new Map<string, Total>() }
  for (const r of raw) {
    const group = r[COLUMN[opts.dimension]]
    const bucket = bucketOf(r.hour)
    const id = `${bucket}\n${group}`
    const row = grouped.get(id) ?? { bucket, group, calls: 0, credits: 0, errors: 0 }
    row.calls += r.calls
    row.credits += r.credits
    row.errors += r.errors
    grouped.set(id, row)
    totals.calls += r.calls
    totals.credits += r.credits
    totals.errors += r.errors
    for (const [dim, value] of [
      ['method', r.method],
      ['network', r.network],
      ['key', r.key_id],
    ] as const) {
      const t = by[dim].get(value) ?? { label: value, id: value, calls: 0, credits: 0, errors: 0 }
      t.calls += r.calls
      t.credits += r.credits
      t.errors += r.errors
      by[dim].set(value, t)
    }
  }

  let eq = db
    .selectFrom('usage_errors')
    .select(['error', (eb) => eb.fn.sum<number>('count').as('count')])
    .where('account_id', '=', opts.accountId)
    .where('hour', '>=', from)
    .groupBy('error')
  if (opts.keyId) eq = eq.where('key_id', '=', opts.keyId)
  const errorRows = await eq.execute()

  const sorted = (m: Map<string, Total>) => [...m.values()].sort((a, b) => b.credits - a.credits || b.calls - a.calls)
  return {
    buckets,
    rows: [...grouped.values()],
    totals,
    byMethod: sorted(by.method),
    byNetwork: sorted(by.network),
    byKey: sorted(by.key),
    errors: errorRows.map((e) => ({ error: e.error, count: Number(e.count) })).sort((a, b) => b.count - a.count),
  }
}

/** Credits the account spent since 00:00 UTC today (the daily balance resets then). */
export async function creditsUsedToday(db: Db, accountId: string, nowMs: number): Promise<number> {
  const row = await db
    .selectFrom('usage_hourly')
    .select((eb) => eb.fn.sum<number>('credits').as('credits'))
    .where('account_id', '=', accountId)
    .where('hour', '>=', dayStartSeconds(nowMs))
    .executeTakeFirst()
  return Number(row?.credits ?? 0)
}

/** Credits per UTC day over the last 7 or 30 days (for the balance-vs-quota chart). */
export async function dailyCredits(
  db: Db,
  accountId: string,
  days: 7 | 30,
  nowMs: number,
): Promise<{ labels: string[]; values: number[] }> {
  const buckets = bucketsFor(days === 7 ? '7d' : '30d', nowMs)
  const rows = await db
    .selectFrom('usage_hourly')
    .select(['hour', 'credits'])
    .where('account_id', '=', accountId)
    .where('hour', '>=', buckets.starts[0]!)
    .execute()
  const values = buckets.starts.map(() => 0)
  for (const r of rows) {
    const i = Math.floor((r.hour - buckets.starts[0]!) / DAY)
    if (i >= 0 && i < values.length) values[i]! += r.credits
  }
  return { labels: buckets.labels, values }
}

export interface DayUsageRow {
  group: string
  calls: number
  credits: number
  errors: number
}

/** Totals for one UTC day (`YYYY-MM-DD`), grouped by method, network or key; optionally one account or key (CLI). */
export async function queryUsage(
  db: Db,
  q: { day: string; by: UsageDimension; accountId?: string; keyId?: string },
): Promise<{ day: string; by: string; rows: DayUsageRow[]; total: Omit<DayUsageRow, 'group'> }> {
  const start = Date.parse(`${q.day}T00:00:00Z`) / 1000
  const column = COLUMN[q.by]
  let query = db
    .selectFrom('usage_hourly')
    .select([
      `${column} as group` as 'method',
      (eb) => eb.fn.sum<number>('calls').as('calls'),
      (eb) => eb.fn.sum<number>('credits').as('credits'),
      (eb) => eb.fn.sum<number>('errors').as('errors'),
    ])
    .where('hour', '>=', start)
    .where('hour', '<', start + DAY)
  if (q.accountId) query = query.where('account_id', '=', q.accountId)
  if (q.keyId) query = query.where('key_id', '=', q.keyId)
  const raw = (await query.groupBy(column).orderBy('credits', 'desc').execute()) as unknown as Record<string, unknown>[]
  const rows = raw.map((r) => ({
    group: String(r.group),
    calls: Number(r.calls),
    credits: Number(r.credits),
    errors: Number(r.errors),
  }))
  const total = rows.reduce(
    (t, r) => ({ calls: t.calls + r.calls, credits: t.credits + r.credits, errors: t.errors + r.errors }),
    { calls: 0, credits: 0, errors: 0 },
  )
  return { day: q.day, by: q.by, rows, total }
}

/** Today's (UTC) credits per account and per key, to seed the limit store at start. */
export async function creditsTodayByAccountAndKey(
  db: Db,
  nowMs: number,
): Promise<{ accounts: Map<string, number>; keys: Map<string, number> }> {
  const rows = await db
    .selectFrom('usage_hourly')
    .select(['account_id', 'key_id', (eb) => eb.fn.sum<number>('credits').as('credits')])
    .where('hour', '>=', dayStartSeconds(nowMs))
    .groupBy(['account_id', 'key_id'])
    .execute()
  const accounts = new Map<string, number>()
  const keys = new Map<string, number>()
  for (const r of rows) {
    const credits = Number(r.credits)
    accounts.set(r.account_id, (accounts.get(r.account_id) ?? 0) + credits)
    keys.set(r.key_id, credits)
  }
  return { accounts, keys }
}

/**
 * Today's credits and refused calls (402 and 429: the balance or credits/s refused them) of some accounts, in two
 * small grouped queries: the usage alerts' sweep (src/alerts/sweep.ts) reads it every few seconds, not per call.
 */
export async function alertUsageToday(
  db: Db,
  accountIds: readonly string[],
  nowMs: number,
): Promise<Map<string, { credits: number; refused: number }>> {
  const out = new Map<string, { credits: number; refused: number }>()
  if (accountIds.length === 0) return out
  const since = dayStartSeconds(nowMs)
  const [credits, refused] = await Promise.all([
    db
      .selectFrom('usage_hourly')
      .select(['account_id', (eb) => eb.fn.sum<number>('credits').as('n')])
      .where('hour', '>=', since)
      .where('account_id', 'in', accountIds)
      .groupBy('account_id')
      .execute(),
    db
      .selectFrom('usage_errors')
      .select(['account_id', (eb) => eb.fn.sum<number>('count').as('n')])
      .where('hour', '>=', since)
      .where('account_id', 'in', accountIds)
      .where('error', 'in', ['http:402', 'http:429'])
      .groupBy('account_id')
      .execute(),
  ])
  for (const id of accountIds) out.set(id, { credits: 0, refused: 0 })
  for (const r of credits) out.get(r.account_id)!.credits = Number(r.n)
  for (const r of refused) out.get(r.account_id)!.refused = Number(r.n)
  return out
}
