/**
 * The usage ledger: calls, credits and errors per UTC hour, account, key, network and method. The hot path only
 * adds to an in-memory map; a timer writes it to the database in one transaction every `flushMs`, so a SIGKILL
 * loses at most that much usage and a graceful stop (final flush) loses none.
 *
 * The write goes through a `UsageWriter`, one per engine, both bypassing kysely (one statement per batch matters
 * here): SQLite runs prepared upserts synchronously on the raw handle; PostgreSQL sends one multi-row
 * INSERT … ON CONFLICT DO UPDATE per table in one transaction. When a write fails (database unreachable), the rows
 * stay in memory and go with the next flush; at most `maxBufferedRows` distinct rows are held, usage beyond that
 * is dropped and counted (`health().droppedCalls`, docs/storage.md).
 */
import type pg from 'pg'
import type { OpenedDatabase } from '../db/database.ts'
import type { SqliteHandle } from '../db/sqlite-driver.ts'
import { capLabel, methodLabel } from '../rpc-methods/labels.ts'
import { DEFAULT_SERVED } from '../rpc-methods/served.ts'
import { creditsTodayByAccountAndKey } from './usage-queries.ts'

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

export type UsageRow = Omit<UsageRecord, 'errorKind'> & { hour: number }
type Row = UsageRow
export type ErrorRow = { hour: number; accountId: string; keyId: string; network: string; error: string; count: number }

/** Writes one batch, all or nothing; throws (or rejects) when nothing was written. */
export interface UsageWriter {
  write(usage: readonly UsageRow[], errors: readonly ErrorRow[]): void | Promise<void>
}

export interface LedgerHealth {
  /** False while the last write failed (the rows are held for the next flush). */
  ok: boolean
  /** Distinct rows waiting for the next write. */
  bufferedRows: number
  /** Calls not recorded because the buffer was full while the database could not be written. */
  droppedCalls: number
  /** Since when writes have been failing (ms), when they are. */
  failingSinceMs?: number
  lastError?: string
}

export interface UsageLedger {
  record(entry: UsageRecord, nowMs: number): void
  /**
   * Writes everything recorded so far; SQLite writes before returning, PostgreSQL resolves once written (or the
   * write failed and the rows were kept). `void |` so simple test doubles need not return a promise.
   */
  flush(): void | Promise<void>
  start(): void
  stop(): Promise<void>
  /** Optional so test doubles need not implement it; the real ledger always does. */
  health?(): LedgerHealth
}

const DONE: Promise<void> = Promise.resolve()
/** While writes keep failing, `onError` hears of it at most this often. */
const ERROR_REPORT_MS = 30_000
const hourOf = (nowMs: number) => Math.floor(nowMs / 3_600_000) * 3600

/** Nested Maps (hour → key id → network → method/error → row) so recording builds no string key per call. */
type Tree<V> = Map<number, Map<string, Map<string, Map<string, V>>>>

function leaf<V>(tree: Tree<V>, hour: number, keyId: string, network: string): Map<string, V> {
  let byKey = tree.get(hour)
  if (byKey === undefined) tree.set(hour, (byKey = new Map()))
  let byNetwork = byKey.get(keyId)
  if (byNetwork === undefined) byKey.set(keyId, (byNetwork = new Map()))
  let byName = byNetwork.get(network)
  if (byName === undefined) byNetwork.set(network, (byName = new Map()))
  return byName
}

function* rowsOf<V>(tree: Tree<V>): Generator<V> {
  for (const byKey of tree.values()) for (const byNetwork of byKey.values()) for (const byName of byNetwork.values()) yield* byName.values()
}

