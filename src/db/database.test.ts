import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, expect, it } from 'vitest'
import { createPgTestSchema, describeWithServices, type PgTestSchema } from '../../test/support/services.ts'
import { startTcpProxy } from '../../test/support/tcp-proxy.ts'
import { parseConfig } from '../config/load.ts'
import { databaseTarget, describeTarget, droppedMeanwhile, openDatabase, type OpenedDatabase } from './database.ts'
import { migrations } from './migrations/index.ts'

it('describeTarget never shows a PostgreSQL password', () => {
  expect(describeTarget({ url: 'postgres://app:s3cret@db.internal:5432/chaingate?sslmode=require', file: 'x' })).toBe(
    'PostgreSQL postgres://app:***@db.internal:5432/chaingate?sslmode=require',
  )
  expect(describeTarget({ url: null, file: '/data/chaingate.sqlite' })).toBe('SQLite /data/chaingate.sqlite')
})

it('config database.url: SQLite in the data dir by default, PostgreSQL from the key or CHAINGATE_DATABASE_URL, other schemes refused', () => {
  const saved = process.env.CHAINGATE_DATABASE_URL
  try {
    delete process.env.CHAINGATE_DATABASE_URL
    const plain = parseConfig({ dataDir: '/srv/cg' })
    expect(databaseTarget(plain)).toEqual({ url: null, file: '/srv/cg/chaingate.sqlite', poolSize: 10 })
    process.env.CHAINGATE_DATABASE_URL = 'postgres://env@db/cg'
    expect(parseConfig({}).database.url).toBe('postgres://env@db/cg')
    expect(parseConfig({ database: { url: 'postgresql://key@db/cg' } }).database.url).toBe('postgresql://key@db/cg')
    expect(() => parseConfig({ database: { url: 'mysql://x@db/cg' } })).toThrow(
      /database\.url: a postgres:\/\/ or postgresql:\/\/ URL/,
    )
    expect(() => parseConfig({ database: { usageBufferRows: 10 } })).toThrow(/database\.usageBufferRows/)
    // A bad value from the environment is refused like one from the file (it used to pass unchecked).
    process.env.CHAINGATE_DATABASE_URL = 'mysql://env@db/cg'
    expect(() => parseConfig({})).toThrow(/database\.url: .*CHAINGATE_DATABASE_URL/)
    const savedRedis = process.env.CHAINGATE_REDIS_URL
    process.env.CHAINGATE_REDIS_URL = 'localhost:6379'
    try {
      expect(() => parseConfig({ database: { url: null } })).toThrow(/redis\.url: .*CHAINGATE_REDIS_URL/)
    } finally {
      if (savedRedis === undefined) delete process.env.CHAINGATE_REDIS_URL
      else process.env.CHAINGATE_REDIS_URL = savedRedis
    }
  } finally {
    if (saved === undefined) delete process.env.CHAINGATE_DATABASE_URL
    else process.env.CHAINGATE_DATABASE_URL = saved
  }
})

