/**
 * The dashboard's changes in the admin audit (docs/admin-api.md, "Audit") and disabled accounts refused at log-in
 * (docs/dashboard.md): a real dashboard over HTTP on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { sql } from 'kysely'
import { createAccountsRepository } from '../../src/accounts/repository.ts'
import { listAudit } from '../../src/audit/repository.ts'
import { buildDashboardTestApp, csrfOf, httpClient, TEST_PLANS, type DashboardTestApp } from './helpers/dashboard.ts'
import { waitFor } from './helpers/process.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
let t: DashboardTestApp
let n = 0
const email = (what: string) => `${what}-${++n}@example.com`

beforeAll(async () => {
  t = await buildDashboardTestApp({ listen: true, dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 } })
})
afterAll(async () => t?.close())

const accounts = () => createAccountsRepository(t.opened.db, TEST_PLANS)

async function signedUp(address = email('user')) {
  const c = httpClient(t.url)
  expect((await c.signup(address, PASSWORD)).statusCode).toBe(303)
  const account = (await accounts().findByEmail(address))!
  return Object.assign(c, { email: address, account })
}

async function createKey(c: ReturnType<typeof httpClient>, name: string) {
  const res = await c.submit('/keys', '/keys', { name })
  expect(res.statusCode, res.body).toBe(201)
  const key = /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(res.body)![1]!
  const id = /action="\/keys\/([A-Za-z0-9_-]+)\/rename"/.exec(res.body)![1]!
  return { key, id }
}

/** The audit rows of one actor, oldest first, once `count` are there (they are written after the answer). */
async function auditOf(actor: string, count: number) {
  let rows: Awaited<ReturnType<typeof listAudit>> = []
  await waitFor(
    async () => {
      rows = (await listAudit(t.opened.db, { limit: 500 })).filter((r) => r.actor === actor).reverse()
      return rows.length >= count
    },
    5000,
    `${count} audit rows of ${actor}`,
  )
  return rows
}

