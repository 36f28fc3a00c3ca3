/**
 * Moving from the embedded SQLite database to PostgreSQL (`chaingate migrate --copy-from <file>`, docs/storage.md):
 * both are migrated to the same schema, then every row of the source is written to the target in one transaction,
 * table by table in the order the migrations created them (so a key's account exists before the key). The target
 * must hold no accounts yet: copying into a database in use would mix two ledgers. Dashboard sessions are left out
 * (people sign in again); the change counters `settings_version` and `wallet_changes` are bumped instead of copied,
 * so running servers reload.
 */
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { sql } from 'kysely'
import { dialectOf } from './dialect.ts'
import { openDatabase, type DatabaseTarget, type Db } from './database.ts'

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table. */
const ROWS_PER_INSERT = 500
/** Change counters (one row each, bumped below instead) and dashboard sessions. */
const NOT_COPIED = new Set(['settings_version', 'wallet_changes', 'dashboard_sessions'])

export interface CopyResult {
  /** Rows written, per table, in the order copied. */
  tables: { table: string; rows: number }[]
}

/** The copy was refused before anything was written (the message says why and what to do). */
export class CopyRefusedError extends Error {
  override readonly name = 'CopyRefusedError'
}

/** The source's tables in creation order: SQLite's schema table lists them as they were created. */
async function tablesInCreationOrder(db: Db): Promise<string[]> {
  const { rows } = await sql<{
    name: string
  }>`select name from sqlite_master where type = 'table' order by rowid`.execute(db)
  return rows
    .map((r) => r.name)
    .filter((name) => !name.startsWith('sqlite_') && !name.startsWith('kysely_') && !NOT_COPIED.has(name))
}

export async function copySqliteData(sourceFile: string, target: DatabaseTarget): Promise<CopyResult> {
  if (!target.url && resolve(target.file) === resolve(sourceFile))
    throw new CopyRefusedError('the source and the target are the same SQLite file')
  if (!existsSync(sourceFile))
    throw new CopyRefusedError(
      `there is no SQLite database at ${sourceFile} (the embedded one is <data-dir>/chaingate.sqlite)`,
    )
  const source = await openDatabase({ file: sourceFile })
  try {
    const destination = await openDatabase(target)
    try {
      const { accounts } = await destination.db
        .selectFrom('accounts')
        .select((eb) => eb.fn.countAll<number | string>().as('accounts'))
        .executeTakeFirstOrThrow()
      if (Number(accounts) > 0)
        throw new CopyRefusedError(
          `the target database already holds ${accounts} account(s); ` +
            'copy into an empty database (run chaingate migrate on a new one first)',
        )
      const tables = await tablesInCreationOrder(source.db)
      const copied: CopyResult['tables'] = []
      const postgres = dialectOf(destination.db) === 'postgres'
      await destination.db.transaction().execute(async (trx) => {
        for (const table of tables) {
          let rows = 0
          for (let offset = 0; ; offset += ROWS_PER_INSERT) {
            const batch = await sql<
              Record<string, unknown>
            >`select * from ${sql.table(table)} order by rowid limit ${ROWS_PER_INSERT} offset ${offset}`.execute(
              source.db,
            )
            if (batch.rows.length === 0) break
            await trx
              .insertInto(table as never)
              .values(batch.rows as never)
              .execute()
            rows += batch.rows.length
            if (batch.rows.length < ROWS_PER_INSERT) break
          }
          copied.push({ table, rows })
        }
        // Identity columns (PostgreSQL) continue after the ids copied, not from 1.
        if (postgres) {
          const { rows: identities } = await sql<{ table_name: string; column_name: string }>`
            select table_name, column_name from information_schema.columns
            where table_schema = current_schema() and is_identity = 'YES'`.execute(trx)
          for (const { table_name, column_name } of identities) {
            const [column, table] = [sql.ref(column_name), sql.table(table_name)]
            await sql`select setval(pg_get_serial_sequence(${table_name}, ${column_name}),
              coalesce((select max(${column}) from ${table}), 0) + 1, false)`.execute(trx)
          }
        }
        await sql`update settings_version set version = version + 1 where id = 1`.execute(trx)
        await sql`update wallet_changes set version = version + 1 where id = 1`.execute(trx)
      })
      return { tables: copied }
    } finally {
      await destination.close()
    }
  } finally {
    await source.close()
  }
}
