/**
 * The usage ledger: calls, credits and errors per UTC hour, account, key, network and method. The hot path only
 * adds to an in-memory map; a timer writes it to the database in one transaction every `flushMs`, so a SIGKILL
 * loses at most that much usage and a graceful stop (final flush) loses none.
 */
import type SQLite from 'better-sqlite3'
import type { Db } from '../db/database.ts'
import { MS_PER_DAY } from './limits.ts'

export interface UsageRecord {
  accountId: string
  keyId: string
  network: string
  method: string
  calls: number
  credits: number
  errors: number
  /** e.g. "http:429" or "rpc:-32000"; counted in the error breakdown. */
  errorKind?: string
}

type Row = Omit<UsageRecord, 'errorKind'> & { hour: number }

export interface UsageLedger {
  record(entry: UsageRecord, nowMs: number): void
  flush(): void
  start(): void
  stop(): Promise<void>
}

const hourOf = (nowMs: number) => Math.floor(nowMs / 3_600_000) * 3600

export function createUsageLedger(sqlite: SQLite.Database, flushMs: number, onError: (err: unknown) => void): UsageLedger {
  let rows = new Map<string, Row>()
  let errorRows = new Map<string, { hour: number; accountId: string; keyId: string; network: string; error: string; count: number }>()
  let timer: NodeJS.Timeout | undefined

  const upsertUsage = sqlite.prepare(
    `insert into usage_hourly (hour, account_id, key_id, network, method, calls, credits, errors)
     values (?, ?, ?, ?, ?, ?, ?, ?)
     on conflict (hour, account_id, key_id, network, method) do update set
       calls = calls + excluded.calls, credits = credits + excluded.credits, errors = errors + excluded.errors`,
  )
  const upsertError = sqlite.prepare(
    `insert into usage_errors (hour, account_id, key_id, network, error, count) values (?, ?, ?, ?, ?, ?)
     on conflict (hour, account_id, key_id, network, error) do update set count = count + excluded.count`,
  )
  const writeAll = sqlite.transaction((usage: Row[], errs: typeof errorRows extends Map<string, infer V> ? V[] : never) => {
    for (const r of usage) upsertUsage.run(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
    for (const e of errs) upsertError.run(e.hour, e.accountId, e.keyId, e.network, e.error, e.count)
  })

  const flush = () => {
    if (rows.size === 0 && errorRows.size === 0) return
    const usage = rows
    const errs = errorRows
    rows = new Map()
    errorRows = new Map()
    try {
      writeAll([...usage.values()], [...errs.values()])
    } catch (err) {
      // Keep the numbers for the next try rather than lose them (e.g. SQLITE_BUSY beyond the busy timeout).
      for (const [k, r] of usage) {
        const cur = rows.get(k)
        if (cur) {
          cur.calls += r.calls
          cur.credits += r.credits
          cur.errors += r.errors
        } else rows.set(k, r)
      }
      for (const [k, e] of errs) {
        const cur = errorRows.get(k)
        if (cur) cur.count += e.count
        else errorRows.set(k, e)
      }
      onError(err)
    }
  }

  return {
    record(e, nowMs) {
      const hour = hourOf(nowMs)
      const k = `${hour}|${e.accountId}|${e.keyId}|${e.network}|${e.method}`
      const row = rows.get(k)
      if (row) {
        row.calls += e.calls
        row.credits += e.credits
        row.errors += e.errors
      } else {
        rows.set(k, { hour, accountId: e.accountId, keyId: e.keyId, network: e.network, method: e.method, calls: e.calls, credits: e.credits, errors: e.errors })
      }
      if (e.errorKind !== undefined) {
        const ek = `${hour}|${e.accountId}|${e.keyId}|${e.network}|${e.errorKind}`
        const er = errorRows.get(ek)
        if (er) er.count += 1
        else errorRows.set(ek, { hour, accountId: e.accountId, keyId: e.keyId, network: e.network, error: e.errorKind, count: 1 })
      }
    },
    flush,
    start() {
      timer = setInterval(flush, flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      flush()
    },
  }
}

/** Today's (UTC) credits per account and per key, to seed the limit store at start. */
export async function loadTodayUsage(db: Db, nowMs: number) {
  const dayStart = Math.floor(nowMs / MS_PER_DAY) * 86_400
  const rows = await db
    .selectFrom('usage_hourly')
    .select(['account_id', 'key_id', (eb) => eb.fn.sum<number>('credits').as('credits')])
    .where('hour', '>=', dayStart)
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
