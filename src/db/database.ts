/**
 * Opens the database through kysely and applies the numbered, append-only migrations:
 * - SQLite (the default, `<dataDir>/chaingate.sqlite`): node:sqlite, or better-sqlite3 on Node 20 (./sqlite-driver.ts).
 *   WAL mode lets the CLI write while a server runs; the server notices through `settings_version`.
 * - PostgreSQL (`database.url`, docs/storage.md): a `pg` Pool. Several replicas share it; the migrations take
 *   kysely's migration lock (an advisory lock on PostgreSQL), so replicas starting together migrate once.
 */
import { dirname, join, resolve } from 'node:path'
import {
  CompiledQuery,
  type DatabaseConnection,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  type SqliteDriver,
  sql,
  type Driver,
  type Migration,
  type MigrationProvider,
} from 'kysely'
import type pg from 'pg'
import { migrations } from './migrations/index.ts'
import { openSqlite, type SqliteEngine, type SqliteHandle, sqliteEngine } from './sqlite-driver.ts'
import { ensurePrivateDir, ensurePrivateFile, tightenIfExists } from './private-files.ts'
import type { DialectName } from './dialect.ts'
import type { Database } from './tables.ts'

export type Db = Kysely<Database>

export interface OpenedDatabase {
  db: Db
  dialect: DialectName
  /** SQLite only: the raw synchronous handle, for hot-path statements (usage flush). */
  sqlite?: SqliteHandle
  /** SQLite only: the database file (undefined for `:memory:`) and the engine opened on it, for a second connection. */
  file?: string
  sqliteEngine?: SqliteEngine
  /** PostgreSQL only: the pool kysely uses, for the usage flush's multi-row upsert. */
  pool?: pg.Pool
  /** Migrations applied by this open (empty when the schema was already current). */
  migrated: string[]
  /** Is the database answering? `select 1` within `timeoutMs` (for /healthz). */
  ping(timeoutMs?: number): Promise<boolean>
  close(): Promise<void>
}

/** PostgreSQL did not answer at start (the CLI prints its message alone, with the password masked). */
export class DatabaseUnreachableError extends Error {
  override readonly name = 'DatabaseUnreachableError'
}

export interface DatabaseTarget {
  /** postgres:// URL; null or absent: SQLite at `file`. */
  url?: string | null
  /** The SQLite file (or ':memory:'). */
  file: string
  /** PostgreSQL pool size. */
  poolSize?: number
  /**
   * Apply the migrations only up to this one (a database as an earlier release left it, for upgrade tests);
   * absent: every migration.
   */
  migrateTo?: string
}

/** The database a config names: `database.url` (PostgreSQL) or `<dataDir>/chaingate.sqlite`. */
export function databaseTarget(config: {
  dataDir: string
  database: { url: string | null; poolSize: number }
}): DatabaseTarget {
  return {
    url: config.database.url,
    file: join(resolve(config.dataDir), 'chaingate.sqlite'),
    poolSize: config.database.poolSize,
  }
}

/** A SQLite file path, or a target (PostgreSQL when it has a url). */
export async function openDatabase(target: string | DatabaseTarget): Promise<OpenedDatabase> {
  const t = typeof target === 'string' ? { file: target } : target
  return t.url ? openPostgres(t.url, t.poolSize ?? 10, t.migrateTo) : openSqliteDatabase(t.file, t.migrateTo)
}

/**
 * Transactions take SQLite's write lock when they begin (`BEGIN IMMEDIATE`). A deferred `BEGIN` that reads and then
 * writes cannot wait for another process's write (busy_timeout does not apply: its snapshot is stale) and fails at
 * once with SQLITE_BUSY, "database is locked"; several processes share the file (`--workers`, the CLI, the request
 * explorer's writer thread). https://www.sqlite.org/lang_transaction.html
 */
class ImmediateSqliteDialect extends SqliteDialect {
  override createDriver(): Driver {
    const driver = super.createDriver() as SqliteDriver
    driver.beginTransaction = async (connection: DatabaseConnection) => {
      await connection.executeQuery(CompiledQuery.raw('begin immediate'))
    }
    return driver
  }
}

async function openSqliteDatabase(file: string, migrateTo?: string): Promise<OpenedDatabase> {
  const onDisk = file !== ':memory:'
  if (onDisk) {
    // Data dir 0700, database 0600 before SQLite opens it (docs/config.md, `dataDir`).
    ensurePrivateDir(dirname(file))
    ensurePrivateFile(file)
  }
  const engine = sqliteEngine()
  const sqlite = await openSqlite(file, engine)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  // The CLI and the server share the file; wait for a writer instead of failing with SQLITE_BUSY.
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<Database>({ dialect: new ImmediateSqliteDialect({ database: sqlite }) })
  let migrated: string[]
  try {
    migrated = await migrate(db, 'sqlite', migrateTo)
  } catch (err) {
    await db.destroy()
    throw err
  }
  // SQLite gives -wal/-shm the database file's mode; set explicitly anyway (they may predate this version).
  if (onDisk) for (const suffix of ['-wal', '-shm']) tightenIfExists(file + suffix)
  return {
    db,
    dialect: 'sqlite',
    sqlite,
    ...(onDisk ? { file, sqliteEngine: engine } : {}),
    migrated,
    async ping() {
      return true // an open file; nothing can go away underneath
    },
    async close() {
      await db.destroy()
    },
  }
}

