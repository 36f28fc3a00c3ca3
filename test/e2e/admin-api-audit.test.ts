/**
 * The audit as one list and bounded (docs/admin-api.md, "Audit"): dashboard changes listed by the admin API next to
 * its own calls, a flood of bad tokens kept to one row per source IP per minute with a count, and the retention
 * (`admin.auditRetentionDays`) pruning in bounded runs. Real app, real HTTP, real SQLite.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRefusedAudit, MAX_SOURCES, REFUSAL_WINDOW_MS } from '../../src/admin/refused-audit.ts'
import { listAudit, recordAudit } from '../../src/audit/repository.ts'
import { startAuditRetention } from '../../src/audit/retention.ts'
import { deleteOlderThan } from '../../src/db/prune.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { waitFor } from './helpers/process.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let server: TestServer
let api: ReturnType<typeof adminClient>
const DAY = 86_400_000

beforeAll(async () => {
  server = await startTestServer(
    { admin: { token: ADMIN_TOKEN }, dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 } },
    { parts: { admin: true, dashboard: true } },
  )
  api = adminClient(server.url)
}, 120_000)
afterAll(async () => server?.stop())

const db = () => server.parts.database.db
const rowsOf = async (actor: string) => (await listAudit(db(), { limit: 1000 })).filter((r) => r.actor === actor)

describe('one audit, bounded', () => {
  it('the API lists the dashboard changes next to its own calls', async () => {
    const c = httpClient(server.url)
    const address = `faces-${Date.now()}@example.com`
    expect((await c.signup(address, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    expect((await c.submit('/keys', '/keys', { name: 'from the dashboard' })).statusCode).toBe(201)
    const account = (await api.get(`/accounts/${address}`)).body
    await waitFor(
      async () => {
        const { entries } = (await api.get(`/audit?target=${account.id}`)).body
        return entries.some((e: { actor: string }) => e.actor === `dashboard:${account.id}`)
      },
      5000,
      'the sign-up in the audit',
    )
    const { entries } = (await api.get('/audit?limit=20')).body
    expect(entries).toContainEqual(
      expect.objectContaining({ actor: `dashboard:${account.id}`, action: 'dashboard POST /keys', status: 201 }),
    )
    expect(entries).toContainEqual(expect.objectContaining({ actor: 'admin-token', action: 'GET /admin/v1/audit' }))
  })

  it('reads that name an account by its email are audited under its id', async () => {
    const address = `by-email-${Date.now()}@example.com`
    const created = await api.post('/accounts', { email: address })
    expect(created.status).toBe(201)
    const id = created.body.id as string
    for (const path of [`/accounts/${address}`, `/accounts/${address}/usage`, `/keys?account=${address}`])
      expect((await api.get(path)).status).toBe(200)
    const { entries } = (await api.get(`/audit?target=${id}&limit=50`)).body
    expect(entries.map((e: { action: string }) => e.action)).toEqual(
      expect.arrayContaining([
        'GET /admin/v1/accounts/:id',
        'GET /admin/v1/accounts/:id/usage',
        'GET /admin/v1/keys',
        'POST /admin/v1/accounts',
      ]),
    )
    expect((await api.get(`/audit?target=${address}`)).body.entries).toEqual([])
  })

  it('an account disabled through the API is logged out of the dashboard and refused at log-in', async () => {
    const c = httpClient(server.url)
    const address = `disabled-${Date.now()}@example.com`
    expect((await c.signup(address, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
    expect((await c.get('/keys')).statusCode).toBe(200)
    expect((await api.post(`/accounts/${address}/disable`)).status).toBe(200)
    expect((await c.get('/keys')).headers.location).toBe('/login?disabled=1')
    const again = await httpClient(server.url).login(address, 'Tr0ub4dor&3-horse-staple')
    expect([again.statusCode, again.body.includes('This account is disabled')]).toEqual([403, true])
  })

  it('a flood of bad tokens from one address is one row a minute, not a row a call', async () => {
    const before = (await rowsOf('anonymous')).length
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        adminClient(server.url, i % 2 ? null : 'wrong-token-wrong-token').get('/accounts'),
      ),
    )
    // Past admin.tokenFailuresPerMinute (10) wrong tokens, the address is answered 429: audited the same way.
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([401, 403, 429]))
    const rows = await rowsOf('anonymous')
    expect(rows.length - before).toBe(1)
    expect(rows[0]!.summary).toMatch(/; 1 refused call from \S+ in this minute$/)
  })

  it('the calls after the first in a minute are counted into its row when the minute ends', async () => {
    let now = Date.now()
    const refused = createRefusedAudit(db(), { clock: () => now, onError: (e) => expect.fail(e.message), timer: false })
    const entry = () => ({ at: now, actor: 'flood-test', action: 'GET /admin/v1/accounts', target: null, summary: '' })
    for (let i = 0; i < 50; i++) await refused.record('203.0.113.5', { ...entry(), status: 403 })
    await refused.record('198.51.100.7', { ...entry(), status: 401 })
    now += REFUSAL_WINDOW_MS - 1
    await refused.flush()
    expect((await rowsOf('flood-test')).map((r) => r.summary).sort()).toEqual([
      '; 1 refused call from 198.51.100.7 in this minute',
      '; 1 refused call from 203.0.113.5 in this minute',
    ])
    await refused.record('203.0.113.5', { ...entry(), status: 403 })
    now += 1
    await refused.flush()
    const summaries = (await rowsOf('flood-test')).map((r) => r.summary)
    expect(summaries).toHaveLength(2)
    expect(summaries).toContain('; 51 refused calls from 203.0.113.5 in this minute')
    // The next minute opens a new row.
    await refused.record('203.0.113.5', { ...entry(), status: 403 })
    await refused.stop()
    expect(await rowsOf('flood-test')).toHaveLength(3)
  })

  it('rows older than auditRetentionDays are pruned in bounded runs; newer ones stay', async () => {
    expect(server.app.config.admin.auditRetentionDays).toBe(90)
    const now = Date.now()
    const entry = { actor: 'retention-test', action: 'cli key revoke', target: null, summary: '', status: 200 }
    for (let i = 0; i < 25; i++) await recordAudit(db(), { ...entry, at: now - 91 * DAY - i })
    await recordAudit(db(), { ...entry, at: now - 89 * DAY })
    const cutoff = now - 90 * DAY
    expect(await deleteOlderThan(db(), { table: 'admin_audit', column: 'at', cutoff, maxRows: 10 })).toEqual({
      deleted: 10,
      more: true,
    })
    expect(await rowsOf('retention-test')).toHaveLength(16)
    const retention = startAuditRetention(db(), {
      retentionDays: 90,
      clock: () => now,
      onError: (err) => expect.fail(String(err)),
      everyMs: 20,
      maxRows: 10,
    })
    try {
      await waitFor(async () => (await rowsOf('retention-test')).length === 1, 10_000, 'the old rows pruned')
    } finally {
      await retention.stop()
    }
    expect((await rowsOf('retention-test'))[0]!.at).toBe(now - 89 * DAY)
  })
})

describe('wrong tokens are slowed per address, and the audit stays bounded behind a proxy', () => {
  let proxied: TestServer
  beforeAll(async () => {
    proxied = await startTestServer(
      { admin: { token: ADMIN_TOKEN, tokenFailuresPerMinute: 3 }, gateway: { trustProxy: true } },
      { parts: { admin: true } },
    )
  }, 120_000)
  afterAll(async () => proxied?.stop())
  const from = (address: string, token: string | null = ADMIN_TOKEN) =>
    adminClient(proxied.url, token, { 'x-forwarded-for': address })

  it('after 3 wrong tokens an address gets 429 with Retry-After, the right token too; others are served', async () => {
    for (let i = 0; i < 3; i++) expect((await from('203.0.113.9', `${ADMIN_TOKEN}${i}`).get('/plans')).status).toBe(403)
    const refused = await from('203.0.113.9', `${ADMIN_TOKEN}x`).get('/plans')
    expect([refused.status, refused.body.error.code]).toEqual([429, 'TOO_MANY_ATTEMPTS'])
    const retryAfter = Number(refused.headers['retry-after'])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(refused.body.error.message).toBe(
      `too many wrong admin tokens from your address; try again in ${retryAfter} s`,
    )
    expect((await from('203.0.113.9').get('/plans')).status).toBe(429)
    // A missing token is no guess: another address without one is 401, then served with the token.
    expect((await from('198.51.100.20', null).get('/plans')).status).toBe(401)
    expect((await from('198.51.100.20').get('/plans')).status).toBe(200)
  })

  it('a spray of forged X-Forwarded-For addresses adds at most one row per address up to a cap, then one', async () => {
    const db = proxied.parts.database.db
    const count = async () => (await listAudit(db, { limit: 1000 })).filter((r) => r.actor === 'anonymous').length
    const before = await count()
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => from(`10.${i >> 8}.${i & 255}.7`, 'wrong-token-wrong-token').get('/plans')),
    )
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([403]))
    expect((await count()) - before).toBeLessThanOrEqual(MAX_SOURCES + 1)
  })
})
