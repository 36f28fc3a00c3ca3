/**
 * Teams in the dashboard (docs/dashboard.md, "Teams") over real HTTP on a real SQLite file, invitations through a
 * real SMTP server: invite, join, roles, removal, and the attacks of issue 31 (IDOR across teams on keys, usage,
 * explorer and alerts; role escalation; CSRF on every team form; a link used by another account or twice; header
 * injection through a team name).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { createAccountsRepository } from '../../src/accounts/repository.ts'
import { listAudit } from '../../src/audit/repository.ts'
import { buildDashboardTestApp, httpClient, TEST_PLANS, type DashboardTestApp } from './helpers/dashboard.ts'
import { linkIn, startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox.ts'
import { waitFor } from './helpers/process.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
let t: DashboardTestApp
let inbox: SmtpInbox
let n = 0
const email = (what: string) => `${what}-${++n}@example.com`

beforeAll(async () => {
  inbox = await startSmtpInbox()
  t = await buildDashboardTestApp({
    listen: true,
    mail: { smtp: inbox.config },
    dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 },
  })
})
afterAll(async () => {
  await t?.close()
  await inbox?.close()
})

async function signedUp(address = email('user')) {
  const c = httpClient(t.url)
  expect((await c.signup(address, PASSWORD)).statusCode).toBe(303)
  const account = (await createAccountsRepository(t.opened.db, TEST_PLANS).findByEmail(address))!
  return Object.assign(c, { email: address, account })
}
type Client = Awaited<ReturnType<typeof signedUp>>

async function createKey(c: Client, name: string) {
  const res = await c.submit('/keys', '/keys', { name })
  expect(res.statusCode, res.body).toBe(201)
  return /action="\/keys\/([A-Za-z0-9_-]+)\/rename"/.exec(res.body)![1]!
}

async function createTeam(owner: Client, name: string) {
  const res = await owner.submit('/team', '/teams', { name })
  expect(res.statusCode, res.body).toBe(303)
  return /value="([0-9a-f-]{36})" selected/.exec((await owner.get('/team')).body)?.[1] ?? ''
}

/** Invites `who` with `role` and has them accept through the link of the mail that arrived; returns both. */
async function join(owner: Client, who: Client, role: string) {
  expect((await owner.submit('/team', '/team/invite', { email: who.email, role })).statusCode).toBe(303)
  const mail = await inbox.next(who.email, { containing: '/invite/' })
  const path = new URL(linkIn(mail, '/invite/')).pathname
  const page = await who.get(path)
  expect(page.statusCode).toBe(200)
  expect(page.body).toContain(`as\n      <strong>${role}</strong>`)
  const res = await who.submit(path, `${path}/accept`, {})
  expect(res.statusCode, res.body).toBe(303)
  return { path, mail }
}

