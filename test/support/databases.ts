/**
 * One repository suite, run on every database engine (the way ponder runs its store tests on SQLite and
 * PostgreSQL): `describeEachDatabase('accounts', (open) => { ... })` declares the suite once per engine, and each
 * `open()` gives a freshly migrated, empty database: SQLite in memory, or PostgreSQL in a new schema (dropped by
 * `close()`). The PostgreSQL run is skipped (or, with CHAINGATE_REQUIRE_SERVICES=1, fails) without a server
 * (./services.ts).
 */
import { describe } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts'
import type { DialectName } from '../../src/db/dialect.ts'
import { createPgTestSchema, describeWithServices, missingServices } from './services.ts'

export type OpenTestDatabase = () => Promise<OpenedDatabase>

/** A freshly migrated database of one engine; `close()` also drops a PostgreSQL schema. */
export async function openTestDatabase(dialect: DialectName): Promise<OpenedDatabase> {
  if (dialect === 'sqlite') return openDatabase(':memory:')
  const schema = await createPgTestSchema('repo')
  let opened: OpenedDatabase
  try {
    opened = await openDatabase({ url: schema.url, file: ':memory:', poolSize: 4 })
  } catch (err) {
    await schema.drop()
    throw err
  }
  const close = opened.close
  return Object.assign(opened, {
    async close() {
      await close()
      await schema.drop()
    },
  })
}

export const DIALECTS: readonly DialectName[] = ['sqlite', 'postgres']

/**
 * Declares `body` once per engine (`describe.each` over the dialects), as `<name> [sqlite]` and
 * `<name> [postgres]`; without a PostgreSQL server its run is skipped with a message, or fails under
 * CHAINGATE_REQUIRE_SERVICES=1 (./services.ts).
 */
export function describeEachDatabase(name: string, body: (open: OpenTestDatabase, dialect: DialectName) => void): void {
  const runnable = DIALECTS.filter((d) => d === 'sqlite' || missingServices(['postgres']).length === 0)
  describe.each(runnable)(`${name} [%s]`, (dialect) => body(() => openTestDatabase(dialect), dialect))
  if (!runnable.includes('postgres'))
    describeWithServices(['postgres'], `${name} [postgres]`, () => body(() => openTestDatabase('postgres'), 'postgres'))
}
