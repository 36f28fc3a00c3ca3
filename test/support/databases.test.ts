/**
 * The per-engine repository suites (./databases.ts): `describeEachDatabase` declares its body once per engine, and
 * each `open()` gives a freshly migrated, empty database of its own; on PostgreSQL in a new schema that `close()`
 * drops.
 * One test per engine with two opens: a PostgreSQL migration is the slow part.
 */
import { sql } from 'kysely'
import pg from 'pg'
import { describe, expect, it } from 'vitest'
import type { Db } from '../../src/db/database.ts'
import { DIALECTS, describeEachDatabase } from './databases.ts'
import { missingServices, postgresUrl } from './services.ts'

const ran = new Set<string>()

async function schemaExists(schema: string): Promise<boolean> {
  const c = new pg.Client({ connectionString: postgresUrl })
  await c.connect()
  try {
    const found = await c.query('select 1 from information_schema.schemata where schema_name = $1', [schema])
    return found.rowCount === 1
  } finally {
    await c.end()
  }
}

const currentSchema = async (db: Db) => (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s

describeEachDatabase('support databases', (open, dialect) => {
  it('each open() is a migrated, empty database of its own on the engine named; close() drops a PostgreSQL schema', async () => {
    ran.add(dialect)
    expect(expect.getState().currentTestName).toContain(`support databases [${dialect}]`)
    const [a, b] = await Promise.all([open(), open()])
    try {
      expect([a.dialect, b.dialect]).toEqual([dialect, dialect])
      expect(a.migrated).toContain('0001_core')
      expect(await a.db.selectFrom('accounts').selectAll().execute()).toEqual([])
      await sql`create table support_probe (x integer)`.execute(a.db)
      await sql`insert into support_probe values (1)`.execute(a.db)
      expect((await sql<{ x: number }>`select x from support_probe`.execute(a.db)).rows).toEqual([{ x: 1 }])
      await expect(sql`select x from support_probe`.execute(b.db)).rejects.toThrow(/support_probe/)
      if (dialect === 'postgres') {
        const schema = await currentSchema(a.db)
        expect(schema).toMatch(/^repo_[0-9a-f]{12}$/)
        expect(await currentSchema(b.db)).not.toBe(schema)
        expect(await schemaExists(schema)).toBe(true)
        await a.close()
        expect(await schemaExists(schema)).toBe(false)
      }
    } finally {
      if (dialect === 'sqlite') await a.close()
      await b.close()
    }
  })
})

describe('describeEachDatabase', () => {
  it('ran the suite on every engine (PostgreSQL when it is there)', () => {
    // A file's suites run in order: the engines' suites above have run by now (a skipped one adds nothing).
    const available = DIALECTS.filter((d) => d === 'sqlite' || missingServices(['postgres']).length === 0)
    expect(DIALECTS).toEqual(['sqlite', 'postgres'])
    expect([...ran].sort()).toEqual([...available].sort())
  })
})
