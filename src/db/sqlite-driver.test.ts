import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Kysely, SqliteDialect, sql } from 'kysely'
import { afterEach, describe, expect, test } from 'vitest'
import { openSqlite, sqliteEngine, type SqliteEngine, type SqliteHandle } from './sqlite-driver.ts'

const [major, minor] = process.versions.node.split('.').map(Number) as [number, number]
const hasNodeSqlite = major > 22 || (major === 22 && minor >= 13)
let hasAddon = true
try {
  ;new (await import('better-sqlite3')).default(':memory:').close()
} catch {
  hasAddon = false // not built for this Node (e.g. the Node 24 run in CI): node:sqlite is the engine there
}

test('the engine is node:sqlite exactly where Node has it (22.13+), else better-sqlite3', () => {
  expect(sqliteEngine()).toBe(hasNodeSqlite ? 'node:sqlite' : 'better-sqlite3')
})

const engines: [SqliteEngine, boolean][] = [
  ['node:sqlite', hasNodeSqlite],
  ['better-sqlite3', hasAddon],
]

describe.each(engines)('%s behind the seam', (engine, available) => {
  let dir: string | undefined
  let handle: SqliteHandle | undefined
  afterEach(() => {
    try {
      handle?.close()
    } catch {} // already closed by kysely's destroy()
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = handle = undefined
  })

  test.skipIf(!available)('kysely reads, writes, counts changed rows, streams and rolls back', async () => {
    dir = mkdtempSync(join(tmpdir(), 'chaingate-sqlite-'))
    handle = await openSqlite(join(dir, 'x.sqlite'), engine)
    expect(handle.pragma('journal_mode = WAL')).toEqual([{ journal_mode: 'wal' }])
    const db = new Kysely<{ t: { id: number; name: string; n: number } }>({
      dialect: new SqliteDialect({ database: handle }),
    })
    await sql`create table t (id integer primary key, name text not null, n integer not null)`.execute(db)
    const inserted = await db.insertInto('t').values({ id: 1, name: 'a', n: 1 }).executeTakeFirstOrThrow()
    expect(inserted.insertId).toBe(1n)
    expect(await db.insertInto('t').values({ id: 2, name: 'b', n: 2 }).returning(['id', 'name']).execute()).toEqual([
      { id: 2, name: 'b' },
    ])
    const updated = await db.updateTable('t').set({ n: 5 }).where('n', '<', 3).executeTakeFirst()
    expect(updated.numUpdatedRows).toBe(2n)
    const rows: unknown[] = []
    for await (const r of db.selectFrom('t').select(['id', 'n']).orderBy('id').stream()) rows.push({ ...r })
    expect(rows).toEqual([
      { id: 1, n: 5 },
      { id: 2, n: 5 },
    ])
    await expect(
      db.transaction().execute(async (tx) => {
        await tx.insertInto('t').values({ id: 3, name: 'c', n: 0 }).execute()
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(
      Number(
        (
          await db
            .selectFrom('t')
            .select((e) => e.fn.countAll().as('c'))
            .executeTakeFirstOrThrow()
        ).c,
      ),
    ).toBe(2)

    // The usage ledger's path: prepared statements inside transaction(); a throw leaves nothing behind.
    const add = handle.prepare('insert into t (id, name, n) values (?, ?, ?)')
    expect(add.reader).toBe(false)
    expect(handle.prepare('select 1 as x').reader).toBe(true)
    const write = handle.transaction((ids: number[]) => {
      for (const id of ids) add.run(id, `r${id}`, id)
    })
    write([10, 11])
    expect(() => write([12, 10])).toThrow(/UNIQUE/)
    expect(
      handle
        .prepare('select id from t where id >= ? order by id')
        .all(10)
        .map((r) => ({ ...(r as object) })),
    ).toEqual([{ id: 10 }, { id: 11 }])
    await db.destroy()
  })
})