describeWithServices(['postgres'], 'opening PostgreSQL', () => {
  const schemas: PgTestSchema[] = []
  const opened: OpenedDatabase[] = []
  afterEach(async () => {
    for (const o of opened.splice(0)) await o.close()
    for (const s of schemas.splice(0)) await s.drop()
  })

  it('replicas starting together migrate once: every migration applied by exactly one of them, all open', async () => {
    const schema = await createPgTestSchema('mig')
    schemas.push(schema)
    const all = await Promise.all([1, 2, 3].map(() => openDatabase({ url: schema.url, file: ':memory:', poolSize: 2 })))
    opened.push(...all)
    const applied = all.flatMap((o) => o.migrated).sort()
    expect(applied).toEqual(Object.keys(migrations).sort())
    expect(all.every((o) => o.dialect === 'postgres')).toBe(true)
  })

  it('two deployments in two schemas of one database each get their own tables and migration history', async () => {
    const a = await createPgTestSchema('mig')
    const b = await createPgTestSchema('mig')
    schemas.push(a, b)
    const da = await openDatabase({ url: a.url, file: ':memory:' })
    opened.push(da)
    const db = await openDatabase({ url: b.url, file: ':memory:' })
    opened.push(db)
    expect(da.migrated).toEqual(Object.keys(migrations))
    expect(db.migrated).toEqual(Object.keys(migrations))
    await da.db
      .insertInto('accounts')
      .values({ id: 'a1', email: 'a@x.y', plan: 'free', created_at: Date.now() })
      .execute()
    expect(await db.db.selectFrom('accounts').selectAll().execute()).toEqual([])
  })

  it('ping says false when PostgreSQL does not answer, and opening an unreachable database fails with its error', async () => {
    const schema = await createPgTestSchema('mig')
    schemas.push(schema)
    const o = await openDatabase({ url: schema.url, file: ':memory:' })
    expect(await o.ping()).toBe(true)
    await o.pool!.end() // no connection can be made any more (closed here, so not through o.close())
    expect(await o.ping(500)).toBe(false)
    await expect(openDatabase({ url: 'postgres://postgres@127.0.0.1:1/test', file: ':memory:' })).rejects.toThrow(
      /ECONNREFUSED|connect/,
    )
  })

  it('opening is not disturbed by other schemas of the database being dropped meanwhile (other deployments, other tests)', async () => {
    let opening = true
    const churn = Promise.all(
      [1, 2, 3].map(async () => {
        while (opening) {
          // With tables, as a deployment's: dropping them meanwhile fails a lookup by its table, not its schema.
          const churn = await createPgTestSchema('churn')
          const o = await openDatabase({ url: churn.url, file: ':memory:' })
          await o.close()
          await churn.drop()
        }
      }),
    )
    for (let i = 0; i < 8; i++) {
      const schema = await createPgTestSchema('mig')
      schemas.push(schema)
      const o = await openDatabase({ url: schema.url, file: ':memory:' })
      opened.push(o)
      expect(o.migrated).toEqual(Object.keys(migrations))
    }
    opening = false
    await churn
  }, 60_000)

  it('PostgreSQL going away while a connection is checked out fails its queries, not the process', async () => {
    const schema = await createPgTestSchema('mig')
    schemas.push(schema)
    const u = new URL(schema.url)
    const proxy = await startTcpProxy(`postgres://${u.host}`)
    u.host = `127.0.0.1:${proxy.port}`
    const o = await openDatabase({ url: u.toString(), file: ':memory:' })
    opened.push(o)
    // A transaction in progress (as the ledger's flush holds one) when every connection is cut.
    const client = await o.pool!.connect()
    await client.query('begin')
    const ended = new Promise((resolve) => client.once('end', resolve))
    await proxy.cut()
    await ended
    // Without a listener on the checked-out client, its 'error' event would have been an uncaught exception here.
    await expect(client.query('select 1')).rejects.toThrow()
    client.release(true)
    expect(await o.ping(500)).toBe(false)
    await proxy.restore()
    expect(await o.ping(2_000)).toBe(true)
    await proxy.close()
  })
})

it('SQLite: a transaction takes the write lock when it begins, so one that reads then writes never fails on another process', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-immediate-'))
  const file = join(dir, 'chaingate.sqlite')
  const a = await openDatabase(file)
  const b = await openDatabase(file)
  try {
    b.sqlite!.pragma('busy_timeout = 0') // b does not wait: it shows who holds the lock
    const bump = sql`update settings_version set version = version + 1 where id = 1`
    const version = () => b.db.selectFrom('settings_version').select('version').executeTakeFirstOrThrow()
    const before = (await version()).version
    await a.db.transaction().execute(async (trx) => {
      await trx.selectFrom('settings_version').select('version').execute()
      // With a deferred BEGIN, b's write would succeed here and a's write below fail with "database is locked".
      await expect(bump.execute(b.db)).rejects.toThrow(/locked|busy/i)
      await bump.execute(trx)
    })
    await bump.execute(b.db)
    expect((await version()).version).toBe(before + 2)
  } finally {
    await a.close()
    await b.close()
    rmSync(dir, { recursive: true, force: true })
  }
})

it("tells another schema's drop (the schema, or one of its tables) from a failure of its own", () => {
  const error = (message: string) => new Error(message)
  expect(droppedMeanwhile(error('schema "other_1" does not exist'), 'ours')).toBe(true)
  expect(droppedMeanwhile(error('relation "other_1.alert_settings" does not exist'), 'ours')).toBe(true)
  expect(droppedMeanwhile(error('schema "ours" does not exist'), 'ours')).toBe(false)
  expect(droppedMeanwhile(error('relation "ours.alert_settings" does not exist'), 'ours')).toBe(false)
  expect(droppedMeanwhile(error('relation "alert_settings" does not exist'), 'ours')).toBe(false)
  expect(droppedMeanwhile(error('permission denied for schema other_1'), 'ours')).toBe(false)
  // kysely's lookup (pg_get_serial_sequence) on a table dropped meanwhile: someone else's, unless our migration failed
  expect(droppedMeanwhile(error('column "id" of relation "teams" does not exist'), 'ours')).toBe(true)
  expect(droppedMeanwhile(error('column "id" of relation "teams" does not exist'), 'ours', true)).toBe(false)
})
