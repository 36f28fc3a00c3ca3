/**
 * Two dashboard replicas on one PostgreSQL (as behind a balancer, docs/deploy.md): a member removed on one replica
 * is refused on the other at their next request, because the membership is read from the shared database at every
 * request (src/dashboard/middleware/team.ts). Measured: the time from the removal's answer to the first refusal.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../src/db/database.ts'
import { buildDashboardTestApp, httpClient, type DashboardTestApp } from './helpers/dashboard.ts'
import { createPgTestSchema, describeWithServices, type PgTestSchema } from '../support/services.ts'
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'

describeWithServices(['postgres'], 'teams on two replicas sharing PostgreSQL', () => {
  let schema: PgTestSchema
  let databases: OpenedDatabase[] = []
  let replicas: DashboardTestApp[] = []
  let inbox: SmtpInbox

  beforeAll(async () => {
    schema = await createPgTestSchema('teams')
    inbox = await startSmtpInbox()
    // One pool per replica, as two processes would have.
    databases = [
      await openDatabase({ url: schema.url, file: '', poolSize: 4 }),
      await openDatabase({ url: schema.url, file: '', poolSize: 4 }),
    ]
    const dashboard = { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 }
    replicas = await Promise.all(
      databases.map((database) =>
        buildDashboardTestApp({ listen: true, database, mail: { smtp: inbox.config }, dashboard }),
      ),
    )
  })
  afterAll(async () => {
    for (const r of replicas) await r.close()
    for (const d of databases) await d.close()
    await inbox?.close()
    await schema?.drop()
  })

  it('a member removed on replica A is refused on replica B within a second (measured)', async () => {
    const [a, b] = replicas as [DashboardTestApp, DashboardTestApp]
    const alice = httpClient(a.url)
    const bob = httpClient(b.url)
    expect((await alice.signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    expect((await bob.signup('bob@example.com', PASSWORD)).statusCode).toBe(303)
    expect((await alice.submit('/team', '/teams', { name: 'Shared' })).statusCode).toBe(303)
    const created = await alice.submit('/keys', '/keys', { name: 'shared' })
    const keyId = /action="\/keys\/([A-Za-z0-9_-]+)\/rename"/.exec(created.body)![1]!
    expect(
      (await alice.submit('/team', '/team/invite', { email: 'bob@example.com', role: 'developer' })).statusCode,
    ).toBe(303)
    const path = new URL(await inbox.nextLink('bob@example.com', '/invite/')).pathname
    expect((await bob.submit(path, `${path}/accept`, {})).statusCode).toBe(303)
    expect((await bob.get(`/keys/${keyId}`)).statusCode).toBe(200)
    const bobId = /\/team\/members\/([0-9a-f-]{36})\/remove/.exec((await alice.get('/team')).body)![1]!

    expect((await alice.submit('/team', `/team/members/${bobId}/remove`, {})).statusCode).toBe(303)
    const removedAt = performance.now()
    let refusedAfterMs = Number.POSITIVE_INFINITY
    while (performance.now() - removedAt < 2000) {
      if ((await bob.get(`/keys/${keyId}`)).statusCode === 404) {
        refusedAfterMs = performance.now() - removedAt
        break
      }
    }
    console.log(`removal on replica A refused on replica B after ${refusedAfterMs.toFixed(1)} ms`)
    expect(refusedAfterMs).toBeLessThan(1000)
  })
})
