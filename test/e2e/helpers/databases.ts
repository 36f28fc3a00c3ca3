/**
 * One repository suite, run on every database engine (the way ponder runs its store tests on SQLite and
 * PostgreSQL): `describeEachDatabase('accounts', (open) => { ... })` declares the suite once per engine, and each
 * `open()` gives a freshly migrated, empty database: SQLite in memory, or PostgreSQL in a new schema (dropped by
 * `close()`). The PostgreSQL run is skipped (or, with CHAINGATE_REQUIRE_SERVICES=1, fails) without a server
 * (./services.ts).
 */
import { describe } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../../src/db/database.ts'
import type { DialectName } from '../../../src/db/dialect.ts'
import { createPgTestSchema, describeWithServices } from './services.ts'

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

/** Declares `body` once per engine, as `<name> [sqlite]` and `<name> [postgres]`. */
export function describeEachDatabase(name: string, body: (open: OpenTestDatabase, dialect: DialectName) => void): void {
  for (const dialect of DIALECTS) {
    const title = `${name} [${dialect}]`
    const run = () => body(() => openTestDatabase(dialect), dialect)
    if (dialect === 'postgres') describeWithServices(['postgres'], title, run)
    else describe(title, run)
  }
}
