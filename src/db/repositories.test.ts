/**
 * The repositories over the database seam, run on SQLite and on PostgreSQL by one suite (describeEachDatabase):
 * accounts, teams, keys, passwords, dashboard sessions, the key snapshot, the usage readers and the wallet's records.
 * What differs between engines is checked here: unique violations, 64-bit columns (millisecond timestamps),
 * sums and counts as numbers, identity ids, upserts.
 */
import { afterEach, beforeEach, expect, it } from 'vitest'
import { createAccountsRepository } from '../accounts/repository.ts'
import { createCredentialsRepository } from '../accounts/password-repository.ts'
import { createSessionsRepository } from '../accounts/login-repository.ts'
import { createTeamsRepository } from '../accounts/teams/repository.ts'
import { createKeysRepository } from '../keys/repository.ts'
import { createKeySnapshot } from '../keys/snapshot.ts'
import { loadAllKeySecurity } from '../keys/security/repository.ts'
import { createUsageLedger } from '../usage/ledger.ts'
import { usageWriterFor } from '../usage/writers.ts'
import { creditsTodayByAccountAndKey, creditsUsedToday, queryUsage, usageReport } from '../usage/queries.ts'
import { createActivityRepository } from '../wallet/activity.ts'
import { createWalletRepository } from '../wallet/repository.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import type { OpenedDatabase } from './database.ts'
import { readSettingsVersion } from './settings-version.ts'

const PLANS = {
  free: { creditsPerDay: 1000, creditsPerSecond: 10, maxKeys: 2 },
  team: { creditsPerDay: 100_000, creditsPerSecond: 1000, maxKeys: null },
}
const NETWORKS = ['net-a', 'net-b']
// Far above 2^31: PostgreSQL's 32-bit `integer` would refuse it; the columns must be 64-bit.
const NOW = Date.parse('2026-03-01T10:15:00Z')

