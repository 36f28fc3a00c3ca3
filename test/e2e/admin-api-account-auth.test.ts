/**
 * The operator's side of account mail and two-factor log-in (docs/admin-api.md): confirm a sign-up's email, reset
 * two-factor log-in for a locked-out user (audited, their sessions ended), list their log-ins. Real app, real HTTP.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { listAudit } from '../../src/audit/repository.ts'
import { createTwoFactorRepository } from '../../src/accounts/two-factor-repository.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let server: TestServer
let api: ReturnType<typeof adminClient>

beforeAll(async () => {
  server = await startTestServer(
    { admin: { token: ADMIN_TOKEN }, dashboard: { confirmEmail: true, signupsPerHour: 1000 } },
    { parts: { admin: true, dashboard: true } },
  )
  api = adminClient(server.url)
}, 120_000)
afterAll(async () => server?.stop())

it('confirm, list sessions, reset two-factor log-in: each answered, audited, and effective', async () => {
  const address = `ops-${Date.now()}@example.com`
  const c = httpClient(server.url, { headers: { 'user-agent': 'Mozilla/5.0 (Windows NT 10.0) Firefox/130.0' } })
  expect((await c.signup(address, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
  expect((await api.get(`/accounts/${address}`)).body).toMatchObject({ emailConfirmedAt: null })
  expect((await c.submit('/keys', '/keys', { name: 'k' })).statusCode).toBe(403)
  const confirmed = await api.post(`/accounts/${address}/confirm`)
  expect(confirmed.status).toBe(200)
  expect(confirmed.body.emailConfirmedAt).toEqual(expect.any(Number))
  expect((await c.submit('/keys', '/keys', { name: 'k' })).statusCode).toBe(201)
  const sessions = (await api.get(`/accounts/${address}/sessions`)).body.sessions
  expect(sessions).toEqual([
    expect.objectContaining({ userAgent: expect.stringContaining('Firefox'), ip: '127.0.0.1' }),
  ])
  const id = confirmed.body.id as string
  const repo = createTwoFactorRepository(server.parts.database.db)
  await repo.setPending(id, 'JBSWY3DPEHPK3PXP', Date.now())
  await repo.enable(id, 1, [], Date.now())
  expect((await api.send('DELETE', `/accounts/${address}/two-factor`)).body).toEqual({ reset: true })
  expect(await repo.get(id)).toBeUndefined()
  expect((await c.get('/keys')).statusCode).toBe(303) // their sessions ended
  expect((await api.send('DELETE', `/accounts/${address}/two-factor`)).body).toEqual({ reset: false })
  const audit = (await listAudit(server.parts.database.db, { limit: 100 })).filter((r) => r.target === id)
  expect(audit.map((r) => r.summary)).toEqual(
    expect.arrayContaining(['email confirmed by an operator', 'two-factor log-in reset']),
  )
})
