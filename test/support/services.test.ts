/**
 * The real-services guard and PostgreSQL schemas (./services.ts): a service that does not answer is missing, named
 * with why and how to run it; its suite is skipped with one stderr line, or is one failing test under
 * CHAINGATE_REQUIRE_SERVICES=1; a test schema is private to its URL and dropped by drop(). The guard is exercised on
 * a fresh import of the module under a given environment, with vitest's describe and it recorded instead of declared.
 */
import { createServer } from 'node:net'
import pg from 'pg'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { createPgTestSchema, describeWithServices, withSearchPath, type PgTestSchema } from './services.ts'

type Declared = { kind: 'describe' | 'skip' | 'it'; name: string; body: () => void }

/** services.ts imported afresh under `env` (probing at import, as a test file does), its vitest calls recorded. */
async function servicesUnder(env: Record<string, string | undefined>) {
  const declared: Declared[] = []
  const record = (kind: Declared['kind']) => (name: string, body: () => void) =>
    void declared.push({ kind, name, body })
  const saved = Object.fromEntries(Object.keys(env).map((k) => [k, process.env[k]]))
  const set = (values: Record<string, string | undefined>) => {
    for (const [k, v] of Object.entries(values))
      if (v === undefined) delete process.env[k]
      else process.env[k] = v
  }
  set(env)
  vi.resetModules()
  vi.doMock('vitest', () => ({
    describe: Object.assign(record('describe'), { skip: record('skip') }),
    it: record('it'),
  }))
  try {
    return { services: await import('./services.ts'), declared }
  } finally {
    vi.doUnmock('vitest')
    vi.resetModules()
    set(saved)
  }
}

/** A port nothing listens on (just closed). */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** Runs `f` with stderr captured. */
function stderrOf(f: () => void): string {
  let out = ''
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
    out += String(chunk)
    return true
  })
  try {
    f()
  } finally {
    spy.mockRestore()
  }
  return out
}

describe('the services guard', () => {
  it('a service that does not answer is missing, with why and how to run it; its suite is skipped, one stderr line', async () => {
    const port = await closedPort()
    const { services: m, declared } = await servicesUnder({
      CHAINGATE_TEST_REDIS_URL: `redis://127.0.0.1:${port}`,
      CHAINGATE_TEST_POSTGRES_URL: `postgres://postgres@127.0.0.1:${port}/test`,
      CHAINGATE_REQUIRE_SERVICES: undefined,
    })
    expect([m.services.redis, m.services.postgres, m.servicesRequired]).toEqual([false, false, false])
    expect(m.missingServices(['redis'])).toEqual([
      `redis (connect ECONNREFUSED 127.0.0.1:${port}): ` +
        'start Redis on 127.0.0.1:6379 (or set CHAINGATE_TEST_REDIS_URL); `.ci/run` does this',
    ])
    expect(m.missingServices(['postgres'])[0]).toMatch(/^postgres \(.*ECONNREFUSED.*\): start PostgreSQL on /)
    const body = () => {}
    const err = stderrOf(() => m.describeWithServices(['redis', 'postgres'], 'needs both', body))
    expect(declared).toEqual([{ kind: 'skip', name: 'needs both', body }])
    expect(err).toBe(`SKIPPED suite "needs both": needs ${m.missingServices(['redis', 'postgres']).join('; ')}\n`)
  })

  it('under CHAINGATE_REQUIRE_SERVICES=1 the suite is one failing test naming what is missing', async () => {
    const port = await closedPort()
    const { services: m, declared } = await servicesUnder({
      CHAINGATE_TEST_REDIS_URL: `redis://127.0.0.1:${port}`,
      CHAINGATE_REQUIRE_SERVICES: '1',
    })
    expect(m.servicesRequired).toBe(true)
    const err = stderrOf(() => m.describeWithServices(['redis'], 'needs redis', () => {}))
    expect(err).toBe('')
    expect(declared.map((d) => [d.kind, d.name])).toEqual([['describe', 'needs redis']])
    declared[0]!.body()
    expect(declared[1]).toMatchObject({
      kind: 'it',
      name: 'has the services and programs it needs (CHAINGATE_REQUIRE_SERVICES=1)',
    })
    expect(declared[1]!.body).toThrow(`missing: redis (connect ECONNREFUSED 127.0.0.1:${port})`)
  })
})

describeWithServices(['redis', 'postgres'], 'the services guard with the services up', () => {
  it('declares the suite as is, nothing on stderr', async () => {
    const { services: m, declared } = await servicesUnder({})
    expect(m.missingServices(['redis', 'postgres'])).toEqual([])
    const body = () => {}
    expect(stderrOf(() => m.describeWithServices(['redis', 'postgres'], 'has both', body))).toBe('')
    expect(declared).toEqual([{ kind: 'describe', name: 'has both', body }])
  })
})

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
