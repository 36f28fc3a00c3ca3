/**
 * Link tokens, email confirmation and the sessions list over the database seam, on SQLite and PostgreSQL
 * (describeEachDatabase), and migration 0800 on a database made before it: its accounts count as confirmed.
 */
import { Kysely, Migrator, SqliteDialect } from 'kysely'
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createSessionsRepository } from '../accounts/login-repository.ts'
import { createLinkTokens, hashLinkToken } from '../accounts/link-tokens.ts'
import { createAccountsRepository } from '../accounts/repository.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import type { OpenedDatabase } from './database.ts'
import { migrations } from './migrations/index.ts'
import { openSqlite } from './sqlite-driver.ts'

const PLANS = { free: { creditsPerDay: 1000, creditsPerSecond: 10, maxKeys: 2 } }
const NOW = Date.parse('2026-03-01T10:15:00Z')

describeEachDatabase('account mail repositories', (open) => {
  let opened: OpenedDatabase
  beforeEach(async () => {
    opened = await open()
  })
  afterEach(async () => opened.close())

  it('link tokens: stored hashed, bound to their purpose, single-use (also when consumed twice at once), expiring, revocable', async () => {
    const tokens = createLinkTokens(opened.db)
    const t = await tokens.issue({ purpose: 'reset', accountId: 'acc-1', ttlMs: 1000 }, NOW)
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const rows = await opened.db.selectFrom('link_tokens').selectAll().execute()
    expect(rows.map((r) => r.token_hash)).toEqual([hashLinkToken(t)])
    expect(JSON.stringify(rows)).not.toContain(t)
    // Another purpose, a forged token, a hash in place of the token: nothing.
    expect(await tokens.peek('confirm', t, NOW)).toBeUndefined()
    expect(await tokens.peek('reset', `${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`, NOW)).toBeUndefined()
    expect(await tokens.peek('reset', hashLinkToken(t), NOW)).toBeUndefined()
    expect(await tokens.peek('reset', t, NOW + 999)).toMatchObject({ accountId: 'acc-1', expiresAt: NOW + 1000 })
    expect(await tokens.consume('reset', t, NOW + 1000)).toBeUndefined() // expired
    const u = await tokens.issue({ purpose: 'confirm', accountId: 'acc-1', email: 'a@b.c', ttlMs: 1000 }, NOW)
    const both = await Promise.all([tokens.consume('confirm', u, NOW), tokens.consume('confirm', u, NOW)])
    expect(both.filter(Boolean)).toHaveLength(1)
    expect(await tokens.consume('confirm', u, NOW)).toBeUndefined()
    const v = await tokens.issue({ purpose: 'reset', accountId: 'acc-1', ttlMs: 1000 }, NOW)
    await tokens.revokeAll('reset', 'acc-1', NOW)
    expect(await tokens.peek('reset', v, NOW)).toBeUndefined()
    await tokens.prune(NOW + 1000 + 86_400_001)
    expect(await opened.db.selectFrom('link_tokens').selectAll().execute()).toEqual([])
  })

  it('accounts: a sign-up starts unconfirmed and is confirmed once; operator-made accounts are confirmed', async () => {
    const accounts = createAccountsRepository(opened.db, PLANS)
    const a = await accounts.create({ email: 'a@example.com', plan: 'free', unconfirmed: true }, NOW)
    const b = await accounts.create({ email: 'b@example.com', plan: 'free' }, NOW)
    expect(a.emailConfirmedAt).toBeNull()
    expect(b.emailConfirmedAt).toBe(NOW)
    expect(await accounts.confirmEmail(a.id, NOW + 5)).toBe(true)
    expect(await accounts.confirmEmail(a.id, NOW + 6)).toBe(false)
    expect((await accounts.get(a.id))?.emailConfirmedAt).toBe(NOW + 5)
  })

  it('sessions: listed with device and IP, most recently seen first; touch writes once a minute; one or all ended', async () => {
    const sessions = createSessionsRepository(opened.db)
    const accounts = createAccountsRepository(opened.db, PLANS)
    const acc = (await accounts.create({ email: 'acc@example.com', plan: 'free' }, NOW)).id
    const other = (await accounts.create({ email: 'other@example.com', plan: 'free' }, NOW)).id
    const s = (idHash: string, accountId = acc) => ({ idHash, accountId, csrfToken: 'c', expiresAt: NOW + 3_600_000 })
    await sessions.insert(s('h1'), NOW, { userAgent: 'Firefox', ip: '10.0.0.1' })
    await sessions.insert(s('h2'), NOW + 1, { userAgent: null, ip: '10.0.0.2' })
    await sessions.insert(s('h3', other), NOW)
    expect((await sessions.listByAccount(acc, NOW)).map((x) => x.idHash)).toEqual(['h2', 'h1'])
    await sessions.touch('h1', NOW + 30_000)
    expect((await sessions.listByAccount(acc, NOW))[1]).toMatchObject({ idHash: 'h1', lastSeenAt: NOW })
    await sessions.touch('h1', NOW + 120_000)
    expect((await sessions.listByAccount(acc, NOW))[0]).toMatchObject({
      idHash: 'h1',
      lastSeenAt: NOW + 120_000,
      userAgent: 'Firefox',
      ip: '10.0.0.1',
    })
    expect(await sessions.deleteOfAccount(acc, 'h3')).toBe(false) // another account's session
    expect(await sessions.deleteOfAccount(acc, 'h1')).toBe(true)
    await sessions.deleteAllOfAccount(acc)
    expect(await sessions.listByAccount(acc, NOW)).toEqual([])
    expect(await sessions.find('h3')).toBeDefined()
  })
})

it('migration 0800 on a database made before it: existing accounts count as confirmed', async () => {
  const db = new Kysely<any>({ dialect: new SqliteDialect({ database: (await openSqlite(':memory:')) as never }) })
  const upTo = (last: string) =>
    new Migrator({
      db,
      provider: {
        getMigrations: async () => Object.fromEntries(Object.entries(migrations).filter(([n]) => n <= last)),
      },
    })
  try {
    expect((await upTo('0700_usage_alerts').migrateToLatest()).error).toBeUndefined()
    await db
      .insertInto('accounts')
      .values({ id: 'old', email: 'old@example.com', plan: 'free', created_at: NOW })
      .execute()
    expect((await upTo('0800_account_mail_2fa').migrateToLatest()).error).toBeUndefined()
    const accounts = createAccountsRepository(db, PLANS)
    expect((await accounts.get('old'))?.emailConfirmedAt).toBe(NOW)
  } finally {
    await db.destroy()
  }
})
