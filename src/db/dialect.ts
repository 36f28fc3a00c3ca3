/**
 * Which SQL engine a kysely instance talks to, for the few places the SQL differs: migrations (column types),
 * the usage ledger's batched upsert, and identity columns.
 */
import { PostgresAdapter, type Kysely } from 'kysely'

export type DialectName = 'sqlite' | 'postgres'

export function dialectOf(db: Kysely<any>): DialectName {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite'
}

/**
 * The integer column type: SQLite's `integer` is 64-bit already (and existing databases keep it); PostgreSQL's
 * `integer` is 32-bit, too small for millisecond timestamps and credit totals, so `bigint` there.
 */
export function intType(db: Kysely<any>): 'integer' | 'bigint' {
  return dialectOf(db) === 'postgres' ? 'bigint' : 'integer'
}

/** A unique-constraint violation, on either engine (SQLite's extended code, PostgreSQL's SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505'
}
