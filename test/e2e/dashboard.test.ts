/**
 * Dashboard over fastify.inject: accounts, sessions, CSRF, ownership, key settings, usage. (The browser flow is
 * dashboard-browser.test.ts; gateway enforcement is key-security.test.ts.)
 */
import { readFileSync, existsSync } from 'node:fs'
import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import { loadAllKeySecurity } from '../../src/keys/security/repository.ts'
import { hashSecret } from '../../src/keys/security/evaluate.ts'
import { readSettingsVersion } from '../../src/db/settings-version.ts'
import { buildDashboardTestApp, csrfOf, injectClient, type DashboardTestApp } from './helpers/dashboard.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'

let t: DashboardTestApp
beforeEach(async () => {
  t = await buildDashboardTestApp()
})
afterEach(async () => t.close())

async function signedUp(email = 'alice@example.com', ip = '10.0.0.1') {
  const c = injectClient(t.app, { ip })
  const res = await c.signup(email, PASSWORD)
  expect(res.statusCode).toBe(303)
  return c
}

async function createKey(c: ReturnType<typeof injectClient>, name: string) {
  const res = await c.submit('/keys', '/keys', { name })
  expect(res.statusCode).toBe(201)
  const id = /href="\/usage\?key=([0-9a-f]+)"/.exec(res.body)![1]!
  const key = (await t.opened.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()).key
  return { id, key, page: res.body }
}

describe('accounts and sessions', () => {
  test('behavior: sign-up, then log-in sets an HttpOnly SameSite=Lax cookie (no Secure over plain HTTP)', async () => {
    const c = injectClient(t.app)
    const signup = await c.signupOnly('Alice@Example.com', PASSWORD)
    expect(signup.statusCode).toBe(303)
    expect(signup.headers.location).toBe('/login?signup=done')
    expect(([] as string[]).concat(signup.headers['set-cookie'] ?? []).some((h) => h.startsWith('cg_session='))).toBe(
      false,
    )
    expect((await c.get('/login?signup=done')).body).toContain(
      'Sign-up received. Log in with the email and password you chose.',
    )
    const res = await c.login('alice@example.com', PASSWORD)
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/keys')
    const cookie = ([] as string[])
      .concat(res.headers['set-cookie'] as string[])
      .find((h) => h.startsWith('cg_session='))!
    expect(cookie).toMatch(/HttpOnly/)
    expect(cookie).toMatch(/SameSite=Lax/)
    expect(cookie).not.toMatch(/Secure/)
    const keys = await c.get('/keys')
    expect(keys.statusCode).toBe(200)
    expect(keys.body).toContain('alice@example.com')
    expect(keys.headers['content-security-policy']).toContain("default-src 'none'")
    expect(keys.headers['cache-control']).toBe('no-store')
  })

  test('behavior: the session cookie is Secure when the request came over TLS', async () => {
    const tls = await buildDashboardTestApp({ fastify: { trustProxy: true } })
    try {
      const c = injectClient(tls.app)
      const token = csrfOf((await c.get('/signup', { 'x-forwarded-proto': 'https' })).body)
      expect(
        (
          await c.post(
            '/signup',
            { _csrf: token, email: 'tls@example.com', password: PASSWORD },
            { 'x-forwarded-proto': 'https' },
          )
        ).statusCode,
      ).toBe(303)
      const res = await c.post(
        '/login',
        { _csrf: token, email: 'tls@example.com', password: PASSWORD },
        { 'x-forwarded-proto': 'https' },
      )
      expect(res.statusCode).toBe(303)
      const cookie = ([] as string[])
        .concat(res.headers['set-cookie'] as string[])
        .find((h) => h.startsWith('cg_session='))!
      expect(cookie).toMatch(/; Secure/)
    } finally {
      await tls.close()
    }
  })

  test('behavior: log out ends the session; log in again works; wrong password does not', async () => {
    const c = await signedUp()
    const page = await c.get('/keys')
    const out = await c.post('/logout', { _csrf: csrfOf(page.body) })
    expect(out.statusCode).toBe(303)
    expect((await c.get('/keys')).statusCode).toBe(303)
    expect((await c.login('alice@example.com', 'wrong password')).statusCode).toBe(401)
    const ok = await c.login('alice@example.com', PASSWORD)
    expect(ok.statusCode).toBe(303)
    expect((await c.get('/keys')).statusCode).toBe(200)
  })

  test('behavior: pages need a login; GET redirects to /login with the page to return to', async () => {
    const c = injectClient(t.app)
    const res = await c.get('/usage?range=7d')
    expect(res.statusCode).toBe(303)
    expect(res.headers.location).toBe('/login?next=%2Fusage%3Frange%3D7d')
  })

  test('error: a short password is refused with a clear message', async () => {
    const c = injectClient(t.app)
    const short = await c.signupOnly('bob@example.com', 'short')
    expect(short.statusCode).toBe(400)
    expect(short.body).toContain('at least 8 characters')
  })

  test('error: sign-up can be closed by config', async () => {
    const closed = await buildDashboardTestApp({ dashboard: { signup: false } })
    try {
      const c = injectClient(closed.app)
      const token = csrfOf((await c.get('/login')).body)
      const res = await c.post('/signup', { _csrf: token, email: 'x@example.com', password: PASSWORD })
      expect(res.statusCode).toBe(403)
      expect(await closed.opened.db.selectFrom('accounts').selectAll().execute()).toEqual([])
    } finally {
      await closed.close()
    }
  })

  test('error: login attempts are rate limited per email and per IP (5 failures a minute)', async () => {
    await signedUp()
    const attacker = injectClient(t.app, { ip: '10.9.9.9' })
    for (let i = 0; i < 5; i++)
      expect((await attacker.login('alice@example.com', `guess-${i}-xxxx`)).statusCode).toBe(401)
    const limited = await attacker.login('alice@example.com', PASSWORD)
    expect(limited.statusCode).toBe(429)
    expect(limited.body).toContain('Too many failed log-ins')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    // Same IP, another email: limited too (per-IP window).
    expect((await attacker.login('other@example.com', 'whatever-xxxx')).statusCode).toBe(429)
    // A minute later the window has passed.
    t.clock.set(t.clock.now() + 61_000)
    expect((await attacker.login('alice@example.com', PASSWORD)).statusCode).toBe(303)
  })
})

