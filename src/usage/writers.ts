/**
 * The usage ledger's writers, one per engine (src/usage/ledger.ts aggregates; these only write a batch).
 * Both bypass kysely: one statement per batch matters on the flush path (docs/storage.md).
 */
import type pg from 'pg'
import type { OpenedDatabase } from '../db/database.ts'
import type { SqliteHandle } from '../db/sqlite-driver.ts'
import type { ErrorRow, UsageRow, UsageWriter } from './ledger.ts'

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
  const writeAll = sqlite.transaction((usage: readonly UsageRow[], errs: readonly ErrorRow[]) => {
    for (const r of usage)
      upsertUsage.run(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
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
  const run = (client: pg.PoolClient, text: string, values?: unknown[]) =>
    client.query({ text, values, query_timeout } as pg.QueryConfig)
  const usageSql = (n: number) =>
    `insert into usage_hourly as u (hour, account_id, key_id, network, method, calls, credits, errors)
     values ${placeholders(n, 8)}
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
          for (const r of chunk)
            params.push(r.hour, r.accountId, r.keyId, r.network, r.method, r.calls, r.credits, r.errors)
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
  a.hour - b.hour ||
  cmp(a.accountId, b.accountId) ||
  cmp(a.keyId, b.keyId) ||
  cmp(a.network, b.network) ||
  cmp(a.method, b.method)
const byErrorKey = (a: ErrorRow, b: ErrorRow) =>
  a.hour - b.hour ||
  cmp(a.accountId, b.accountId) ||
  cmp(a.keyId, b.keyId) ||
  cmp(a.network, b.network) ||
  cmp(a.error, b.error)

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
