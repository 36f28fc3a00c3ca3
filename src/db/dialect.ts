/**
 * Which SQL engine a kysely instance talks to, for the few places the SQL differs: migrations (column types),
 * the usage ledger's batched upsert, and identity columns.
 */
import { PostgresAdapter, type Kysely } from 'kysely'

export type DialectName = 'sqlite' | 'postgres'

export function dialectOf<DB>(db: Kysely<DB>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * The integer column type: SQLite's `integer` is 64-bit already (and existing databases keep it); PostgreSQL's
 * `integer` is 32-bit, too small for millisecond timestamps and credit totals, so `bigint` there.
 */
export function intType<DB>(db: Kysely<DB>): 'integer' | 'bigint' {
  return dialectOf(db) === 'postgres' ? 'bigint' : 'integer'
}

/** SQLite's extended result codes SQLITE_CONSTRAINT_UNIQUE and SQLITE_CONSTRAINT_PRIMARYKEY. */
const SQLITE_UNIQUE_ERRCODES = new Set([2067, 1555])

/**
 * A unique-constraint violation, whichever engine: better-sqlite3 (`code` SQLITE_CONSTRAINT_UNIQUE), node:sqlite
 * (`code` ERR_SQLITE_ERROR with the extended `errcode`), PostgreSQL (SQLSTATE 23505).
 */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown; errcode?: unknown; message?: unknown } | null
  const code = e?.code
  if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505') return true
  if (code !== 'ERR_SQLITE_ERROR') return false
  return (
    SQLITE_UNIQUE_ERRCODES.has(e!.errcode as number) ||
    (typeof e!.message === 'string' && e!.message.startsWith('UNIQUE constraint failed'))
  )
}
