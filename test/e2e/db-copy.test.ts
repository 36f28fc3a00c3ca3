/**
 * Moving from the embedded SQLite database to PostgreSQL: `chaingate migrate --copy-from <file>` copies accounts,
 * keys (revoked ones and per-key limits included), key networks and the usage ledger; a server on PostgreSQL then
 * serves the same keys and `chaingate usage` shows the same figures. Copying into a database that holds accounts
 * is refused with nothing written.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import { cleanupProcesses, removeDirs, runCli, tempDir, writeConfig } from './helpers/process.ts'
import { call, startTestServer } from './helpers/server.ts'
import { createPgTestSchema, describeWithServices, type PgTestSchema } from '../support/services.ts'

const CHAIN_ID = 31_378
const networks = (node: FakeNode) => [{ name: 'remote', chainId: CHAIN_ID, upstreams: [{ url: node.url }] }]

describeWithServices(['postgres'], 'chaingate migrate --copy-from: SQLite to PostgreSQL', () => {
  let schema: PgTestSchema
  let node: FakeNode
  const dirs: string[] = []
  let sqliteDir: string
  let pgConfig: string
  let sqliteConfig: string
  const keys: { live: { id: string; key: string }; revoked: { id: string; key: string }; accountEmail: string } =
    {} as never
  let charged = 0

  beforeAll(async () => {
    schema = await createPgTestSchema('copy')
    node = await startFakeNode(`0x${CHAIN_ID.toString(16)}`)
    sqliteDir = tempDir('chaingate-copy-src-')
    const pgDir = tempDir('chaingate-copy-dst-')
    dirs.push(sqliteDir, pgDir)
    sqliteConfig = writeConfig(sqliteDir, 'chaingate.json', { dataDir: sqliteDir, networks: networks(node) })
    pgConfig = writeConfig(pgDir, 'chaingate.json', {
      dataDir: pgDir,
      database: { url: schema.url },
      networks: networks(node),
    })

    // A server on SQLite with an account, a key that calls, a key with limits that gets revoked.
    const s = await startTestServer({ dataDir: sqliteDir, networks: networks(node) })
    try {
      keys.accountEmail = s.account.email
      keys.live = { id: s.key.id, key: s.key.key }
      for (let i = 0; i < 5; i++) {
        const r = await s.rpc(call(i % 2 ? 'eth_blockNumber' : 'eth_chainId', [], i), { network: 'remote' })
        expect(r.status).toBe(200)
        charged += r.credits
      }
      const other = await s.newKey('team', ['remote'])
      keys.revoked = { id: other.key.id, key: other.key.key }
    } finally {
      await s.stop()
    }
    for (const args of [
      ['key', 'limits', keys.live.id, '--credits-per-day', '123456'],
      ['key', 'revoke', keys.revoked.id],
    ]) {
      const r = await runCli([...args, '--config', sqliteConfig])
      expect(r.code, r.stderr).toBe(0)
    }
  }, 90_000)
  afterAll(async () => {
    await cleanupProcesses()
    await node?.close()
    await schema?.drop()
    removeDirs(dirs)
  })

  it('copies every record; the CLI on PostgreSQL lists the same keys and usage', async () => {
    const copy = await runCli([
      'migrate',
      '--copy-from',
      join(sqliteDir, 'chaingate.sqlite'),
      '--json',
      '--config',
      pgConfig,
    ])
    expect(copy.code, copy.stderr).toBe(0)
    const rows = Object.fromEntries(
      (copy.json().tables as { table: string; rows: number }[]).map((t) => [t.table, t.rows]),
    )
    expect(rows.accounts).toBe(2)
    expect(rows.api_keys).toBe(2)
    expect(rows.usage_hourly).toBeGreaterThanOrEqual(2)
    expect(rows.dashboard_sessions).toBeUndefined()
    expect(copy.stdout).not.toContain(keys.live.key)

    const listings = [
      ['key', 'list', '--all', '--json'],
      ['usage', '--account', keys.accountEmail, '--json'],
      ['account', 'list', '--json'],
    ]
    const before = await Promise.all(
      listings.map((args) => runCli([...args, '--config', sqliteConfig], { timeoutMs: 60_000 })),
    )
    const after = await Promise.all(
      listings.map((args) => runCli([...args, '--config', pgConfig], { timeoutMs: 60_000 })),
    )
    for (const [i, shown] of after!.entries()) {
      expect(shown.code, shown.stderr).toBe(0)
      expect(shown.json()).toEqual(before![i]!.json())
    }
    expect(after![1]!.json().total.credits).toBe(charged)
  }, 150_000)

  it('a server on PostgreSQL serves the copied key with its limit; the revoked key stays revoked', async () => {
    const s = await startTestServer({
      dataDir: tempDir('chaingate-copy-srv-'),
      database: { url: schema.url },
      networks: networks(node),
    })
    try {
      const ok = await s.rpc(call('eth_chainId'), { network: 'remote', key: keys.live.key })
      expect(ok.status).toBe(200)
      expect(ok.json().result).toBe(`0x${CHAIN_ID.toString(16)}`)
      expect((await s.rpc(call('eth_chainId'), { network: 'remote', key: keys.revoked.key })).status).toBe(401)
      const shown = await runCli(['key', 'show', keys.live.id, '--json', '--config', pgConfig])
      expect(shown.json()).toMatchObject({ creditsPerDay: 123456 })
    } finally {
      await s.stop()
    }
  }, 60_000)

  it('refuses to copy into a database that holds accounts, and writes nothing', async () => {
    const again = await runCli(['migrate', '--copy-from', join(sqliteDir, 'chaingate.sqlite'), '--config', pgConfig])
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/nothing copied: the target database already holds \d+ account/)
    expect(again.stderr).not.toMatch(/\n\s+at /)
    const list = await runCli(['account', 'list', '--json', '--config', pgConfig])
    // The server above added its own test account; nothing was doubled.
    const emails = (list.json() as { email: string }[]).map((a) => a.email)
    expect(new Set(emails).size).toBe(emails.length)
  }, 60_000)

  it('a missing source file is a clear error, exit 1', async () => {
    const r = await runCli(['migrate', '--copy-from', join(sqliteDir, 'nope.sqlite'), '--config', pgConfig])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('there is no SQLite database at')
  })
})
