/**
 * Boots the real chaingate (real HTTP on port 0, real anvil chains, real SQLite in a temp dir) for e2e tests.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { request } from 'undici'
import { parseConfig } from '../../../src/config/load.ts'
import { startApp, type AppOptions, type RunningApp } from '../../../src/app/build.ts'
import { type AppInternals, appInternals } from '../../../src/app/app.test-support.ts'
import { createLogger } from '../../../src/observability/logger.ts'
import type { ApiKey } from '../../../src/keys/repository.ts'
import type { Account } from '../../../src/accounts/repository.ts'

export interface TestServer {
  app: RunningApp
  /** The app's parts (database, ledger, pools, hubs, ...): appInternals(app), src/app/app.test-support.ts. */
  parts: AppInternals
  /** http://127.0.0.1:PORT */
  url: string
  account: Account
  key: ApiKey
  /** Every log line the server wrote, parsed. */
  logs: Record<string, unknown>[]
  /** Raw log text, for "never contains X" checks. */
  logText(): string
  /** Path-form endpoint of a network for a key. */
  endpoint(network?: string, key?: string): string
  /** POST a body (object or raw string) to a network's endpoint; returns status, headers and text. */
  rpc(body: unknown, opts?: { network?: string; key?: string; headers?: Record<string, string> }): Promise<RpcReply>
  /** A new account (plan) with one key. */
  newKey(plan?: string, networks?: string[]): Promise<{ account: Account; key: ApiKey }>
  stop(): Promise<void>
}

export interface RpcReply {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  json(): any
  credits: number
}

/** CHAINGATE_TEST_DATABASE=postgres: each data dir's PostgreSQL schema. */
const pgSchemas = new Map<string, { url: string; drop(): Promise<void> }>()

export async function startTestServer(
  configOverrides: Record<string, unknown> = {},
  extra: Omit<AppOptions, 'config' | 'logger'> = {},
): Promise<TestServer> {
  const dataDir = (configOverrides.dataDir as string | undefined) ?? mkdtempSync(join(tmpdir(), 'chaingate-test-'))
  // CHAINGATE_TEST_DATABASE=postgres: the server keeps its data in a PostgreSQL schema of its own (one per data dir,
  // so a restart on the same data dir finds its data; dropped at stop unless the caller chose the data dir), and
  // CHAINGATE_DATABASE_URL points child `chaingate` commands at it: any e2e file can run against PostgreSQL
  // (docs/storage.md). Otherwise SQLite in the data dir, whatever CHAINGATE_DATABASE_URL says.
  const pgMode = process.env.CHAINGATE_TEST_DATABASE === 'postgres' && !configOverrides.database
  let pgSchema = pgMode ? pgSchemas.get(dataDir) : undefined
  if (pgMode && !pgSchema)
    pgSchemas.set(dataDir, (pgSchema = await (await import('../../support/services.ts')).createPgTestSchema('srv')))
  if (pgSchema) process.env.CHAINGATE_DATABASE_URL = pgSchema.url
  // CHAINGATE_TEST_REDIS=lease|per-call: hot counters, cache tier and head floors in Redis (docs/scale-out.md), under a
  // key prefix of the server's own, with leases or one round trip per call: any e2e file can run on the Redis store.
  const redisMode = process.env.CHAINGATE_TEST_REDIS
  const redis =
    redisMode && !configOverrides.redis
      ? {
          redis: {
            url: process.env.CHAINGATE_TEST_REDIS_URL || 'redis://127.0.0.1:6379',
            keyPrefix: `test:srv:${randomBytes(6).toString('hex')}:`,
            leaseCredits: redisMode === 'per-call' ? 0 : 1000,
          },
        }
      : {}
  const config = parseConfig({
    dataDir,
    ...redis,
    ...configOverrides,
    database: pgSchema ? { url: pgSchema.url } : { url: null, ...(configOverrides.database as object) },
    gateway: {
      port: 0,
      devAccount: null,
      usageFlushMs: 100,
      settingsPollMs: 100,
      ...(configOverrides.gateway as object),
    },
    networks: configOverrides.networks ?? [
      { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
      { name: 'devnet-b', chainId: 31338, embedded: { port: 0 } },
    ],
    wallet: { enabled: false, ...(configOverrides.wallet as object) },
    // With the dashboard on, sign-ups need no mailed confirmation unless a test asks for it (tests of other flows sign
    // up freely). Only then: a test reloading a config file of its own must not differ in a setting read at start.
    ...(extra.parts?.dashboard || configOverrides.dashboard
      ? { dashboard: { confirmEmail: false, ...(configOverrides.dashboard as object) } }
      : {}),
  })
  const chunks: string[] = []
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(chunk.toString())
      cb()
    },
  })
  const logger = createLogger('info', sink)
  const app = await startApp({ ...extra, config, logger })
  const parts = appInternals(app)
  const url = app.url
  let n = 0
  const newKey = async (plan = 'team', networks?: string[]) => {
    const { accounts, keys, keySnapshot, clock } = parts
    const account = await accounts.create({ email: `user${++n}-${Date.now()}@example.com`, plan }, clock.now())
    const key = await keys.create(
      { accountId: account.id, name: 'test', ...(networks ? { networks } : {}) },
      clock.now(),
    )
    await keySnapshot.reload()
    return { account, key }
  }
  const first = await newKey('team')
  const endpoint = (network = 'devnet-a', key = first.key.key) => `${url}/networks/${network}/v3/${key}`
  return {
    app,
    parts,
    url,
    account: first.account,
    key: first.key,
    get logs() {
      return chunks
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l))
    },
    logText: () => chunks.join(''),
    endpoint,
    async rpc(body, opts = {}) {
      const res = await request(endpoint(opts.network, opts.key), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...opts.headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      })
      const text = await res.body.text()
      return {
        status: res.statusCode,
        headers: res.headers,
        text,
        json: () => JSON.parse(text),
        credits: Number(res.headers['x-credits-charged'] ?? 'NaN'),
      }
    },
    newKey,
    async stop() {
      await app.stop()
      if (pgSchema && !configOverrides.dataDir) {
        pgSchemas.delete(dataDir)
        await pgSchema.drop()
      }
      if (!configOverrides.dataDir) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export const call = (method: string, params: unknown[] = [], id: number | string = 1) => ({
  jsonrpc: '2.0',
  id,
  method,
  params,
})
