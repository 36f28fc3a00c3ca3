/**
 * Teams in the admin API (docs/admin-api.md, "Teams"): list teams and members, move a key to a team (audited, the
 * gateway then serves the key on the new team's plan). Real app, real HTTP, real SQLite.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { listAudit } from '../../src/audit/repository.ts'
import { ADMIN_TOKEN, adminClient } from './helpers/admin.ts'
import { httpClient } from './helpers/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'

let server: TestServer
let api: ReturnType<typeof adminClient>

beforeAll(async () => {
  server = await startTestServer(
    { admin: { token: ADMIN_TOKEN }, dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 } },
    { parts: { admin: true, dashboard: true } },
  )
  api = adminClient(server.url)
}, 120_000)
afterAll(async () => server?.stop())

it('lists teams and members; moves a key to a team, audited; unknown ones answer 404', async () => {
  const owner = httpClient(server.url)
  const address = `team-owner-${Date.now()}@example.com`
  expect((await owner.signup(address, 'Tr0ub4dor&3-horse-staple')).statusCode).toBe(303)
  const created = await owner.submit('/keys', '/keys', { name: 'to move' })
  expect(created.statusCode).toBe(201)
  const keyId = /action="\/keys\/([A-Za-z0-9_-]+)\/rename"/.exec(created.body)![1]!
  expect((await owner.submit('/team', '/teams', { name: 'Ops' })).statusCode).toBe(303)
  const { teams } = (await api.get('/teams')).body
  const personal = teams.find((t: { name: string }) => t.name === address)
  const ops = teams.find((t: { name: string }) => t.name === 'Ops')
  expect(personal).toMatchObject({ personal: true, members: 1 })
  expect(ops).toMatchObject({ personal: false, members: 1 })
  expect((await api.get(`/teams/${ops.id}/members`)).body.members).toEqual([
    expect.objectContaining({ email: address, role: 'owner' }),
  ])
  const moved = await api.post(`/keys/${keyId}/move`, { teamId: ops.id })
  expect(moved.status, moved.text).toBe(200)
  expect(moved.body).toEqual({ keyId, from: personal.id, teamId: ops.id })
  expect((await api.get(`/keys/${keyId}`)).body.accountId).toBe(ops.id)
  expect((await owner.get('/keys')).body).toContain('to move') // the owner is in Ops, its current team
  expect((await api.post(`/keys/${keyId}/move`, { teamId: 'nope' })).status).toBe(404)
  expect((await api.get('/teams/nope/members')).status).toBe(404)
  const audit = await listAudit(server.parts.database.db, { limit: 50, target: keyId })
  expect(audit).toContainEqual(
    expect.objectContaining({ actor: 'admin-token', summary: `key moved from team ${personal.id} to team ${ops.id}` }),
  )
})