describe('teams', () => {
  test('invite by email through SMTP, join with a role, see the team keys; removal ends access at the next request', async () => {
    const alice = await signedUp()
    const bob = await signedUp()
    const teamId = await createTeam(alice, 'Infra')
    const keyId = await createKey(alice, 'shared-key')
    const { path, mail } = await join(alice, bob, 'developer')
    expect(mail.subject).toMatch(/Invitation.*Infra/)
    // Bob now acts for the team: its key is on his list and page; his own team stays reachable by the switcher.
    expect((await bob.get('/keys')).body).toContain('shared-key')
    expect((await bob.get(`/keys/${keyId}`)).statusCode).toBe(200)
    expect((await bob.get('/team')).body).toMatch(/developer/)
    // The link was single use.
    expect((await bob.get(path)).statusCode).toBe(404)
    // Removed: the same open session no longer reaches the team or its key.
    expect((await alice.submit('/team', `/team/members/${bob.account.id}/remove`, {})).statusCode).toBe(303)
    expect((await bob.get(`/keys/${keyId}`)).statusCode).toBe(404)
    expect((await bob.get('/keys')).body).not.toContain('shared-key')
    expect((await bob.submit('/keys', '/teams/switch', { team: teamId })).statusCode).toBe(404)
    // Audited with who did it.
    await waitFor(
      async () =>
        (await listAudit(t.opened.db, { limit: 500 })).some(
          (r) => r.actor === `dashboard:${alice.account.id}` && r.summary === `member ${bob.account.id} removed`,
        ),
      5000,
      'the removal in the audit',
    )
  })

  test('IDOR: another team’s key, usage, explorer and alerts answer like nothing is there', async () => {
    const alice = await signedUp()
    const mallory = await signedUp()
    const keyId = await createKey(alice, 'private')
    expect((await mallory.get(`/keys/${keyId}`)).statusCode).toBe(404)
    expect((await mallory.get(`/keys/${keyId}?method=eth_call&page=1`)).statusCode).toBe(404) // the explorer
    expect((await mallory.get(`/usage?key=${keyId}`)).statusCode).toBe(404)
    expect((await mallory.submit('/keys', `/keys/${keyId}/rename`, { name: 'x' })).statusCode).toBe(404)
    expect((await mallory.submit('/keys', `/keys/${keyId}/revoke`, { confirm: 'yes' })).statusCode).toBe(404)
    // Alerts are saved for the poster's own current team only; a forged team cookie does not switch teams.
    mallory.jar.set('cg_team', alice.account.id)
    const res = await mallory.submit('/account', '/account/alerts', { thresholds: '50', webhookUrl: '' })
    expect(res.statusCode).toBe(200) // saved, with the new signing secret shown once
    const { createAlertSettingsRepository } = await import('../../src/alerts/settings.ts')
    const alerts = createAlertSettingsRepository(t.opened.db, { allowedHosts: null })
    expect(await alerts.get(alice.account.id)).toBeUndefined()
    expect((await alerts.get(mallory.account.id))?.creditThresholds).toEqual([50])
    expect((await mallory.get('/keys')).body).not.toContain('private')
  })

  test('roles: a viewer reads with keys masked; a developer or admin cannot raise anyone (themself included); the last owner stays', async () => {
    const owner = await signedUp()
    const admin = await signedUp()
    const dev = await signedUp()
    const viewer = await signedUp()
    await createTeam(owner, 'Roles')
    await createKey(owner, 'k1')
    await join(owner, admin, 'admin')
    await join(owner, dev, 'developer')
    await join(owner, viewer, 'viewer')
    const keys = (await viewer.get('/keys')).body
    expect(keys).toContain('k1')
    expect(keys).not.toMatch(/>[0-9a-f]{32}</)
    expect((await viewer.submit('/keys', '/keys', { name: 'nope' })).statusCode).toBe(403)
    // Escalation by a developer and an admin: an owner invitation, their own role.
    for (const who of [dev, admin]) {
      expect((await who.submit('/keys', '/team/invite', { email: email('x'), role: 'owner' })).statusCode).toBe(403)
      const own = await who.submit('/keys', `/team/members/${who.account.id}/role`, { role: 'owner' })
      expect(own.statusCode).toBe(403)
    }
    expect((await dev.submit('/keys', '/team/invite', { email: email('x'), role: 'viewer' })).statusCode).toBe(403)
    expect((await admin.submit('/keys', '/team/invite', { email: email('x'), role: 'admin' })).statusCode).toBe(403)
    expect((await admin.submit('/keys', '/team/invite', { email: email('x'), role: 'viewer' })).statusCode).toBe(303)
    // The last owner can neither leave nor be demoted.
    expect((await owner.submit('/team', '/team/leave', {})).statusCode).toBe(409)
    const demote = await owner.submit('/team', `/team/members/${owner.account.id}/role`, { role: 'admin' })
    expect(demote.statusCode).toBe(409)
    expect(demote.body).toContain('last owner')
  })

  test('the last owner of a team with other members cannot delete their account until ownership moves', async () => {
    const owner = await signedUp()
    const member = await signedUp()
    await createTeam(owner, 'Stays owned')
    await join(owner, member, 'developer')
    const remove = { confirm: 'yes', password: PASSWORD }
    const refused = await owner.submit('/account', '/account/delete', remove)
    expect(refused.statusCode).toBe(409)
    expect(refused.body).toContain('last owner of team &quot;Stays owned&quot;')
    expect((await owner.get('/keys')).statusCode).toBe(200) // still there, still logged in
    const promote = await owner.submit('/team', `/team/members/${member.account.id}/role`, { role: 'owner' })
    expect(promote.statusCode).toBe(303)
    expect((await owner.submit('/account', '/account/delete', remove)).statusCode).toBe(303)
    expect((await member.get('/team')).body).toContain('Stays owned')
  })

  test('an invitee without an account signs up through the link and lands in the team, confirmed', async () => {
    // Sign-ups must confirm their email here: the invitation's link counts as that proof.
    const app = await buildDashboardTestApp({
      listen: true,
      mail: { smtp: inbox.config },
      dashboard: { confirmEmail: true, loginAttemptsPerMinute: 1000, signupsPerHour: 1000 },
    })
    try {
      const accounts = createAccountsRepository(app.opened.db, TEST_PLANS)
      const owner = httpClient(app.url)
      const ownerEmail = email('owner')
      expect((await owner.signup(ownerEmail, PASSWORD)).statusCode).toBe(303)
      await accounts.confirmEmail((await accounts.findByEmail(ownerEmail))!.id, Date.now())
      expect((await owner.submit('/team', '/teams', { name: 'Newcomers' })).statusCode).toBe(303)
      expect((await owner.submit('/keys', '/keys', { name: 'team-key' })).statusCode).toBe(201)
      const address = email('newcomer')
      expect((await owner.submit('/team', '/team/invite', { email: address, role: 'developer' })).statusCode).toBe(303)
      const path = new URL(await inbox.nextLink(address, '/invite/')).pathname
      const c = httpClient(app.url)
      const signupUrl = /href="(\/signup\?invite=[^"]+)"/.exec((await c.get(path)).body)?.[1]
      expect(signupUrl).toBeDefined()
      const invite = /name="invite" value="([^"]+)"/.exec((await c.get(signupUrl!)).body)?.[1]
      expect(invite).toBe(path.split('/').pop())
      const signup = await c.submit(signupUrl!, '/signup', { email: address, password: PASSWORD, invite: invite! })
      expect(signup.statusCode).toBe(303)
      expect(signup.headers.location).toBe('/login?signup=done&next=%2Fteam')
      const login = await c.submit('/login?next=%2Fteam', '/login', {
        email: address,
        password: PASSWORD,
        next: '/team',
      })
      expect(login.headers.location).toBe('/team')
      const team = (await c.get('/team')).body
      expect(team).toContain('Newcomers')
      expect(team).toMatch(/developer/)
      expect((await c.get('/keys')).body).toContain('team-key')
      expect((await accounts.findByEmail(address))?.emailConfirmedAt).toEqual(expect.any(Number))
      expect((await c.submit('/keys', '/keys', { name: 'mine' })).statusCode).toBe(201) // confirmed: may create keys
      expect((await c.get(path)).statusCode).toBe(404) // used
    } finally {
      await app.close()
    }
  })

  test('an invitation link used by another account is refused; a team name cannot carry a header', async () => {
    const alice = await signedUp()
    const bob = await signedUp()
    const carol = await signedUp()
    await createTeam(alice, 'Links')
    expect((await alice.submit('/team', '/team/invite', { email: bob.email, role: 'viewer' })).statusCode).toBe(303)
    const path = new URL(await inbox.nextLink(bob.email, '/invite/')).pathname
    expect((await carol.get(path)).statusCode).toBe(403)
    expect((await carol.submit('/keys', `${path}/accept`, {})).statusCode).toBe(403)
    expect((await carol.get('/team')).body).not.toContain('Links')
    expect((await bob.get(path)).statusCode).toBe(200) // still valid for its address
    const bad = await alice.submit('/team', '/team/rename', { name: 'x\r\nBcc: victim@example.com' })
    expect(bad.statusCode).toBe(400)
    expect((await alice.submit('/team', '/teams', { name: 'y\nBcc: victim@example.com' })).statusCode).toBe(400)
    expect((await alice.get('/team/x')).statusCode).toBe(404)
  })

  test('CSRF: every team form without the session token is refused', async () => {
    const alice = await signedUp()
    await createTeam(alice, 'Csrf')
    for (const url of [
      '/teams',
      '/teams/switch',
      '/team/invite',
      `/team/members/${alice.account.id}/role`,
      `/team/members/${alice.account.id}/remove`,
      '/team/invitations/x/revoke',
      '/team/rename',
      '/team/leave',
      '/team/delete',
      `/invite/${'a'.repeat(43)}/accept`,
    ])
      expect((await alice.post(url, { name: 'n', role: 'viewer', email: 'e@example.com' })).statusCode, url).toBe(403)
  })
})