describe('CSRF', () => {
  test('error: POST without the CSRF token is refused with 403 and changes nothing', async () => {
    const c = await signedUp()
    const res = await c.post('/keys', { name: 'sneaky' })
    expect(res.statusCode).toBe(403)
    const wrong = await c.post('/keys', { name: 'sneaky', _csrf: 'x'.repeat(43) })
    expect(wrong.statusCode).toBe(403)
    expect(await t.opened.db.selectFrom('api_keys').selectAll().execute()).toEqual([])
  })

  test('error: login and sign-up forms without their CSRF token are refused', async () => {
    const c = injectClient(t.app)
    expect((await c.post('/signup', { email: 'x@example.com', password: PASSWORD })).statusCode).toBe(403)
    expect((await c.post('/login', { email: 'x@example.com', password: PASSWORD })).statusCode).toBe(403)
  })

  test('error: a cross-site Origin is refused even with a token', async () => {
    const c = await signedUp()
    const token = csrfOf((await c.get('/keys')).body)
    const res = await c.post('/keys', { _csrf: token, name: 'x' }, { origin: 'https://evil.example' })
    expect(res.statusCode).toBe(403)
  })

  test('error: another session’s token does not work', async () => {
    const a = await signedUp('a@example.com')
    const b = await signedUp('b@example.com')
    const tokenB = csrfOf((await b.get('/keys')).body)
    expect((await a.post('/keys', { _csrf: tokenB, name: 'x' })).statusCode).toBe(403)
  })
})

