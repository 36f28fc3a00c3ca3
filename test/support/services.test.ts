import { afterAll, expect, it } from 'vitest'
import pg from 'pg'
import { createPgTestSchema, describeWithServices, withSearchPath, type PgTestSchema } from './services.ts'

it('withSearchPath pins search_path through the libpq options parameter', () => {
  const url = new URL(withSearchPath('postgres://u@h:5432/db?sslmode=disable', 'test_ab'))
  expect(url.searchParams.get('options')).toBe('-c search_path=test_ab')
  expect(url.searchParams.get('sslmode')).toBe('disable')
})

describeWithServices(['postgres'], 'PostgreSQL test schema', () => {
  const made: PgTestSchema[] = []
  afterAll(async () => {
    for (const s of made) await s.drop()
  })

  it('a connection through the schema URL creates tables in that schema only, and drop() removes it', async () => {
    const a = await createPgTestSchema()
    const b = await createPgTestSchema()
    made.push(b)
    const ca = new pg.Client({ connectionString: a.url })
    const cb = new pg.Client({ connectionString: b.url })
    await ca.connect()
    await cb.connect()
    try {
      await ca.query('create table t (x int)')
      await ca.query('insert into t values (1)')
      expect((await ca.query('select current_schema() as s')).rows[0].s).toBe(a.schema)
      await expect(cb.query('select * from t')).rejects.toThrow(/does not exist/)
      await a.drop()
      const left = await cb.query('select 1 from information_schema.schemata where schema_name = $1', [a.schema])
      expect(left.rowCount).toBe(0)
    } finally {
      await ca.end()
      await cb.end()
    }
  })
})
