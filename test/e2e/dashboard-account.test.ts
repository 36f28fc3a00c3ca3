/**
 * The account features of the dashboard on the real gateway (real app, anvil devnets, real HTTP): change the
 * password, delete the account, operators changing plans (also with the CLI), the create-key button at the
 * plan's key limit, and the HTML 404/500 pages next to the gateway's own plain answers (docs/dashboard.md).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { request } from 'undici'
import { buildDashboardTestApp, csrfOf, httpClient } from './helpers/dashboard.ts'
import { startTestServer, type TestServer } from './helpers/server.ts'
import { cleanupProcesses, runCli, waitFor } from './helpers/process.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
const NEW_PASSWORD = 'correct horse battery staple 2'
const BLOCK_NUMBER = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] })

let server: TestServer
let n = 0
const email = (what: string) => `${what}-${++n}-${Date.now()}@example.com`

beforeAll(async () => {
  server = await startTestServer(
    // Many log-ins from 127.0.0.1 in this file: the limits are tested in dashboard-hardening.test.ts.
    { gateway: { defaultPlan: 'free' }, dashboard: { loginAttemptsPerMinute: 1000, signupsPerHour: 1000 } },
    { parts: { dashboard: true } },
  )
})
afterAll(async () => {
  await cleanupProcesses()
  await server?.stop()
})

async function signedUp(address = email('user')) {
  const c = httpClient(server.url)
  const res = await c.signup(address, PASSWORD)
  expect(res.statusCode).toBe(303)
  return Object.assign(c, { email: address })
}

const accountOf = async (address: string) => (await server.parts.accounts.findByEmail(address))!

async function createKey(c: ReturnType<typeof httpClient>, name: string) {
  const res = await c.submit('/keys', '/keys', { name })
  expect(res.statusCode, res.body).toBe(201)
  return /id="api-key" type="text" readonly value="([0-9a-f]{32})"/.exec(res.body)![1]!
}

const rpcStatus = async (key: string) => {
  const res = await request(`${server.url}/networks/devnet-a/v3/${key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: BLOCK_NUMBER,
  })
  await res.body.text()
  return res.statusCode
}

describe('change password', () => {
  test('behavior: needs the current password and matching new ones; ends the other sessions, keeps this one', async () => {
    const c = await signedUp()
    const other = httpClient(server.url)
    expect((await other.login(c.email, PASSWORD)).statusCode).toBe(303)
    expect((await other.get('/keys')).statusCode).toBe(200)

    const page = await c.get('/account')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('Change password')
    const token = csrfOf(page.body)

    const wrong = await c.post('/account/password', {
      _csrf: token,
      currentPassword: 'not my password',
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    })
    expect(wrong.statusCode).toBe(401)
    expect(wrong.body).toContain('The password is wrong.')
    const differ = await c.post('/account/password', {
      _csrf: token,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: `${NEW_PASSWORD}x`,
    })
    expect(differ.statusCode).toBe(400)
    expect(differ.body).toContain('The two new passwords differ')
    const short = await c.post('/account/password', {
      _csrf: token,
      currentPassword: PASSWORD,
      newPassword: 'short',
      confirmPassword: 'short',
    })
    expect(short.statusCode).toBe(400)
    const noToken = await c.post('/account/password', {
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    })
    expect(noToken.statusCode).toBe(403)
    // None of the refused forms changed anything.
    expect((await other.get('/keys')).statusCode).toBe(200)

    const ok = await c.post('/account/password', {
      _csrf: token,
      currentPassword: PASSWORD,
      newPassword: NEW_PASSWORD,
      confirmPassword: NEW_PASSWORD,
    })
    expect(ok.statusCode).toBe(303)
    expect(ok.headers.location).toBe('/account?done=password')
    const after = await c.get('/account?done=password')
    expect(after.statusCode).toBe(200)
    expect(after.body).toContain('Password changed. Every other session of this account was logged out.')
    // The other browser is logged out; the old password no longer works, the new one does.
    const otherAfter = await other.get('/keys')
    expect(otherAfter.statusCode).toBe(303)
    expect(otherAfter.headers.location).toBe('/login?next=%2Fkeys')
    expect((await httpClient(server.url).login(c.email, PASSWORD)).statusCode).toBe(401)
    expect((await httpClient(server.url).login(c.email, NEW_PASSWORD)).statusCode).toBe(303)
    expect(server.logText()).not.toContain(NEW_PASSWORD)
  })
})

describe('password checks of the settings forms', () => {
  test('error: wrong current passwords count against the log-in limit (429 with Retry-After), then even the right one waits', async () => {
    const t = await buildDashboardTestApp({ listen: true, dashboard: { loginAttemptsPerMinute: 2 } })
    try {
      const c = httpClient(t.url)
      expect((await c.signup('limited@example.com', PASSWORD)).statusCode).toBe(303)
      const token = csrfOf((await c.get('/account')).body)
      const change = (current: string) =>
        c.post('/account/password', {
          _csrf: token,
          currentPassword: current,
          newPassword: NEW_PASSWORD,
          confirmPassword: NEW_PASSWORD,
        })
      expect((await change('guess one')).statusCode).toBe(401)
      expect(
        (await c.post('/account/delete', { _csrf: token, password: 'guess two', confirm: 'yes' })).statusCode,
      ).toBe(401)
      const limited = await change(PASSWORD)
      expect(limited.statusCode).toBe(429)
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
      expect(limited.body).toMatch(/Too many wrong passwords\. Try again in \d+ seconds\./)
      // Nothing changed: the old password still logs in once the window has passed.
      t.clock.set(t.clock.now() + 61_000)
      expect((await httpClient(t.url).login('limited@example.com', PASSWORD)).statusCode).toBe(303)
    } finally {
      await t.close()
    }
  })
})

describe('delete account', () => {
  test('behavior: asks for the password; revokes the keys at the gateway, ends sessions, keeps usage rows, frees the email', {
    timeout: 30_000,
  }, async () => {
    const c = await signedUp()
    const key = await createKey(c, 'doomed')
    await server.parts.keySnapshot.reload()
    expect(await rpcStatus(key)).toBe(200)
    const account = await accountOf(c.email)
    const db = server.parts.database.db
    // The call above reaches the usage ledger within gateway.usageFlushMs.
    await waitFor(
      async () =>
        (await db.selectFrom('usage_hourly').select('credits').where('account_id', '=', account.id).execute()).length >
        0,
      5_000,
      'usage row',
    )
    const other = httpClient(server.url)
    expect((await other.login(c.email, PASSWORD)).statusCode).toBe(303)

    const token = csrfOf((await c.get('/account')).body)
    expect((await c.post('/account/delete', { _csrf: token, password: PASSWORD })).statusCode).toBe(400)
    const wrong = await c.post('/account/delete', { _csrf: token, password: 'wrong password', confirm: 'yes' })
    expect(wrong.statusCode).toBe(401)
    expect((await c.post('/account/delete', { password: PASSWORD, confirm: 'yes' })).statusCode).toBe(403)
    expect(await rpcStatus(key)).toBe(200)

    const done = await c.post('/account/delete', { _csrf: token, password: PASSWORD, confirm: 'yes' })
    expect(done.statusCode).toBe(303)
    expect(done.headers.location).toBe('/login?deleted=done')
    expect((await c.get('/login?deleted=done')).body).toContain('Your account was deleted and its keys revoked.')
    // Both sessions are gone, the key is refused by the gateway, the log-in fails.
    expect((await c.get('/keys')).statusCode).toBe(303)
    expect((await other.get('/keys')).statusCode).toBe(303)
    await server.parts.keySnapshot.reload()
    expect(await rpcStatus(key)).toBe(401)
    expect((await httpClient(server.url).login(c.email, PASSWORD)).statusCode).toBe(401)
    // Usage rows stay for the operator's totals, under the account id; the email is no longer stored.
    expect(
      (await db.selectFrom('usage_hourly').select('credits').where('account_id', '=', account.id).execute()).length,
    ).toBeGreaterThan(0)
    const row = await db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow()
    expect(row.deleted_at).not.toBeNull()
    expect(row.email).not.toContain('@')
    expect(
      await db.selectFrom('account_credentials').selectAll().where('account_id', '=', account.id).execute(),
    ).toEqual([])
    // The address can sign up again: a new, empty account.
    const again = await signedUp(c.email)
    const keysPage = await again.get('/keys')
    expect(keysPage.body).toContain('No keys yet.')
    expect((await accountOf(c.email)).id).not.toBe(account.id)
  })
})

describe('operators', () => {
  test('behavior: a non-operator gets 404 for the accounts page and its form', async () => {
    const c = await signedUp()
    const target = await accountOf(c.email)
    const page = await c.get('/accounts')
    expect(page.statusCode).toBe(404)
    expect(page.headers['content-type']).toContain('text/html')
    expect(page.body).not.toContain(target.id)
    expect(page.body).not.toContain('href="/accounts"')
    const token = csrfOf((await c.get('/keys')).body)
    expect((await c.post(`/accounts/${target.id}/plan`, { _csrf: token, plan: 'team' })).statusCode).toBe(404)
    expect((await accountOf(c.email)).plan).toBe('free')
  })

  test('behavior: an operator (made with the CLI) changes a plan; the key limit and the create button follow', {
    timeout: 60_000,
  }, async () => {
    const user = await signedUp()
    await createKey(user, 'first')
    // At the free plan's limit the button is disabled and says why.
    const atLimit = await user.get('/keys')
    expect(atLimit.body).toMatch(/<button type="submit" disabled aria-describedby="key-limit">Create key<\/button>/)
    expect(atLimit.body).toContain('The free plan allows 1 API key; revoke one or upgrade the plan to create another.')
    expect((await user.submit('/keys', '/keys', { name: 'second' })).statusCode).toBe(409)

    const op = await signedUp(email('operator'))
    const cli = (...args: string[]) => runCli([...args, '--data-dir', server.app.config.dataDir], { timeoutMs: 60_000 })
    const made = await cli('account', 'set-role', op.email, 'operator', '--json')
    expect(made.code, made.stderr).toBe(0)
    expect(made.json()).toMatchObject({ email: op.email, role: 'operator' })

    const page = await op.get('/accounts')
    expect(page.statusCode).toBe(200)
    expect(page.body).toContain('href="/accounts" aria-current="page"')
    const target = await accountOf(user.email)
    expect(page.body).toContain(`id="account-${target.id}"`)
    const token = csrfOf(page.body)
    const bad = await op.post(`/accounts/${target.id}/plan`, { _csrf: token, plan: 'platinum' })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('Unknown plan platinum; plans: free, developer, team, dev.')
    expect((await op.post(`/accounts/${target.id}/plan`, { plan: 'developer' })).statusCode).toBe(403)
    expect((await op.post('/accounts/no-such-account/plan', { _csrf: token, plan: 'developer' })).statusCode).toBe(404)

    const changed = await op.post(`/accounts/${target.id}/plan`, { _csrf: token, plan: 'developer' })
    expect(changed.statusCode).toBe(303)
    expect((await op.get(changed.headers.location as string)).body).toContain(
      `${user.email} is now on the developer plan.`,
    )
    const keysPage = await user.get('/keys')
    expect(keysPage.body).toMatch(/<button type="submit">Create key<\/button>/)
    expect(keysPage.body).not.toContain('id="key-limit"')
    const second = await createKey(user, 'second')
    await server.parts.keySnapshot.reload()
    expect(await rpcStatus(second)).toBe(200)
  })
})

describe('chaingate account set-plan', () => {
  // Five CLI processes (each transpiles the sources): generous on a loaded 2-core machine.
  test('behavior: --json prints the changed account; the gateway applies the plan; bad input exits non-zero', {
    timeout: 120_000,
  }, async () => {
    const c = await signedUp()
    const key = await createKey(c, 'cli')
    const cli = (...args: string[]) => runCli([...args, '--data-dir', server.app.config.dataDir], { timeoutMs: 60_000 })
    const set = await cli('account', 'set-plan', c.email, 'team', '--json')
    expect(set.code, set.stderr).toBe(0)
    expect(set.json()).toMatchObject({ email: c.email, plan: 'team', role: 'user' })
    const text = await cli('account', 'set-plan', c.email, 'developer')
    expect(text.code, text.stderr).toBe(0)
    expect(text.stdout.trim()).toBe(`account ${c.email} is now on plan developer`)
    expect((await accountOf(c.email)).plan).toBe('developer')
    // The dashboard and the gateway see it: the overview names the plan, the key still answers.
    expect((await c.get('/')).body).toContain('<strong>developer</strong>')
    await server.parts.keySnapshot.reload()
    expect(await rpcStatus(key)).toBe(200)

    const [unknownPlan, unknownAccount, missing] = await Promise.all([
      cli('account', 'set-plan', c.email, 'platinum'),
      cli('account', 'set-plan', 'nobody@example.com', 'team'),
      cli('account', 'set-plan', c.email),
    ])
    expect(unknownPlan.code).toBe(1)
    expect(unknownPlan.stderr).toContain('unknown plan platinum; plans: free, developer, team, dev')
    expect(unknownAccount.code).toBe(2)
    expect(unknownAccount.stderr).toContain('no account nobody@example.com')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('usage: account set-plan <account> <plan>')
    expect((await accountOf(c.email)).plan).toBe('developer')
  })
})

describe('error pages', () => {
  test('behavior: unknown dashboard pages get an HTML 404; RPC paths and other verbs keep the gateway answers', async () => {
    const c = await signedUp()
    for (const path of ['/nope', '/keys/extra/deep', '/favicon.ico']) {
      const res = await c.get(path)
      expect([path, res.statusCode]).toEqual([path, 404])
      expect(res.headers['content-type']).toContain('text/html')
      expect(res.body).toContain('Page not found')
      expect(res.body).toContain('href="/keys"')
    }
    const anonymous = await request(`${server.url}/nope`)
    expect(anonymous.statusCode).toBe(404)
    expect(await anonymous.body.text()).toContain('Page not found')
    for (const path of ['/v3x', `/ws/v3/${'a'.repeat(32)}`, '/networks/devnet-a/ws/v3/x', '/ws/']) {
      const res = await request(`${server.url}${path}`, { headers: { host: 'evil.example' } })
      expect([path, res.statusCode, res.headers['content-type']]).toEqual([
        path,
        404,
        expect.stringContaining('text/plain'),
      ])
      expect(await res.body.text()).toContain('no JSON-RPC endpoint here')
    }
    const post = await request(`${server.url}/nope`, { method: 'POST', body: '{}' })
    expect(post.headers['content-type']).toContain('text/plain')
    expect(await post.body.text()).toContain('no JSON-RPC endpoint here')
  })

  test('behavior: an internal error answers an HTML 500 page without details; the log has them', async () => {
    const t = await buildDashboardTestApp({ listen: true })
    try {
      const c = httpClient(t.url)
      expect((await c.signup('broken@example.com', PASSWORD)).statusCode).toBe(303)
      // The database loses a table under the running dashboard.
      await t.opened.db.schema.dropTable('dashboard_sessions').execute()
      const res = await c.get('/keys')
      expect(res.statusCode).toBe(500)
      expect(res.headers['content-type']).toContain('text/html')
      expect(res.body).toContain('Something went wrong')
      expect(res.body).toContain('internal error')
      expect(res.body).not.toMatch(/dashboard_sessions|SqliteError|at .*\.ts/)
      expect(t.logLines.join('')).toContain('dashboard error')
    } finally {
      await t.close()
    }
  })
})