/** SQLite: prepared upserts on the raw handle, in one transaction, synchronously (the flush costs no await). */
export function createSqliteUsageWriter(sqlite: SqliteHandle): UsageWriter {
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
  const writeAll = sqlite.transaction((usage: readonly Row[], errs: readonly ErrorRow[]) => {
    for (const r of usage) upsertUsage.run(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
    for (const e of errs) upsertError.run(e.hour, e.accountId, e.keyId, e.network, e.error, e.count)
  })
  return { write: writeAll }
}

/** Rows per INSERT statement on PostgreSQL: 8 parameters each, well under its 65,535-parameter limit. */
const PG_ROWS_PER_STATEMENT = 1000
/** Longest a PostgreSQL usage write may take before it counts as failed (the rows are kept). */
const USAGE_WRITE_TIMEOUT_MS = 30_000

/**
 * PostgreSQL: one multi-row INSERT … ON CONFLICT DO UPDATE per table (per 1000 rows) in one transaction. The
 * batch holds each primary key at most once (the ledger sums per row before writing), which ON CONFLICT requires.
 */
export function createPostgresUsageWriter(pool: pg.Pool, opts: { timeoutMs?: number } = {}): UsageWriter {
  // A connection that hangs (a network partition: no reset, no answer) fails the write after this, so the rows go
  // back to the buffer and the next flush tries a new connection instead of waiting for TCP to give up.
  const query_timeout = opts.timeoutMs ?? USAGE_WRITE_TIMEOUT_MS
  const run = (client: pg.PoolClient, text: string, values?: unknown[]) => client.query({ text, values, query_timeout } as pg.QueryConfig)
  const usageSql = (n: number) =>
    `insert into usage_hourly as u (hour, account_id, key_id, network, method, calls, credits, errors) values ${placeholders(n, 8)}
     on conflict (hour, account_id, key_id, network, method) do update set
       calls = u.calls + excluded.calls, credits = u.credits + excluded.credits, errors = u.errors + excluded.errors`
  const errorsSql = (n: number) =>
    `insert into usage_errors as e (hour, account_id, key_id, network, error, count) values ${placeholders(n, 6)}
     on conflict (hour, account_id, key_id, network, error) do update set count = e.count + excluded.count`
  return {
    async write(unsortedUsage, unsortedErrs) {
      // Every replica upserts its rows in primary-key order, so two replicas writing the same rows lock them in
      // the same order: without it PostgreSQL detects a deadlock and aborts one of the transactions.
      const usage = [...unsortedUsage].sort(byUsageKey)
      const errs = [...unsortedErrs].sort(byErrorKey)
      const client = await pool.connect()
      let broken: unknown
      try {
        await run(client, 'begin')
        for (let i = 0; i < usage.length; i += PG_ROWS_PER_STATEMENT) {
          const chunk = usage.slice(i, i + PG_ROWS_PER_STATEMENT)
          const params: unknown[] = []
          for (const r of chunk) params.push(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
          await run(client, usageSql(chunk.length), params)
        }
        for (let i = 0; i < errs.length; i += PG_ROWS_PER_STATEMENT) {
          const chunk = errs.slice(i, i + PG_ROWS_PER_STATEMENT)
          const params: unknown[] = []
          for (const e of chunk) params.push(e.hour, e.accountId, e.keyId, e.network, e.error, e.count)
          await run(client, errorsSql(chunk.length), params)
        }
        await run(client, 'commit')
      } catch (err) {
        broken = err
        throw err
      } finally {
        // A failed write's connection is closed, not returned to the pool: it may be dead or hanging, and closing it
        // rolls the transaction back on the server (no ROLLBACK round trip that could hang too).
        client.release(broken === undefined ? undefined : broken instanceof Error ? broken : new Error(String(broken)))
      }
    },
  }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)
const byUsageKey = (a: UsageRow, b: UsageRow) =>
  a.hour - b.hour || cmp(a.accountId, b.accountId) || cmp(a.keyId, b.keyId) || cmp(a.network, b.network) || cmp(a.method, b.method)
const byErrorKey = (a: ErrorRow, b: ErrorRow) =>
  a.hour - b.hour || cmp(a.accountId, b.accountId) || cmp(a.keyId, b.keyId) || cmp(a.network, b.network) || cmp(a.error, b.error)

function placeholders(rows: number, columns: number): string {
  const out: string[] = []
  for (let r = 0, p = 1; r < rows; r++) {
    const cols: string[] = []
    for (let c = 0; c < columns; c++) cols.push(`$${p++}`)
    out.push(`(${cols.join(', ')})`)
  }
  return out.join(', ')
}

/** The writer for an opened database's engine. */
export function usageWriterFor(database: OpenedDatabase): UsageWriter {
  if (database.dialect === 'postgres') return createPostgresUsageWriter(database.pool!)
  return createSqliteUsageWriter(database.sqlite!)
}

/**
 * `served`: the methods stored by name (every network's served methods); any other name is stored as `other`,
 * and every label is capped (src/rpc-methods/labels.ts), so clients cannot fill the disk or /usage with names.
 * `maxBufferedRows`: distinct rows held while writes fail (config database.usageBufferRows).
 */
export function createUsageLedger(
  writer: UsageWriter,
  flushMs: number,
  onError: (err: unknown) => void,
  served: ReadonlySet<string> = DEFAULT_SERVED,
  maxBufferedRows = 100_000,
): UsageLedger {
  let rows: Tree<Row> = new Map()
  let errorRows: Tree<ErrorRow> = new Map()
  let timer: NodeJS.Timeout | undefined
  /** Distinct rows in `rows` and `errorRows`; bounded by maxBufferedRows. */
  let buffered = 0
  let droppedCalls = 0
  let failingSinceMs: number | undefined
  let lastError: string | undefined
  let inFlight: Promise<void> | undefined
  let lastReportMs: number | undefined

  // Rows handed back after a failed write: they were within the bound when recorded, so always kept.
  const addRow = (r: Row) => {
    const byMethod = leaf(rows, r.hour, r.keyId, r.network)
    const cur = byMethod.get(r.method)
    if (cur === undefined) {
      byMethod.set(r.method, { ...r })
      buffered++
    } else {
      cur.calls += r.calls
      cur.credits += r.credits
      cur.errors += r.errors
    }
  }
  const addErrors = (e: ErrorRow) => {
    const byError = leaf(errorRows, e.hour, e.keyId, e.network)
    const cur = byError.get(e.error)
    if (cur === undefined) {
      byError.set(e.error, { ...e })
      buffered++
    } else cur.count += e.count
  }

  const failed = (usage: readonly Row[], errs: readonly ErrorRow[], err: unknown) => {
    // Keep the numbers for the next try rather than lose them (SQLITE_BUSY beyond the busy timeout, PostgreSQL down).
    for (const r of usage) addRow(r)
    for (const e of errs) addErrors(e)
    const now = Date.now()
    failingSinceMs ??= now
    lastError = err instanceof Error ? err.message : String(err)
    // One report when writes start failing, then one per ERROR_REPORT_MS: an outage is not a log line a second.
    if (lastReportMs === undefined || now - lastReportMs >= ERROR_REPORT_MS) {
      lastReportMs = now
      onError(err)
    }
  }
  const succeeded = () => {
    failingSinceMs = undefined
    lastError = undefined
    lastReportMs = undefined
  }

  const writeNow = (): Promise<void> => {
    if (rows.size === 0 && errorRows.size === 0) return DONE
    const usage = [...rowsOf(rows)]
    const errs = [...rowsOf(errorRows)]
    rows = new Map()
    errorRows = new Map()
    buffered = 0
    let pending: void | Promise<void>
    try {
      pending = writer.write(usage, errs)
    } catch (err) {
      failed(usage, errs, err)
      return DONE
    }
    if (pending === undefined) {
      if (failingSinceMs !== undefined) succeeded()
      return DONE
    }
    const p: Promise<void> = pending.then(succeeded, (err: unknown) => failed(usage, errs, err)).finally(() => {
      if (inFlight === p) inFlight = undefined
    })
    inFlight = p
    return p
  }
  // One write at a time (two could both add the same rows); rows recorded meanwhile go with the next one.
  const flush = (): Promise<void> => (inFlight ? inFlight.then(flush) : writeNow())
  const tick = () => {
    if (!inFlight) void writeNow()
  }

  return {
    record(e, nowMs) {
      const hour = hourOf(nowMs)
      const network = capLabel(e.network)
      const method = methodLabel(e.method, served)
      const byMethod = leaf(rows, hour, e.keyId, network)
      const row = byMethod.get(method)
      if (row !== undefined) {
        row.calls += e.calls
        row.credits += e.credits
        row.errors += e.errors
      } else {
        // Bound the memory held while the database is unwritable: past it, the call's usage is dropped and counted.
        if (buffered >= maxBufferedRows) {
          droppedCalls += e.calls
          return
        }
        buffered++
        byMethod.set(method, { hour, accountId: e.accountId, keyId: e.keyId, network, method, calls: e.calls, credits: e.credits, errors: e.errors })
      }
      if (e.errorKind !== undefined) {
        const kind = capLabel(e.errorKind)
        const byError = leaf(errorRows, hour, e.keyId, network)
        const er = byError.get(kind)
        if (er !== undefined) er.count += 1
        else if (buffered < maxBufferedRows) {
          buffered++
          byError.set(kind, { hour, accountId: e.accountId, keyId: e.keyId, network, error: kind, count: 1 })
        }
      }
    },
    flush,
    start() {
      timer = setInterval(tick, flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
      // The database is still unreachable: say plainly what is lost (every earlier failure was rate-limited).
      if (buffered > 0) onError(new Error(`stopping with ${buffered} usage rows not written (the database cannot be written: ${lastError})`))
    },
    health() {
      return {
        ok: failingSinceMs === undefined,
        bufferedRows: buffered,
        droppedCalls,
        ...(failingSinceMs !== undefined ? { failingSinceMs } : {}),
        ...(lastError !== undefined ? { lastError } : {}),
      }
    },
  }
}

/** Today's (UTC) credits per account and per key, to seed the limit store at start (read by usage-queries.ts, the one reader of the usage tables). */
export const loadTodayUsage = creditsTodayByAccountAndKey
