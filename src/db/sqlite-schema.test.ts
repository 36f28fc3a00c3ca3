/**
 * Existing SQLite databases must upgrade unchanged: the landed migrations (0001–0310) have to produce, on
 * SQLite, exactly the schema they produced before they were made portable (column types through dialect.ts).
 * The fixture is that schema, dumped from a database made by the migrations as they landed.
 */
import { readFileSync } from 'node:fs'
import { expect, it } from 'vitest'
import { openDatabase } from './database.ts'

const fixture = JSON.parse(readFileSync(new URL('./fixtures/sqlite-schema-0310.json', import.meta.url), 'utf8')) as {
  objects: { type: string; name: string; sql: string }[]
}

it('the landed migrations create, on SQLite, exactly the tables and indexes they created before PostgreSQL support', async () => {
  const opened = await openDatabase(':memory:')
  try {
    const names = fixture.objects.map((o) => o.name)
    const rows = opened
      .sqlite!.prepare(
        `select type, name, sql from sqlite_master where name in (${names.map(() => '?').join(', ')}) order by name`,
      )
      .all(...names)
    expect(rows).toEqual([...fixture.objects].sort((a, b) => (a.name < b.name ? -1 : 1)))
  } finally {
    await opened.close()
  }
})