describe('ownership', () => {
  test('error: another account’s key is invisible and unchangeable, also by guessing URLs (404)', async () => {
    const alice = await signedUp('alice@example.com')
    const { id, key } = await createKey(alice, 'alice key')
    const mallory = await signedUp('mallory@example.com', '10.0.0.2')
    const list = await mallory.get('/keys')
    expect(list.body).not.toContain(key)
    expect(list.body).not.toContain('alice key')
    const token = csrfOf(list.body)
    expect((await mallory.get(`/keys/${id}`)).statusCode).toBe(404)
    expect((await mallory.get(`/usage?key=${id}`)).statusCode).toBe(404)
    for (const [action, form] of [
      ['rename', { name: 'pwned' }],
      ['networks', { network: 'devnet-a', enabled: 'false' }],
      ['revoke', { confirm: 'yes' }],
      ['secret', {}],
      ['allowlists', { type: 'origins', entries: 'https://evil.example' }],
      ['limits', { creditsPerSecond: '1', creditsPerDay: '1' }],
    ] as const) {
      const res = await mallory.post(`/keys/${id}/${action}`, { _csrf: token, ...form })
      expect(res.statusCode, action).toBe(404)
      expect(res.body).not.toContain(key)
    }
    const row = await t.opened.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row.name).toBe('alice key')
    expect(row.revoked_at).toBeNull()
    expect((await loadAllKeySecurity(t.opened.db)).get(id)?.allowlists.origins).toEqual([])
    // A key id that does not exist answers the same.
    expect((await mallory.get('/keys/ffffffffffff')).statusCode).toBe(404)
  })
})