describe('dashboard changes are audited', () => {
  test('each key and password change is one row as dashboard:<account id>; never a key or a secret', async () => {
    const c = await signedUp()
    const actor = `dashboard:${c.account.id}`
    const { key, id } = await createKey(c, 'prod')
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/rename`, { name: 'production' })).statusCode).toBe(303)
    const limits = { creditsPerSecond: '50', creditsPerDay: '1000' }
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/limits`, limits)).statusCode).toBe(303)
    const secret = await c.submit(`/keys/${id}`, `/keys/${id}/secret`, {})
    expect(secret.statusCode).toBe(200)
    const newSecret = /id="new-secret" type="text" readonly value="([^"]+)"/.exec(secret.body)![1]!
    // A refused form (no confirmation) is recorded with its status.
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/revoke`, {})).statusCode).toBe(400)
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/revoke`, { confirm: 'yes' })).statusCode).toBe(303)
    const page = await c.get('/account')
    const pw = await c.post('/account/password', {
      _csrf: csrfOf(page.body),
      currentPassword: PASSWORD,
      newPassword: 'another long passphrase 77',
      confirmPassword: 'another long passphrase 77',
    })
    expect(pw.statusCode).toBe(303)

    const rows = await auditOf(actor, 8)
    // The test clock stands still: all rows have the same time, so compare them as a set.
    const sorted = (a: unknown[]) => a.map((x) => JSON.stringify(x)).sort()
    expect(sorted(rows.map((r) => [r.action, r.target, r.status]))).toEqual(
      sorted([
        ['dashboard POST /signup', c.account.id, 303],
        ['dashboard POST /keys', id, 201],
        ['dashboard POST /keys/:id/rename', id, 303],
        ['dashboard POST /keys/:id/limits', id, 303],
        ['dashboard POST /keys/:id/secret', id, 200],
        ['dashboard POST /keys/:id/revoke', id, 400],
        ['dashboard POST /keys/:id/revoke', id, 303],
        ['dashboard POST /account/password', c.account.id, 303],
      ]),
    )
    const summaries = rows.map((r) => r.summary)
    expect(summaries).toContain('key renamed to "production"')
    expect(summaries).toContain('key limits: 50 credits/s, 1000 credits/day')
    expect(summaries).toContain('refused (400): key revoked')
    expect(summaries).toContain('key created: "prod"')
    const all = JSON.stringify(rows)
    expect(all).not.toContain(key)
    expect(all).not.toContain(PASSWORD)
    expect(all).not.toContain('another long passphrase')
    expect(all).not.toContain(newSecret)
    // Reading pages is not a change.
    expect(rows.some((r) => r.action.includes('GET'))).toBe(false)
  })

  test('an operator changing a plan is recorded against the account changed', async () => {
    const op = await signedUp(email('operator'))
    await accounts().setRole(op.account.id, 'operator')
    const user = await signedUp()
    const res = await op.submit('/accounts', `/accounts/${user.account.id}/plan`, { plan: 'free' })
    expect(res.statusCode).toBe(303)
    const rows = await auditOf(`dashboard:${op.account.id}`, 2)
    expect(rows.find((r) => r.action.includes('plan'))).toMatchObject({
      action: 'dashboard POST /accounts/:id/plan',
      target: user.account.id,
      summary: `plan set to free (${user.email})`,
      status: 303,
    })
  })

  test('a failed audit write does not change the answer (it is written after the answer is sent)', async () => {
    const c = await signedUp()
    const { id } = await createKey(c, 'k')
    const lines = t.logLines.length
    await sql`ALTER TABLE admin_audit RENAME TO admin_audit_away`.execute(t.opened.db)
    try {
      const res = await c.submit(`/keys/${id}`, `/keys/${id}/rename`, { name: 'still works' })
      expect(res.statusCode).toBe(303)
      expect(res.headers.location).toBe(`/keys/${id}?done=renamed`)
      const failed = () => t.logLines.slice(lines).some((l) => l.includes('dashboard audit not written'))
      await waitFor(failed, 5000, 'the failed audit write logged')
    } finally {
      await sql`ALTER TABLE admin_audit_away RENAME TO admin_audit`.execute(t.opened.db)
    }
  })
})

describe('a disabled account', () => {
  test('cannot log in (told only after the right password) and its open session ends at its next request', async () => {
    const c = await signedUp()
    const other = httpClient(t.url)
    expect((await other.login(c.email, PASSWORD)).statusCode).toBe(303)
    expect((await c.get('/keys')).statusCode).toBe(200)
    await accounts().setDisabled(c.account.id, true, t.clock.now())

    const page = await c.get('/keys')
    expect(page.statusCode).toBe(303)
    expect(page.headers.location).toBe('/login?disabled=1')
    const told = await c.get('/login?disabled=1')
    expect(told.body).toContain('This account is disabled')
    // The session is gone: the cookie is cleared and the session row deleted, so it does not come back.
    expect((await c.get('/keys')).headers.location).toMatch(/^\/login\?next=/)
    const post = await other.post('/keys', { _csrf: 'x', name: 'n' })
    expect(post.statusCode).toBe(403)
    expect(post.body).toContain('This account is disabled')

    const fresh = httpClient(t.url)
    const wrong = await fresh.login(c.email, 'not the password at all')
    expect(wrong.statusCode).toBe(401)
    expect(wrong.body).not.toContain('disabled')
    const right = await fresh.login(c.email, PASSWORD)
    expect(right.statusCode).toBe(403)
    expect(right.body).toContain('This account is disabled')
    expect((await fresh.get('/keys')).statusCode).toBe(303)

    await accounts().setDisabled(c.account.id, false, t.clock.now())
    expect((await fresh.login(c.email, PASSWORD)).statusCode).toBe(303)
    expect((await fresh.get('/keys')).statusCode).toBe(200)
  })
})