describeEachDatabase('repositories', (open) => {
  let opened: OpenedDatabase
  beforeEach(async () => {
    opened = await open()
  })
  afterEach(async () => opened.close())
  const repos = () => ({
    accounts: createAccountsRepository(opened.db, PLANS),
    keys: createKeysRepository(opened.db, { networks: NETWORKS, plans: PLANS }),
  })

  it('accounts: create, find by id or email (case-insensitive), list oldest first, change plan and role; every change bumps settings_version', async () => {
    const { accounts } = repos()
    const v0 = await readSettingsVersion(opened.db)
    const a = await accounts.create({ email: 'Alice@Example.com', plan: 'free' }, NOW)
    const b = await accounts.create({ email: 'bob@example.com', plan: 'team' }, NOW + 1)
    expect(a).toMatchObject({ email: 'alice@example.com', plan: 'free', role: 'user', createdAt: NOW })
    expect(await accounts.resolve('ALICE@example.com')).toEqual(a)
    expect(await accounts.get(b.id)).toEqual(b)
    expect((await accounts.list()).map((x) => x.id)).toEqual([a.id, b.id])
    await accounts.setPlan(a.id, 'team')
    await accounts.setRole(b.id, 'operator')
    expect(await accounts.get(a.id)).toMatchObject({ plan: 'team' })
    expect(await accounts.get(b.id)).toMatchObject({ role: 'operator' })
    expect(await readSettingsVersion(opened.db)).toBe(v0 + 3)
    await expect(accounts.setPlan('nope', 'team')).rejects.toThrow(/account nope/)
  })

  it('accounts: two sign-ups of one email at the same moment give one account and one conflict (the unique index on both engines)', async () => {
    const { accounts } = repos()
    const results = await Promise.allSettled([
      accounts.create({ email: 'same@example.com', plan: 'free' }, NOW),
      accounts.create({ email: 'same@example.com', plan: 'free' }, NOW),
      accounts.create({ email: 'same@example.com', plan: 'free' }, NOW),
    ])
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1)
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/exists/)
    expect(await accounts.list()).toHaveLength(1)
  })

  it('keys: create with networks, resolve by key, toggle a network, set limits, revoke; plan limits hold', async () => {
    const { accounts, keys } = repos()
    const acc = await accounts.create({ email: 'k@example.com', plan: 'free' }, NOW)
    const k1 = await keys.create({ accountId: acc.id, name: 'one', networks: ['net-a'] }, NOW)
    expect(k1.key).toMatch(/^[0-9a-f]{32}$/)
    expect(k1).toMatchObject({ accountId: acc.id, name: 'one', networks: ['net-a'], createdAt: NOW, revokedAt: null })
    expect((await keys.resolve(k1.key))?.id).toBe(k1.id)
    expect((await keys.setNetwork(k1.id, 'net-b', true)).networks.sort()).toEqual(['net-a', 'net-b'])
    // idempotent upsert
    expect((await keys.setNetwork(k1.id, 'net-b', true)).networks.sort()).toEqual(['net-a', 'net-b'])
    expect((await keys.setNetwork(k1.id, 'net-a', false)).networks).toEqual(['net-b'])
    expect(await keys.setLimits(k1.id, { creditsPerSecond: 5, creditsPerDay: 3_000_000_000 })).toMatchObject({
      creditsPerSecond: 5,
      creditsPerDay: 3_000_000_000,
    })
    await keys.create({ accountId: acc.id, name: 'two' }, NOW + 1)
    await expect(keys.create({ accountId: acc.id, name: 'three' }, NOW + 2)).rejects.toThrow()
    expect((await keys.revoke(k1.id, NOW + 5)).revokedAt).toBe(NOW + 5)
    expect((await keys.list({ accountId: acc.id })).map((k) => k.name)).toEqual(['two'])
    expect((await keys.list({ accountId: acc.id, includeRevoked: true })).map((k) => k.name)).toEqual(['one', 'two'])
  })

  it("keys: creations at the same moment never pass the plan's key limit (checked, inserted under one lock)", async () => {
    const { accounts, keys } = repos()
    const acc = await accounts.create({ email: 'race@example.com', plan: 'free' }, NOW) // maxKeys 2
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) => keys.create({ accountId: acc.id, name: `k${i}` }, NOW + i)),
    )
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(2)
    for (const r of results.filter((x) => x.status === 'rejected'))
      expect(String((r as PromiseRejectedResult).reason)).toMatch(/allows 2 API keys/)
    expect(await keys.list({ accountId: acc.id })).toHaveLength(2)
  })

  it('key snapshot: loads live keys with their plan and networks, and drops a revoked key on reload', async () => {
    const { accounts, keys } = repos()
    const acc = await accounts.create({ email: 's@example.com', plan: 'team' }, NOW)
    const k = await keys.create({ accountId: acc.id, name: 'snap', networks: ['net-b'] }, NOW)
    const snapshot = createKeySnapshot(opened.db, {
      plans: PLANS,
      pollMs: 60_000,
      loadSecurity: loadAllKeySecurity,
      onError: (err) => {
        throw err
      },
    })
    await snapshot.reload()
    const entry = snapshot.get(k.key)
    expect(entry).toBeDefined()
    expect(entry!.accountId).toBe(acc.id)
    expect([...entry!.networks!]).toEqual(['net-b'])
    await keys.revoke(k.id, NOW + 1)
    await snapshot.reload()
    expect(snapshot.get(k.key)).toBeUndefined()
  })

  it('key snapshot: a poll that read the keys before a revoke does not land after the reload that followed it', async () => {
    const { accounts, keys } = repos()
    const acc = await accounts.create({ email: 'race@example.com', plan: 'team' }, NOW)
    const k = await keys.create({ accountId: acc.id, name: 'race' }, NOW)
    // The first load stops after reading the keys, until released: a slow poll.
    let release: () => void = () => undefined
    let loads = 0
    const snapshot = createKeySnapshot(opened.db, {
      plans: PLANS,
      pollMs: 60_000,
      loadSecurity: async (db) => {
        if (++loads === 1) await new Promise<void>((r) => (release = r))
        return loadAllKeySecurity(db)
      },
      onError: (err) => {
        throw err
      },
    })
    const slow = snapshot.reload()
    await new Promise((r) => setTimeout(r, 50))
    await keys.revoke(k.id, NOW + 1)
    const after = snapshot.reload()
    release()
    await Promise.all([slow, after])
    expect(loads).toBe(2)
    expect(snapshot.get(k.key)).toBeUndefined()
  })

  it('passwords and dashboard sessions: a new password ends the sessions; expired sessions are deleted; deleting an account revokes keys and frees its email', async () => {
    const { accounts, keys } = repos()
    const creds = createCredentialsRepository(opened.db)
    const sessions = createSessionsRepository(opened.db)
    const acc = await accounts.create({ email: 'p@example.com', plan: 'team' }, NOW)
    await keys.create({ accountId: acc.id, name: 'k' }, NOW)
    expect(await creds.setPasswordHash(acc.id, 'scrypt$1', NOW)).toBe(true)
    expect(await creds.setPasswordHash('missing', 'scrypt$1', NOW)).toBe(false)
    expect(await creds.findByEmail('P@example.com')).toEqual({ accountId: acc.id, passwordHash: 'scrypt$1' })
    await sessions.insert({ idHash: 'h1', accountId: acc.id, csrfToken: 'c1', expiresAt: NOW + 1000 }, NOW)
    await sessions.insert({ idHash: 'h2', accountId: acc.id, csrfToken: 'c2', expiresAt: NOW + 10 }, NOW)
    await sessions.deleteExpired(NOW + 10)
    expect(await sessions.find('h2')).toBeUndefined()
    expect(await sessions.find('h1')).toEqual({
      idHash: 'h1',
      accountId: acc.id,
      csrfToken: 'c1',
      expiresAt: NOW + 1000,
    })
    expect(await creds.setPasswordHash(acc.id, 'scrypt$2', NOW + 1)).toBe(true)
    expect(await sessions.find('h1')).toBeUndefined()
    await sessions.insert({ idHash: 'h3', accountId: acc.id, csrfToken: 'c3', expiresAt: NOW + 1000 }, NOW)
    expect(await accounts.delete(acc.id, NOW + 2)).toEqual({ revokedKeys: 1 })
    expect(await sessions.find('h3')).toBeUndefined()
    expect(await creds.findByEmail('p@example.com')).toBeUndefined()
    expect((await accounts.create({ email: 'p@example.com', plan: 'free' }, NOW + 3)).email).toBe('p@example.com')
  })

  it('teams: a sign-up gets its personal team (owner); a shared team has its own plan row, members and roles; the last owner stays', async () => {
    const { accounts, keys } = repos()
    const teams = createTeamsRepository(opened.db)
    // Made a millisecond apart: lists ordered oldest first have no tie to break.
    const alice = await accounts.create({ email: 'alice@example.com', plan: 'free' }, NOW - 1)
    const bob = await accounts.create({ email: 'bob@example.com', plan: 'free' }, NOW)
    expect(await teams.ofAccount(alice.id)).toEqual([
      {
        team: { id: alice.id, name: 'alice@example.com', personal: true, plan: 'free', createdAt: NOW - 1 },
        role: 'owner',
      },
    ])
    const v0 = await readSettingsVersion(opened.db)
    const t = await teams.create({ name: '  Infra  ', ownerId: alice.id, plan: 'team' }, NOW + 1)
    expect(t).toMatchObject({ name: 'Infra', personal: false, plan: 'team' })
    expect(await readSettingsVersion(opened.db)).toBe(v0 + 1)
    // The team's billing row is not a person: not listed with the accounts, not found by an email.
    expect((await accounts.list()).map((a) => a.email)).toEqual(['alice@example.com', 'bob@example.com'])
    await teams.addMember(t.id, bob.id, 'developer', NOW + 2)
    await expect(teams.addMember(t.id, bob.id, 'viewer', NOW + 2)).rejects.toThrow(/already a member/)
    expect((await teams.ofAccount(bob.id)).map((m) => [m.team.name, m.role])).toEqual([
      ['bob@example.com', 'owner'],
      ['Infra', 'developer'],
    ])
    expect(await teams.roleOf(t.id, bob.id)).toBe('developer')
    expect(await teams.roleOf(t.id, 'nobody')).toBeUndefined()
    expect((await teams.members(t.id)).map((m) => [m.email, m.role])).toEqual([
      ['alice@example.com', 'owner'],
      ['bob@example.com', 'developer'],
    ])
    await expect(teams.setRole(t.id, alice.id, 'admin')).rejects.toThrow(/last owner/)
    await expect(teams.removeMember(t.id, alice.id)).rejects.toThrow(/last owner/)
    await expect(teams.setRole(t.id, bob.id, 'king')).rejects.toThrow(/unknown role/)
    await teams.setRole(t.id, bob.id, 'owner')
    await teams.setRole(t.id, alice.id, 'viewer') // another owner now
    await teams.removeMember(t.id, alice.id)
    expect(await teams.roleOf(t.id, alice.id)).toBeUndefined()
    await expect(teams.rename(t.id, 'evil\r\nBcc: x@example.com')).rejects.toThrow(/line breaks/)
    await teams.rename(t.id, 'Platform')
    expect((await teams.list()).map((x) => [x.name, x.members])).toEqual([
      ['alice@example.com', 1],
      ['bob@example.com', 1],
      ['Platform', 1],
    ])
    // A key moves between teams; the snapshot's plan follows the team.
    const k = await keys.create({ accountId: alice.id, name: 'mover' }, NOW)
    expect(await teams.moveKey(k.id, t.id)).toEqual({ from: alice.id })
    expect((await keys.list({ accountId: t.id })).map((x) => x.id)).toEqual([k.id])
    await expect(teams.moveKey(k.id, t.id)).rejects.toThrow(/already belongs/)
    await expect(teams.moveKey('nope', t.id)).rejects.toThrow(/key nope/)
    // Deleting: never a personal team; a shared one revokes its keys and ends every membership.
    await expect(teams.delete(alice.id, NOW + 3)).rejects.toThrow(/personal team/)
    expect(await teams.delete(t.id, NOW + 3)).toEqual({ revokedKeys: 1 })
    expect(await teams.get(t.id)).toBeUndefined()
    expect(await teams.roleOf(t.id, bob.id)).toBeUndefined()
    expect((await keys.get(k.id))?.revokedAt).toBe(NOW + 3)
    // Deleting an account takes it out of every team.
    const t2 = await teams.create({ name: 'Two', ownerId: bob.id, plan: 'free' }, NOW + 4)
    await teams.addMember(t2.id, alice.id, 'admin', NOW + 4)
    await accounts.delete(alice.id, NOW + 5)
    expect((await teams.members(t2.id)).map((m) => m.email)).toEqual(['bob@example.com'])
    expect(await teams.ofAccount(alice.id)).toEqual([])
  })

  it('usage readers: sums are numbers (not strings) for reports, the CLI day view and the limit seed', async () => {
    const { accounts, keys } = repos()
    const acc = await accounts.create({ email: 'u@example.com', plan: 'team' }, NOW)
    const k = await keys.create({ accountId: acc.id, name: 'u' }, NOW)
    const ledger = createUsageLedger(usageWriterFor(opened), 60_000, (err) => {
      throw err
    })
    ledger.record(
      { accountId: acc.id, keyId: k.id, network: 'net-a', method: 'eth_call', calls: 1, credits: 80, errors: 0 },
      NOW,
    )
    ledger.record(
      {
        accountId: acc.id,
        keyId: k.id,
        network: 'net-a',
        method: 'eth_call',
        calls: 1,
        credits: 80,
        errors: 1,
        errorKind: 'rpc:3',
      },
      NOW,
    )
    ledger.record(
      { accountId: acc.id, keyId: k.id, network: 'net-b', method: 'eth_chainId', calls: 1, credits: 0, errors: 0 },
      NOW - 3_600_000,
    )
    await ledger.flush()
    expect(await creditsUsedToday(opened.db, acc.id, NOW)).toBe(160)
    const seed = await creditsTodayByAccountAndKey(opened.db, NOW)
    expect(seed.accounts.get(acc.id)).toBe(160)
    expect(seed.keys.get(k.id)).toBe(160)
    const day = await queryUsage(opened.db, { day: '2026-03-01', by: 'method', accountId: acc.id })
    expect(day.rows).toEqual([
      { group: 'eth_call', calls: 2, credits: 160, errors: 1 },
      { group: 'eth_chainId', calls: 1, credits: 0, errors: 0 },
    ])
    const report = await usageReport(opened.db, { accountId: acc.id, range: '24h', dimension: 'network', nowMs: NOW })
    expect(report.totals).toEqual({ calls: 3, credits: 160, errors: 1 })
    expect(report.errors).toEqual([{ error: 'rpc:3', count: 1 }])
    expect(typeof report.rows[0]!.credits).toBe('number')
  })

  it('wallet records: account indexes, sessions upserted by origin, approvals decided once, activity ids from the identity column', async () => {
    const wallet = createWalletRepository(opened.db)
    const v0 = await wallet.version()
    expect(await wallet.nextAccountIndex()).toBe(0)
    await wallet.addAccount('0xAbC', 0, 'first', NOW)
    await wallet.addAccount('0xdef', 1, 'second', NOW)
    expect(await wallet.nextAccountIndex()).toBe(2)
    expect(await wallet.removeAccount('0xabc', NOW)).toBe(true)
    expect((await wallet.listAccounts()).map((a) => a.address)).toEqual(['0xdef'])
    await wallet.insertApproval({
      id: 'ap1',
      origin: 'https://dapp.example',
      kind: 'session',
      request: { a: 1 },
      createdAt: NOW,
      expiresAt: NOW + 60_000,
    })
    expect(
      await wallet.decideApproval(
        'ap1',
        { status: 'approved', decision: { accounts: ['0xdef'] }, by: 'console' },
        NOW + 1,
      ),
    ).toBe(true)
    expect(await wallet.decideApproval('ap1', { status: 'rejected', decision: null, by: 'cli' }, NOW + 2)).toBe(false)
    expect(await wallet.getApproval('ap1')).toMatchObject({
      status: 'approved',
      decision: { accounts: ['0xdef'] },
      decidedAt: NOW + 1,
    })
    expect(await wallet.version()).toBeGreaterThan(v0)
    const activity = createActivityRepository(opened.db)
    await activity.record({
      at: NOW,
      origin: 'https://dapp.example',
      kind: 'session',
      outcome: 'approved',
      summary: 'connected',
    })
    await activity.record({
      at: NOW + 1,
      origin: 'https://dapp.example',
      kind: 'personal_sign',
      outcome: 'signed',
      summary: 'signed',
    })
    const list = await activity.list()
    expect(list.map((e) => e.summary)).toEqual(['signed', 'connected'])
    expect(list[0]!.id).toBeGreaterThan(list[1]!.id)
  })
})