describe('keys', () => {
  test('behavior: create shows the key, its endpoint URLs per network (host and path form) and its secret once', async () => {
    const c = await signedUp()
    const { id, key, page } = await createKey(c, 'my dapp')
    expect(page).toContain(`http://devnet-a.localhost/v3/${key}`)
    expect(page).toContain(`http://localhost:80/networks/devnet-a/v3/${key}`.replace(':80', ''))
    expect(page).toContain(`/networks/devnet-b/v3/${key}`)
    expect(page).toContain('data-copy="url-host-devnet-a"')
    const secret = /id="new-secret" type="text" readonly value="([0-9a-f]{32})"/.exec(page)![1]!
    expect((await loadAllKeySecurity(t.opened.db)).get(id)!.secretHash).toBe(hashSecret(secret))
    const again = await c.get(`/keys/${id}`)
    expect(again.body).not.toContain(secret)
    // All networks enabled by default, as on Infura.
    const nets = await t.opened.db.selectFrom('api_key_networks').select('network').where('key_id', '=', id).execute()
    expect(nets.map((n) => n.network).sort()).toEqual(['devnet-a', 'devnet-b'])
  })

  test('behavior: endpoint URLs use dashboard.publicBaseUrl when set', async () => {
    const pub = await buildDashboardTestApp({ dashboard: { publicBaseUrl: 'https://rpc.example.com:8443' } })
    try {
      const c = injectClient(pub.app)
      await c.signup('p@example.com', PASSWORD)
      const res = await c.submit('/keys', '/keys', { name: 'k' })
      const key = /\/networks\/devnet-a\/v3\/([0-9a-f]{32})/.exec(res.body)![1]
      expect(res.body).toContain(`https://rpc.example.com:8443/networks/devnet-a/v3/${key}`)
      expect(res.body).toContain(`https://devnet-a.localhost:8443/v3/${key}`)
      expect(res.body).toContain(`wss://devnet-a.localhost:8443/ws/v3/${key}`)
    } finally {
      await pub.close()
    }
  })

  test('error: the plan key limit is enforced with a clear message', async () => {
    const free = await buildDashboardTestApp({ defaultPlan: 'free' })
    try {
      const c = injectClient(free.app)
      await c.signup('f@example.com', PASSWORD)
      expect((await c.submit('/keys', '/keys', { name: 'one' })).statusCode).toBe(201)
      const second = await c.submit('/keys', '/keys', { name: 'two' })
      expect(second.statusCode).toBe(409)
      expect(second.body).toContain('The free plan allows 1 API key; revoke one or upgrade the plan.')
    } finally {
      await free.close()
    }
  })

  test('behavior: each change bumps settings_version so the gateway reloads', async () => {
    const c = await signedUp()
    const { id } = await createKey(c, 'k')
    const steps: [string, Record<string, string>][] = [
      ['networks', { network: 'devnet-b', enabled: 'false' }],
      ['rename', { name: 'renamed' }],
      ['allowlists', { type: 'origins', entries: 'https://*.example.com, localhost:3000' }],
      ['allowlists', { type: 'methods', entries: 'eth_blockNumber eth_chainId' }],
      ['allowlists/remove', { type: 'methods', entry: 'eth_chainId' }],
      ['security', { flags: '1', requireSecret: 'on', secretOverridesAllowlists: 'on' }],
      ['limits', { creditsPerSecond: '100', creditsPerDay: '20000' }],
    ]
    for (const [action, form] of steps) {
      const before = await readSettingsVersion(t.opened.db)
      const res = await c.submit(`/keys/${id}`, `/keys/${id}/${action}`, form)
      expect(res.statusCode, `${action}: ${res.body.slice(0, 200)}`).toBe(303)
      expect(await readSettingsVersion(t.opened.db), action).toBeGreaterThan(before)
    }
    const row = await t.opened.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect(row).toMatchObject({ name: 'renamed', credits_per_second: 100, credits_per_day: 20000 })
    const nets = await t.opened.db.selectFrom('api_key_networks').select('network').where('key_id', '=', id).execute()
    expect(nets.map((n) => n.network)).toEqual(['devnet-a'])
    const s = (await loadAllKeySecurity(t.opened.db)).get(id)!
    expect(s.allowlists.origins).toEqual(['https://*.example.com', 'localhost:3000'])
    expect(s.allowlists.methods).toEqual(['eth_blockNumber'])
    expect(s.requireSecret).toBe(true)
    expect(s.secretOverridesAllowlists).toBe(true)
    const page = await c.get(`/keys/${id}`)
    expect(page.body).toContain('<code>https://*.example.com</code>')
    expect(page.body).toContain('<span class="badge off">disabled</span>')
  })

  test('error: invalid settings re-render the key page with the reason (400)', async () => {
    const c = await signedUp()
    const { id } = await createKey(c, 'k')
    const bad = await c.submit(`/keys/${id}`, `/keys/${id}/allowlists`, { type: 'addresses', entries: '0x123' })
    expect(bad.statusCode).toBe(400)
    expect(bad.body).toContain('is not a 0x-prefixed 20-byte address')
    const jwt = await c.submit(`/keys/${id}`, `/keys/${id}/security`, { flags: '1', requireJwt: 'on' })
    expect(jwt.statusCode).toBe(400)
    expect(jwt.body).toContain('Add a JWT public key before requiring JWTs')
    const pem = await c.submit(`/keys/${id}`, `/keys/${id}/jwt`, { name: 'x', alg: 'RS256', publicKeyPem: 'nope' })
    expect(pem.statusCode).toBe(400)
  })

  test('behavior: revoke needs the confirmation box, then the key is read-only', async () => {
    const c = await signedUp()
    const { id } = await createKey(c, 'k')
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/revoke`, {})).statusCode).toBe(400)
    expect((await c.submit(`/keys/${id}`, `/keys/${id}/revoke`, { confirm: 'yes' })).statusCode).toBe(303)
    const page = await c.get(`/keys/${id}`)
    expect(page.body).toContain('This key is revoked')
    expect(page.body).not.toContain(`action="/keys/${id}/rename"`)
    const token = csrfOf((await c.get('/keys')).body)
    expect((await c.post(`/keys/${id}/rename`, { _csrf: token, name: 'again' })).statusCode).toBe(409)
  })

  test('behavior: user input is escaped in pages', async () => {
    const c = await signedUp()
    const { id } = await createKey(c, '<script>alert(1)</script>')
    const page = await c.get(`/keys/${id}`)
    expect(page.body).not.toContain('<script>alert(1)</script>')
    expect(page.body).toContain('&lt;script&gt;alert(1)&lt;/script&gt;')
  })
})

describe('usage', () => {
  test('behavior: charts and tables come from usage_hourly and usage_errors of this account only', async () => {
    const alice = await signedUp()
    const { id } = await createKey(alice, 'alice key')
    const accountId = (
      await t.opened.db.selectFrom('api_keys').select('account_id').where('id', '=', id).executeTakeFirstOrThrow()
    ).account_id
    const hour = Math.floor(t.clock.now() / 3_600_000) * 3600
    await t.opened.db
      .insertInto('usage_hourly')
      .values([
        {
          hour,
          account_id: accountId,
          key_id: id,
          network: 'devnet-a',
          method: 'eth_blockNumber',
          calls: 10,
          credits: 800,
          errors: 1,
        },
        {
          hour: hour - 3600,
          account_id: accountId,
          key_id: id,
          network: 'devnet-b',
          method: 'eth_getBalance',
          calls: 4,
          credits: 320,
          errors: 0,
        },
        {
          hour,
          account_id: 'someone-else',
          key_id: 'other',
          network: 'devnet-a',
          method: 'eth_secretMethod',
          calls: 99,
          credits: 9999,
          errors: 0,
        },
      ])
      .execute()
    await t.opened.db
      .insertInto('usage_errors')
      .values({ hour, account_id: accountId, key_id: id, network: 'devnet-a', error: 'http:429', count: 1 })
      .execute()
    for (const range of ['24h', '7d', '30d'])
      for (const by of ['method', 'network', 'key']) {
        const res = await alice.get(`/usage?range=${range}&by=${by}`)
        expect(res.statusCode).toBe(200)
        expect(res.body).toContain('<svg')
        expect(res.body).toContain('14</strong> calls, <strong>1,120</strong> credits')
        expect(res.body).not.toContain('eth_secretMethod')
      }
    const res = await alice.get(`/usage?key=${id}`)
    expect(res.body).toContain('id="credits-chart"')
    expect(res.body).toContain('eth_blockNumber')
    expect(res.body).toContain('HTTP 429 (over a credits limit) <code class="muted">http:429</code>')
    expect(res.body).toContain('1,120</strong> of 15,000,000 credits used today')
    const overview = await alice.get('/')
    expect(overview.body).toContain('id="daily-chart"')
  })
})

describe('secrets never in clear', () => {
  test('behavior: the password is in neither the database file nor the logs', async () => {
    const c = await signedUp('alice@example.com')
    expect((await injectClient(t.app).login('alice@example.com', 'wrong-password-123')).statusCode).toBe(401)
    const { id } = await createKey(c, 'k')
    const secretPage = await c.submit(`/keys/${id}`, `/keys/${id}/secret`, {})
    const secret = /id="new-secret" type="text" readonly value="([0-9a-f]{32})"/.exec(secretPage.body)![1]!
    t.opened.sqlite!.pragma('wal_checkpoint(TRUNCATE)')
    const files = [t.dbFile, `${t.dbFile}-wal`].filter(existsSync).map((f) => readFileSync(f))
    for (const bytes of files) {
      expect(bytes.includes(Buffer.from(PASSWORD))).toBe(false)
      expect(bytes.includes(Buffer.from('wrong-password-123'))).toBe(false)
      expect(bytes.includes(Buffer.from(secret))).toBe(false)
    }
    const stored = await t.opened.db.selectFrom('account_credentials').select('password_hash').executeTakeFirstOrThrow()
    expect(stored.password_hash).toMatch(/^scrypt\$N=32768,r=8,p=1\$/)
    const logs = t.logLines.join('')
    expect(logs.length).toBeGreaterThan(0)
    expect(logs).not.toContain(PASSWORD)
    expect(logs).not.toContain('wrong-password-123')
    expect(logs).not.toContain(secret)
    // Session cookies are stored hashed only.
    const cookie = c.jar.get('cg_session')!
    for (const bytes of files) expect(bytes.includes(Buffer.from(cookie))).toBe(false)
  })
})
