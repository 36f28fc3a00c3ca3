/**
 * Control and invisible format characters (issue 26, 7): refused in an email wherever one enters (the admin API,
 * `chaingate account create`, the dashboard's sign-up), and escaped in what the CLI prints, so rows written before
 * (or by another path) cannot inject terminal escapes into `chaingate account list` or `chaingate audit`.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordAudit } from '../../src/audit/repository.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { cleanupProcesses, runCli } from './helpers/process.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

/** What a terminal would act on or hide: C0 but newline, DEL, C1, and the format characters. */
const RAW = /[\0-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/

const BAD = [
  'dev@localhost\u0000',
  '\u001b[31mred@example.com',
  'bell\u0007@example.com',
  'zero\u200bwidth@example.com',
  'rtl\u202e@example.com',
  'isolate\u2066@example.com',
  'bom\ufeffin@example.com',
]

let server: TestServer
let api: ReturnType<typeof adminClient>
let cli: (...args: string[]) => ReturnType<typeof runCli>

beforeAll(async () => {
  server = await startTestServer(
    { admin: { token: ADMIN_TOKEN }, dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 } },
    { parts: { admin: true, dashboard: true } },
  )
  api = adminClient(server.url)
  cli = (...args) => runCli([...args, '--data-dir', server.app.config.dataDir], { timeoutMs: 60_000 })
}, 120_000)
afterAll(async () => {
  await cleanupProcesses()
  await server?.stop()
})

describe('emails with control or format characters', { timeout: 120_000 }, () => {
  it('are refused by the admin API, the CLI and the dashboard sign-up', async () => {
    for (const email of BAD) {
      const r = await api.post('/accounts', { email })
      expect([r.status, r.body.error.code, r.body.error.field], JSON.stringify(email)).toEqual([
        422,
        'INVALID_INPUT',
        'email',
      ])
      const page = await httpClient(server.url).submit('/signup', '/signup', {
        email,
        password: 'Tr0ub4dor&3-horse-staple',
      })
      expect([page.statusCode, page.body.includes('Enter a valid email address.')]).toEqual([400, true])
    }
    const created = await cli('account', 'create', '--email', 'bell\u0007@example.com')
    expect(created.code).toBe(1)
    expect(created.stderr).toContain('control or invisible')
    expect(created.stderr).not.toMatch(RAW)
    const accounts = (await api.get('/accounts')).body.accounts as { email: string }[]
    expect(accounts.filter((a) => RAW.test(a.email))).toEqual([])
  })

  it('already stored ones are printed escaped by `account list` and `audit`, text and JSON', async () => {
    const db = server.parts.database.db
    const email = '\u001b]0;owned\u0007legacy\u202e@example.com'
    const id = randomUUID()
    await db.insertInto('accounts').values({ id, email, plan: 'free', role: 'user', created_at: Date.now() }).execute()
    await recordAudit(db, {
      at: Date.now(),
      actor: 'cli',
      action: 'cli account create',
      target: id,
      summary: `created ${email}\u001b[2J`,
      status: 200,
    })
    const [list, listJson, audit, auditJson] = await Promise.all([
      cli('account', 'list'),
      cli('account', 'list', '--json'),
      cli('audit', '--limit', '5'),
      cli('audit', '--limit', '5', '--json'),
    ])
    for (const r of [list, listJson, audit, auditJson]) {
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).not.toMatch(RAW)
    }
    expect(list.stdout).toContain('\\u001b]0;owned\\u0007legacy\\u202e@example.com')
    expect(audit.stdout).toContain('\\u001b[2J')
    // JSON stays JSON, with the stored values.
    expect(listJson.json()).toContainEqual(expect.objectContaining({ id, email }))
    expect(auditJson.json()[0]).toMatchObject({ target: id, summary: `created ${email}\u001b[2J` })
  })
})
