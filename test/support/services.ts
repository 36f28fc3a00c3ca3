/**
 * Real PostgreSQL and Redis for the storage and scale-out suites.
 *
 * Where: CHAINGATE_TEST_POSTGRES_URL (default postgres://postgres@127.0.0.1:5432/test) and CHAINGATE_TEST_REDIS_URL
 * (default redis://127.0.0.1:6379). A suite that needs a missing service is skipped with a plain message saying how to
 * run it; with CHAINGATE_REQUIRE_SERVICES=1 (CI, `.ci/run`) it fails instead: the guard of ./programs.ts, which also
 * takes the programs a suite runs (`describeWithServices(['postgres', 'haproxy'], …)`).
 *
 * Availability is probed once per test file at import (top-level await), so `describeWithServices` can decide
 * synchronously while vitest collects the file.
 */
import { randomBytes } from 'node:crypto'
import { Socket } from 'node:net'
import pg from 'pg'
import { describeUnlessMissing, missingPrograms, type Program, servicesRequired } from './programs.ts'

export type Service = 'postgres' | 'redis'

export const postgresUrl = process.env.CHAINGATE_TEST_POSTGRES_URL || 'postgres://postgres@127.0.0.1:5432/test'
export const redisUrl = process.env.CHAINGATE_TEST_REDIS_URL || 'redis://127.0.0.1:6379'
export { servicesRequired }

const PROBE_TIMEOUT_MS = 3_000

async function probePostgres(): Promise<string | null> {
  const client = new pg.Client({ connectionString: postgresUrl, connectionTimeoutMillis: PROBE_TIMEOUT_MS })
  // An idle error after a failed connect must not become an unhandled 'error' event.
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('select 1')
    return null
  } catch (err) {
    return (err as Error).message || String(err)
  } finally {
    await client.end().catch(() => {})
  }
}

/** A raw RESP PING, so this helper does not depend on a Redis client's reconnect behaviour. */
function probeRedis(): Promise<string | null> {
  const url = new URL(redisUrl)
  return new Promise((resolve) => {
    const socket = new Socket()
    let settled = false
    const done = (problem: string | null) => {
      if (settled) return
      settled = true
      socket.destroy()
      resolve(problem)
    }
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done('timed out'))
    socket.once('error', (err) => done(err.message))
    socket.connect(Number(url.port || 6379), url.hostname || '127.0.0.1', () => {
      const password = decodeURIComponent(url.password)
      if (password) {
        const user = decodeURIComponent(url.username)
        const args = user ? ['AUTH', user, password] : ['AUTH', password]
        socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
      }
      socket.write('*1\r\n$4\r\nPING\r\n')
    })
    let text = ''
    socket.on('data', (chunk) => {
      text += chunk.toString()
      if (text.includes('+PONG')) done(null)
      else if (text.startsWith('-')) done(text.trim())
    })
  })
}

export interface ServicesStatus {
  postgres: boolean
  redis: boolean
  /** Why a service is unavailable, by service. */
  problems: Partial<Record<Service, string>>
}

let probed: Promise<ServicesStatus> | undefined

/** Probes PostgreSQL (connect + `select 1`) and Redis (PING) once per test file. */
export function servicesAvailable(): Promise<ServicesStatus> {
  probed ??= (async () => {
    const [pgProblem, redisProblem] = await Promise.all([probePostgres(), probeRedis()])
    const problems: ServicesStatus['problems'] = {}
    if (pgProblem) problems.postgres = pgProblem
    if (redisProblem) problems.redis = redisProblem
    return { postgres: pgProblem === null, redis: redisProblem === null, problems }
  })()
  return probed
}

/** Probed at import, so suites can be declared synchronously below. */
export const services: ServicesStatus = await servicesAvailable()

const howToRun: Record<Service, string> = {
  postgres:
    'start PostgreSQL on 127.0.0.1:5432 with trust auth and a `test` database (or set CHAINGATE_TEST_POSTGRES_URL); ' +
    '`.ci/run` does this',
  redis: 'start Redis on 127.0.0.1:6379 (or set CHAINGATE_TEST_REDIS_URL); `.ci/run` does this',
}

/** The services of `needs` that are not available, with why (empty when all are up). */
export function missingServices(needs: readonly Service[]): string[] {
  return needs.filter((s) => !services[s]).map((s) => `${s} (${services.problems[s]}): ${howToRun[s]}`)
}

/**
 * `describe` for a suite that needs real services (and programs from outside npm, ./programs.ts): runs when they are
 * there; otherwise skipped with a message on stderr naming the suite, what is missing and how to get it, or, with
 * CHAINGATE_REQUIRE_SERVICES=1, one failing test.
 */
export function describeWithServices(needs: readonly (Service | Program)[], name: string, body: () => void): void {
  const isService = (n: Service | Program): n is Service => n === 'postgres' || n === 'redis'
  const missing = [...missingServices(needs.filter(isService)), ...missingPrograms(needs.filter((n) => !isService(n)))]
  describeUnlessMissing(missing, name, body)
}

export interface PgTestSchema {
  /** A fresh, empty schema, e.g. test_1a2b3c4d5e6f. */
  schema: string
  /** postgresUrl with `search_path` set to the schema: give it to `database.url` or `new pg.Pool`. */
  url: string
  /** Drops the schema and everything in it. */
  drop(): Promise<void>
}

/** The URL with `search_path` pinned to a schema (libpq `options`, which `pg` passes to the server). */
export function withSearchPath(url: string, schema: string): string {
  const u = new URL(url)
  u.searchParams.set('options', `-c search_path=${schema}`)
  return u.toString()
}

/**
 * A fresh schema for one test file (or one test), so suites run in parallel on one database without seeing each
 * other's rows. Call `drop()` in afterAll.
 */
export async function createPgTestSchema(prefix = 'test'): Promise<PgTestSchema> {
  const schema = `${prefix}_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: postgresUrl })
  await admin.connect()
  try {
    await admin.query(`create schema "${schema}"`)
  } finally {
    await admin.end()
  }
  return {
    schema,
    url: withSearchPath(postgresUrl, schema),
    async drop() {
      const c = new pg.Client({ connectionString: postgresUrl })
      await c.connect()
      try {
        await c.query(`drop schema if exists "${schema}" cascade`)
      } finally {
        await c.end()
      }
    },
  }
}