// int8 (counts, sums of bigint columns) and numeric (sum() of bigint) arrive as strings by default; every such value
// here is a count, credits or a millisecond timestamp, far below 2^53. Per pool, so other pg users are unaffected.
const INT8_OID = 20
const NUMERIC_OID = 1700
const pgTypesOf = (types: typeof pg.types) =>
  ({
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value)
      return types.getTypeParser(oid, format)
    },
  }) as pg.CustomTypesConfig

async function openPostgres(url: string, poolSize: number, migrateTo?: string): Promise<OpenedDatabase> {
  // Imported only for PostgreSQL: a SQLite process does not carry the driver (~16 MiB at start).
  const { default: pg } = await import('pg')
  const pgTypes = pgTypesOf(pg.types)
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    types: pgTypes,
    connectionTimeoutMillis: 5_000,
    // Keep connections (and so the key snapshot's poll and the usage flush) cheap; drop idle ones slowly.
    idleTimeoutMillis: 30_000,
  })
  // A connection that dies while idle (PostgreSQL restarted, network cut) emits 'error' on the pool; the next
  // query opens a new one. Without a listener Node would crash the process.
  pool.on('error', () => {})
  // A connection that dies while checked out (a query or the ledger's transaction running when PostgreSQL restarts)
  // emits 'error' on its client, which the pool no longer listens to (https://node-postgres.com/apis/pool#error):
  // the query itself fails with the error; this listener only keeps the event from crashing the process.
  pool.on('connect', (client) => client.on('error', () => {}))
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) })
  let migrated: string[]
  try {
    // Reach it first, so an unreachable server is reported as such (not as a failed migration).
    await pool.query('select 1').catch((err: Error) => {
      throw new DatabaseUnreachableError(
        `cannot reach ${describeTarget({ url, file: '' })}: ` +
          (err.message || (err as { code?: string }).code || String(err)),
      )
    })
    migrated = await migrate(db, 'postgres', migrateTo)
  } catch (err) {
    await db.destroy()
    throw err
  }
  return {
    db,
    dialect: 'postgres',
    pool,
    migrated,
    async ping(timeoutMs = 1000) {
      let timer: NodeJS.Timeout | undefined
      const timeout = new Promise<boolean>((res) => {
        timer = setTimeout(() => res(false), timeoutMs)
      })
      const query = pool.query('select 1').then(
        () => true,
        () => false,
      )
      try {
        return await Promise.race([query, timeout])
      } finally {
        clearTimeout(timer)
      }
    },
    async close() {
      await db.destroy()
    },
  }
}

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations
  }
}

async function migrate(db: Db, dialect: DialectName, migrateTo?: string): Promise<string[]> {
  // PostgreSQL: kysely finds its migration table in *any* schema unless told which; pin it to the schema this
  // connection works in (search_path), so several deployments (or test schemas) can share one database.
  const schema =
    dialect === 'postgres'
      ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(db)).rows[0]?.schema
      : undefined
  if (dialect === 'postgres' && !schema)
    throw new Error('database migration: no current schema (check search_path in database.url)')
  const migrator = new Migrator({
    db,
    provider: new StaticMigrations(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  })
  const run = () => (migrateTo === undefined ? migrator.migrateToLatest() : migrator.migrateTo(migrateTo))
  let { error, results } = await run()
  // kysely looks for its tables across every schema of the database (has_schema_privilege per schema name): another
  // deployment's schema dropped meanwhile fails that lookup. Not ours to worry about: look again, after a short
  // random pause so a burst of drops (several deployments or test files at once) is not met in step.
  for (let retry = 0; retry < 20 && error && droppedMeanwhile(error, schema, inMigration(results)); retry++) {
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40))
    ;({ error, results } = await run())
  }
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`database migration ${failed} failed: ${(error as Error).message ?? error}`)
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)
}

/** Where a target points, safe to print: the SQLite path, or the PostgreSQL URL without its password. */
export function describeTarget(target: DatabaseTarget): string {
  if (!target.url) return `SQLite ${target.file}`
  try {
    const u = new URL(target.url)
    if (u.password) u.password = '***'
    return `PostgreSQL ${u.toString()}`
  } catch {
    return 'PostgreSQL (unparsable URL)'
  }
}

/** Whether a failed run failed inside one of our migrations (kysely then names it), not in its own bookkeeping. */
function inMigration(results: readonly { status: string }[] | undefined): boolean {
  return results?.some((r) => r.status === 'Error') ?? false
}

/**
 * A "does not exist" error naming a schema other than ours, or one of its tables (`relation "schema.table"`): dropped
 * while kysely looked through every schema's tables. Its lookup also calls pg_get_serial_sequence on every column it
 * lists, which fails as `column "id" of relation "teams" does not exist` (no schema named) when that table is dropped
 * meanwhile: outside our own migrations, that is someone else's table too.
 */
export function droppedMeanwhile(error: unknown, ours: string | undefined, inOurMigration = false): boolean {
  const message = (error as Error)?.message ?? ''
  if (!inOurMigration && /^column "[^"]+" of relation "[^"]+" does not exist$/.test(message)) return true
  const named = /^(?:schema "([^"]+)"|relation "([^".]+)\.[^"]+") does not exist$/.exec(message)
  const schema = named?.[1] ?? named?.[2]
  return schema !== undefined && schema !== ours
}
