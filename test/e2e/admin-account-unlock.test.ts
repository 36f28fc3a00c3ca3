/**
 * Unlocking an account locked out by failed log-ins (docs/admin-api.md): the admin API clears the email's window in
 * the process that runs the dashboard (no Redis), and `chaingate account unlock` clears it in Redis, where every
 * replica counts. Real app, real HTTP; the failed log-ins come from another client address than the user's (behind a
 * trusted proxy), so only the email's window stands between the user and a log-in.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { listAudit } from '../../src/audit/repository.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { runCli, writeConfig } from './helpers/process.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
const LIMIT = 3

let server: TestServer | undefined
const dirs: string[] = []
afterEach(async () => {
  await server?.stop()
  server = undefined
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const start = (extra: Record<string, unknown> = {}) =>
  startTestServer(
    {
      admin: { token: ADMIN_TOKEN },
      gateway: { trustProxy: '127.0.0.1' },
      dashboard: { loginAttemptsPerMinute: LIMIT, signupsPerHour: 1000 },
      ...extra,
    },
    { parts: { admin: true, dashboard: true } },
  )

/** Signs the user up (from their own address), then locks the email by wrong passwords from another address. */
async function lockedUser(url: string) {
  const email = `locked-${randomBytes(4).toString('hex')}@example.com`
  const user = httpClient(url, { headers: { 'x-forwarded-for': '198.51.100.7' } })
  expect((await user.submit('/signup', '/signup', { email, password: PASSWORD })).statusCode).toBe(303)
  const attacker = httpClient(url, { headers: { 'x-forwarded-for': '203.0.113.9' } })
  for (let i = 0; i < LIMIT; i++) expect((await attacker.login(email, 'wrong-password')).statusCode).toBe(401)
  expect((await attacker.login(email, 'wrong-password')).statusCode).toBe(429)
  // The right password from the user's own address is refused too: the email is locked.
  expect((await user.login(email, PASSWORD)).statusCode).toBe(429)
  return { email, user }
}

describe('POST /admin/v1/accounts/:id/unlock', () => {
  it('clears the failed log-ins of the process that runs the dashboard: the user logs in at once; audited', async () => {
    server = await start()
    const api = adminClient(server.url)
    const { email, user } = await lockedUser(server.url)
    const unlocked = await api.post(`/accounts/${email}/unlock`)
    expect(unlocked.status).toBe(200)
    expect(unlocked.body).toEqual({ cleared: true, scope: 'process' })
    const login = await user.login(email, PASSWORD)
    expect(login.statusCode).toBe(303)
    expect((await user.get('/keys')).statusCode).toBe(200)
    expect((await api.post(`/accounts/${email}/unlock`)).body).toEqual({ cleared: false, scope: 'process' })
    expect((await api.post('/accounts/nobody@example.com/unlock')).status).toBe(404)
    const id = (await api.get(`/accounts/${email}`)).body.id as string
    const audit = (await listAudit(server.parts.database.db, { limit: 100 })).filter((r) => r.target === id)
    expect(audit.map((r) => r.summary)).toContain('log-ins unlocked (this process)')
  })
})

describe('chaingate account unlock', () => {
  it('without Redis changes nothing and points at the admin API', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaingate-unlock-'))
    dirs.push(dir)
    const file = writeConfig(dir, 'chaingate.yaml', { dataDir: dir })
    expect((await runCli(['account', 'create', '--email', 'ada@example.com', '--config', file])).code).toBe(0)
    const out = await runCli(['account', 'unlock', 'ada@example.com', '--config', file])
    expect(out.code).not.toBe(0)
    expect(out.stderr).toMatch(/without redis\.url .*POST \/admin\/v1\/accounts\/\S+\/unlock/s)
  }, 60_000)
})

describeWithServices(['redis'], 'chaingate account unlock on Redis', () => {
  it('clears the window every replica counts in: the user logs in at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaingate-unlock-'))
    dirs.push(dir)
    const redis = { url: redisUrl, keyPrefix: `test-unlock-${randomBytes(4).toString('hex')}:` }
    server = await start({ dataDir: dir, redis })
    const { email, user } = await lockedUser(server.url)
    const file = writeConfig(dir, 'chaingate.yaml', { dataDir: dir, redis })
    const out = await runCli(['account', 'unlock', email, '--config', file, '--json'], { timeoutMs: 60_000 })
    expect(out.code, out.stderr).toBe(0)
    expect(out.json()).toMatchObject({ cleared: true, scope: 'redis' })
    expect((await user.login(email, PASSWORD)).statusCode).toBe(303)
    const audit = await listAudit(server.parts.database.db, { limit: 100 })
    expect(audit.map((r) => r.action)).toContain('cli account unlock')
  }, 90_000)
})
