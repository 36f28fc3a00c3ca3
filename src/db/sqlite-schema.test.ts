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

/** Columns later migrations add to these tables: SQLite appends each to the table's CREATE text. */
const LATER_COLUMNS: Record<string, string[]> = {
  // 0510_account_disabled, 0800_account_mail_2fa, 0810_teams
  accounts: ['"disabled_at" integer', '"email_confirmed_at" integer', `"kind" text default 'person' not null`],
  dashboard_sessions: ['"user_agent" text', '"ip" text', '"last_seen_at" integer'], // 0800_account_mail_2fa
}
const withLaterColumns = (o: { type: string; name: string; sql: string }) =>
  LATER_COLUMNS[o.name] ? { ...o, sql: o.sql.replace(/\)$/, `, ${LATER_COLUMNS[o.name]!.join(', ')})`) } : o

it('the landed migrations create, on SQLite, exactly the tables and indexes they created before PostgreSQL support', async () => {
  const opened = await openDatabase(':memory:')
  try {
    const names = fixture.objects.map((o) => o.name)
    const rows = opened
      .sqlite!.prepare(
        `select type, name, sql from sqlite_master where name in (${names.map(() => '?').join(', ')}) order by name`,
      )
      .all(...names)
    expect(rows).toEqual([...fixture.objects].map(withLaterColumns).sort((a, b) => (a.name < b.name ? -1 : 1)))
  } finally {
    await opened.close()
  }
})
