/**
 * The request explorer's writers, one per engine (./recorder.ts collects; these only write a batch). Like the usage
 * ledger's (src/usage/writers.ts) they bypass kysely. A SQLite file is written from a worker thread
 * (./sqlite-worker.ts); an in-memory SQLite database (tests) runs prepared multi-row inserts on the raw handle, in
 * transactions of 500 rows; PostgreSQL sends multi-row INSERTs with a query timeout, so a hanging connection fails
 * the write instead of holding it.
 */
import type pg from 'pg'
import type { OpenedDatabase } from '../../db/database.ts'
import type { SqliteHandle } from '../../db/sqlite-driver.ts'
import { field, NUMBERS, type RequestBatch, STRINGS } from './batch.ts'
import { INSERT_INTO } from '../../db/request-log-columns.ts'
import type { RequestWriter } from './recorder.ts'
import { createSqliteWorkerWriter } from './sqlite-worker.ts'

/**
 * Rows per SQLite transaction: a busy second's records (thousands) are written in slices with a turn of the event
 * loop between them, so calls are never held up behind one long write (a few milliseconds per slice at most).
 */
const SQLITE_ROWS_PER_SLICE = 500
/**
 * Rows per INSERT statement, largest first: one execution binds many rows, which costs a fraction of one execution
 * per row. Three statements, prepared once and reused (a batch's tail uses the smaller ones).
 */
const SQLITE_ROWS_PER_STATEMENT = [100, 10, 1] as const
/** Values per row. */
const FIELDS = STRINGS + NUMBERS
/** One row's placeholders: `(?, ?, …)`. */
const SQLITE_TUPLE = `(${new Array(FIELDS).fill('?').join(', ')})`

/** Row `r` of a batch into `params` from index `p`, in INSERT_INTO's order (refs, then nums); returns the next. */
function putRow(params: unknown[], p: number, b: RequestBatch, r: number): number {
  const a = r * STRINGS
  for (let k = 0; k < STRINGS; k++) params[p++] = field(b, a + k)
  const n = r * NUMBERS
  for (let k = 0; k < NUMBERS; k++) params[p++] = b.nums[n + k]
  return p
}

export function createSqliteRequestWriter(sqlite: SqliteHandle): RequestWriter {
  const statements = SQLITE_ROWS_PER_STATEMENT.map((n) => ({
    rows: n,
    stmt: sqlite.prepare(`${INSERT_INTO} values ${tuples(n, () => SQLITE_TUPLE)}`),
    // Reused for every execution: no array per statement run.
    params: new Array<unknown>(n * FIELDS),
  }))
  const writeSlice = sqlite.transaction((batch: RequestBatch, from: number, to: number) => {
    let i = from
    for (const s of statements) {
      const { params } = s
      for (; to - i >= s.rows; i += s.rows) {
        let p = 0
        for (let r = i; r < i + s.rows; r++) {
          p = putRow(params, p, batch, r)
        }
        s.stmt.run(params)
      }
      // Strings of the last rows are not kept alive by the reused array until the next batch.
      params.fill(null)
    }
  })
  return {
    write(batch) {
      const count = batch.count
      if (count <= SQLITE_ROWS_PER_SLICE) return writeSlice(batch, 0, count)
      return (async () => {
        for (let i = 0; i < count; i += SQLITE_ROWS_PER_SLICE) {
          if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve))
          writeSlice(batch, i, Math.min(count, i + SQLITE_ROWS_PER_SLICE))
        }
      })()
    },
  }
}

/** `n` comma-separated tuples. */
function tuples(n: number, tuple: (index: number) => string): string {
  const out: string[] = new Array(n)
  for (let i = 0; i < n; i++) out[i] = tuple(i)
  return out.join(', ')
}

/** Rows per INSERT on PostgreSQL: at 10 parameters each (FIELDS), well under its 65,535-parameter limit. */
const PG_ROWS_PER_STATEMENT = 1000
const PG_WRITE_TIMEOUT_MS = 30_000

export function createPostgresRequestWriter(pool: pg.Pool, opts: { timeoutMs?: number } = {}): RequestWriter {
  const query_timeout = opts.timeoutMs ?? PG_WRITE_TIMEOUT_MS
  // A full chunk's statement text is always the same: built once (a batch's tail builds its own).
  const fullText = pgInsertText(PG_ROWS_PER_STATEMENT)
  return {
    async write(batch) {
      for (let i = 0; i < batch.count; i += PG_ROWS_PER_STATEMENT) {
        const end = Math.min(batch.count, i + PG_ROWS_PER_STATEMENT)
        const params: unknown[] = new Array((end - i) * FIELDS)
        let p = 0
        for (let r = i; r < end; r++) {
          p = putRow(params, p, batch, r)
        }
        // pool.query releases a connection that failed (timed out) as broken: the next write gets a new one.
        await pool.query({
          text: end - i === PG_ROWS_PER_STATEMENT ? fullText : pgInsertText(end - i),
          values: params,
          query_timeout,
        } as pg.QueryConfig)
      }
    },
  }
}

function pgInsertText(rows: number): string {
  return `${INSERT_INTO} values ${tuples(rows, (r) => {
    const p = r * FIELDS
    return `(${Array.from({ length: FIELDS }, (_, k) => `$${p + k + 1}`).join(', ')})`
  })}`
}

/** The writer for an opened database's engine: a SQLite file is written from a worker thread (./sqlite-worker.ts). */
export function requestWriterFor(database: OpenedDatabase): RequestWriter {
  if (database.dialect === 'postgres') return createPostgresRequestWriter(database.pool!)
  if (database.file !== undefined) return createSqliteWorkerWriter(database.file, database.sqliteEngine!)
  return createSqliteRequestWriter(database.sqlite!)
}
