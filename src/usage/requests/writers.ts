/**
 * The request explorer's writers, one per engine (./recorder.ts collects; these only write a batch). Like the usage
 * ledger's (src/usage/writers.ts) they bypass kysely: SQLite runs one prepared insert per row on the raw handle, in
 * transactions of 500 rows; PostgreSQL sends multi-row INSERTs with a query timeout, so a hanging connection fails
 * the write instead of holding it.
 */
import type pg from 'pg'
import type { OpenedDatabase } from '../../db/database.ts'
import type { SqliteHandle } from '../../db/sqlite-driver.ts'
import type { RequestRow, RequestWriter } from './recorder.ts'

const COLUMNS = 'time, key_id, account_id, network, method, status, latency_ms, credits, served, client'

/**
 * Rows per SQLite transaction: a busy second's records (thousands) are written in slices with a turn of the event
 * loop between them, so calls are never held up behind one long write (a few milliseconds per slice at most).
 */
const SQLITE_ROWS_PER_SLICE = 500

export function createSqliteRequestWriter(sqlite: SqliteHandle): RequestWriter {
  const insert = sqlite.prepare(`insert into request_log (${COLUMNS}) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
  const writeSlice = sqlite.transaction((rows: readonly RequestRow[], from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const r = rows[i]!
      insert.run(
        r.time,
        r.keyId,
        r.accountId,
        r.network,
        r.method,
        r.status,
        r.latencyMs,
        r.credits,
        r.served,
        r.client,
      )
    }
  })
  return {
    write(rows) {
      if (rows.length <= SQLITE_ROWS_PER_SLICE) return writeSlice(rows, 0, rows.length)
      return (async () => {
        for (let i = 0; i < rows.length; i += SQLITE_ROWS_PER_SLICE) {
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve))
          writeSlice(rows, i, Math.min(rows.length, i + SQLITE_ROWS_PER_SLICE))
        }
      })()
    },
  }
}

/** Rows per INSERT on PostgreSQL: 10 parameters each, well under its 65,535-parameter limit. */
const PG_ROWS_PER_STATEMENT = 1000
const PG_WRITE_TIMEOUT_MS = 30_000

export function createPostgresRequestWriter(pool: pg.Pool, opts: { timeoutMs?: number } = {}): RequestWriter {
  const query_timeout = opts.timeoutMs ?? PG_WRITE_TIMEOUT_MS
  return {
    async write(rows) {
      for (let i = 0; i < rows.length; i += PG_ROWS_PER_STATEMENT) {
        const chunk = rows.slice(i, i + PG_ROWS_PER_STATEMENT)
        const params: unknown[] = []
        const tuples: string[] = []
        for (const r of chunk) {
          const p = params.length
          tuples.push(
            `($${p + 1}, $${p + 2}, $${p + 3}, $${p + 4}, $${p + 5}, $${p + 6}, $${p + 7}, $${p + 8}, $${p + 9}, $${p + 10})`,
          )
          params.push(r.time, r.keyId, r.accountId, r.network, r.method, r.status, r.latencyMs, r.credits, r.served)
          params.push(r.client)
        }
        // pool.query releases a connection that failed (timed out) as broken: the next write gets a new one.
        await pool.query({
          text: `insert into request_log (${COLUMNS}) values ${tuples.join(', ')}`,
          values: params,
          query_timeout,
        } as pg.QueryConfig)
      }
    },
  }
}

/** The writer for an opened database's engine. */
export function requestWriterFor(database: OpenedDatabase): RequestWriter {
  if (database.dialect === 'postgres') return createPostgresRequestWriter(database.pool!)
  return createSqliteRequestWriter(database.sqlite!)
}
