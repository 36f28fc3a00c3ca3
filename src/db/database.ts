/**
 * Opens the SQLite database (node:sqlite, or better-sqlite3 on Node 20: ./sqlite-driver.ts; through kysely) and
 * applies the numbered, append-only migrations.
 * WAL mode lets the CLI write while a server runs; the server notices through `settings_version`.
 */
import { dirname } from 'node:path'
import { Kysely, Migrator, SqliteDialect, type Migration, type MigrationProvider } from 'kysely'
import { migrations } from './migrations/index.ts'
import { openSqlite, type SqliteHandle } from './sqlite-driver.ts'
import { ensurePrivateDir, ensurePrivateFile, tightenIfExists } from './private-files.ts'
import type { Database } from './tables.ts'

export type Db = Kysely<Database>

export interface OpenedDatabase {
  db: Db
  /** The raw synchronous handle, for hot-path statements (usage flush). */
  sqlite: SqliteHandle
  close(): Promise<void>
}

export async function openDatabase(file: string): Promise<OpenedDatabase> {
  const onDisk = file !== ':memory:'
  if (onDisk) {
    // Data dir 0700, database 0600 before SQLite opens it (docs/config.md, `dataDir`).
    ensurePrivateDir(dirname(file))
    ensurePrivateFile(file)
  }
  const sqlite = await openSqlite(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  // The CLI and the server share the file; wait for a writer instead of failing with SQLITE_BUSY.
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) })
  await migrate(db)
  // SQLite gives -wal/-shm the database file's mode; set explicitly anyway (they may predate this version).
  if (onDisk) for (const suffix of ['-wal', '-shm']) tightenIfExists(file + suffix)
  return {
    db,
    sqlite,
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

async function migrate(db: Db): Promise<void> {
  const migrator = new Migrator({ db, provider: new StaticMigrations() })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName ?? 'unknown'
    throw new Error(`database migration ${failed} failed: ${(error as Error).message ?? error}`)
  }
}
