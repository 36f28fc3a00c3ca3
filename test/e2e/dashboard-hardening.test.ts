/**
 * Dashboard hardening over real HTTP: log-in attempts counted before the password check (60 parallel guesses),
 * sign-up limited per client and answering alike for known and new emails, `next` kept on the own origin, Host
 * names limited against DNS rebinding.
 */
import { afterEach, describe, expect, test } from 'vitest'
import { buildDashboardTestApp, csrfOf, httpClient, type DashboardTestApp } from './helpers/dashboard.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'

let t: DashboardTestApp | undefined
afterEach(async () => {
  await t?.close()
  t = undefined
})

async function listening(opts: Parameters<typeof buildDashboardTestApp>[0] = {}) {
  t = await buildDashboardTestApp({ listen: true, ...opts })
  return t
}

/** One login form (cookie + token) posted `n` times at once. */
async function parallelLogins(
  app: DashboardTestApp,
  n: number,
  form: (i: number) => { email: string; password: string },
) {
  const c = httpClient(app.url)
  const token = csrfOf((await c.get('/login')).body)
  return Promise.all(Array.from({ length: n }, (_, i) => c.post('/login', { _csrf: token, ...form(i) })))
}

const count = (codes: number[]) => {
  const m: Record<number, number> = {}
  for (const c of codes) m[c] = (m[c] ?? 0) + 1
  return m
}

describe('log-in limit under concurrency', () => {
  test('error: 60 parallel wrong guesses for one email: 5 are checked (401), 55 refused at once (429)', {
    timeout: 60_000,
  }, async () => {
    const app = await listening()
    expect((await httpClient(app.url).signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    const replies = await parallelLogins(app, 60, (i) => ({
      email: 'alice@example.com',
      password: `guess-${i}-xxxxxxxx`,
    }))
    expect(count(replies.map((r) => r.statusCode))).toEqual({ 401: 5, 429: 55 })
    const limited = replies.find((r) => r.statusCode === 429)!
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0)
    expect(limited.body).toContain('Too many failed log-ins')
    // Even the right password waits for the window now; a minute later it works.
    expect((await httpClient(app.url).login('alice@example.com', PASSWORD)).statusCode).toBe(429)
    app.clock.set(app.clock.now() + 61_000)
    expect((await httpClient(app.url).login('alice@example.com', PASSWORD)).statusCode).toBe(303)
  })

  test('error: 60 parallel guesses spread over 60 emails from one address are limited per IP too', {
    timeout: 60_000,
  }, async () => {
    const app = await listening()
    const replies = await parallelLogins(app, 60, (i) => ({
      email: `victim${i}@example.com`,
      password: 'whatever-xxxxxxxx',
    }))
    expect(count(replies.map((r) => r.statusCode))).toEqual({ 401: 5, 429: 55 })
  })

  test('behavior: a successful log-in does not use up the window', async () => {
    const app = await listening({ dashboard: { loginAttemptsPerMinute: 2 } })
    const c = httpClient(app.url)
    expect((await c.signup('bob@example.com', PASSWORD)).statusCode).toBe(303)
    for (let i = 0; i < 3; i++)
      expect((await httpClient(app.url).login('bob@example.com', PASSWORD)).statusCode).toBe(303)
  })
})

describe('sign-up', () => {
  test('behavior: a known email gets exactly the answer a new one gets, and its account is left as it was', async () => {
    const app = await listening()
    expect((await httpClient(app.url).signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    const known = await httpClient(app.url).submit('/signup', '/signup', {
      email: 'alice@example.com',
      password: 'another-password-1',
    })
    const fresh = await httpClient(app.url).submit('/signup', '/signup', {
      email: 'carol@example.com',
      password: 'another-password-1',
    })
    for (const r of [known, fresh]) {
      expect(r.statusCode).toBe(303)
      expect(r.headers.location).toBe('/login?signup=done')
      expect(r.body).toBe('')
      expect(r.headers['set-cookie']).toBeUndefined()
    }
    expect(Object.keys(known.headers).sort()).toEqual(Object.keys(fresh.headers).sort())
    expect((await httpClient(app.url).login('alice@example.com', 'another-password-1')).statusCode).toBe(401)
    expect((await httpClient(app.url).login('alice@example.com', PASSWORD)).statusCode).toBe(303)
    expect((await httpClient(app.url).login('carol@example.com', 'another-password-1')).statusCode).toBe(303)
  })

  test('error: sign-ups are limited per client address (10 an hour), also when sent in parallel', {
    timeout: 60_000,
  }, async () => {
    const app = await listening()
    const c = httpClient(app.url)
    const token = csrfOf((await c.get('/signup')).body)
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        c.post('/signup', { _csrf: token, email: `u${i}@example.com`, password: PASSWORD }),
      ),
    )
    expect(count(replies.map((r) => r.statusCode))).toEqual({ 303: 10, 429: 10 })
    const limited = replies.find((r) => r.statusCode === 429)!
    expect(limited.body).toContain('Too many sign-ups from your address')
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(3000)
    expect(await app.opened.db.selectFrom('accounts').select('id').execute()).toHaveLength(10)
  })
})

describe('next after log-in', () => {
  const HOSTILE = [
    '/\t/evil.example/',
    '/\n/evil.example/',
    '//evil.example/',
    '/\\evil.example/',
    '\\\\evil.example/',
    '\\/evil.example/',
    '/\\/evil.example/',
    'https://evil.example/',
    'http:evil.example',
    '//evil.example@localhost/',
    ' //evil.example/',
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
  ]

  test('error: hostile next values (tab, newline, backslash, //, schemes) never leave the site: the dashboard home instead', async () => {
    const app = await listening()
    expect((await httpClient(app.url).signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    for (const next of HOSTILE) {
      const c = httpClient(app.url)
      const page = await c.get(`/login?next=${encodeURIComponent(next)}`)
      expect(page.body, JSON.stringify(next)).not.toContain('evil.example')
      const res = await c.post('/login', {
        _csrf: csrfOf(page.body),
        email: 'alice@example.com',
        password: PASSWORD,
        next,
      })
      expect([next, res.statusCode, res.headers.location]).toEqual([next, 303, '/keys'])
    }
  })

  test('behavior: same-site next values are kept (normalized), also %-encoded ones, which stay paths', async () => {
    const app = await listening()
    expect((await httpClient(app.url).signup('alice@example.com', PASSWORD)).statusCode).toBe(303)
    for (const [next, expected] of [
      ['/usage?range=7d', '/usage?range=7d'],
      ['/keys/abc#x', '/keys/abc#x'],
      ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
      ['/a/../usage', '/usage'],
    ]) {
      const c = httpClient(app.url)
      const token = csrfOf((await c.get('/login')).body)
      const res = await c.post('/login', { _csrf: token, email: 'alice@example.com', password: PASSWORD, next: next! })
      expect(res.headers.location).toBe(expected)
      expect(new URL(res.headers.location as string, app.url).origin).toBe(app.url)
    }
  })
})

describe('allowed Host names (DNS rebinding)', () => {
  test('error: on a loopback listener a foreign Host is refused with 403 and says how to allow it; local names pass', async () => {
    const app = await listening({ gateway: { host: '127.0.0.1' } })
    const port = new URL(app.url).port
    for (const host of [`evil.example:${port}`, 'evil.example', `127.0.0.1.nip.io:${port}`]) {
      for (const [method, path] of [
        ['GET', '/'],
        ['GET', '/login'],
        ['POST', '/login'],
        ['GET', '/assets/app.js'],
      ] as const) {
        const c = httpClient(app.url, { headers: { host } })
        const res = method === 'GET' ? await c.get(path) : await c.post(path, { email: 'a@example.com', password: 'x' })
        expect([host, path, res.statusCode]).toEqual([host, path, 403])
        expect(res.body).toContain('does not answer to the host name')
        expect(res.body).toContain('gateway.allowedHosts')
        expect(res.headers['set-cookie']).toBeUndefined()
      }
    }
    for (const host of [
      `localhost:${port}`,
      `127.0.0.1:${port}`,
      `[::1]:${port}`,
      `devnet-a.localhost:${port}`,
      `devnet-b.localhost:${port}`,
      'LOCALHOST.',
    ])
      expect([host, (await httpClient(app.url, { headers: { host } }).get('/')).statusCode]).toEqual([host, 200])
    expect(app.logLines.join('')).toContain('host name not allowed')
  })

  test('behavior: gateway.allowedHosts replaces the default: exact names and *.domain', async () => {
    const app = await listening({ gateway: { host: '127.0.0.1', allowedHosts: ['rpc.example.com', '*.corp.example'] } })
    const status = async (host: string) => (await httpClient(app.url, { headers: { host } }).get('/')).statusCode
    expect(await status('rpc.example.com')).toBe(200)
    expect(await status('rpc.example.com:8443')).toBe(200)
    expect(await status('a.b.corp.example')).toBe(200)
    expect(await status('corp.example.evil')).toBe(403)
    expect(await status('localhost')).toBe(403)
  })

  test('behavior: on a non-loopback listener every name is allowed unless gateway.allowedHosts says otherwise', async () => {
    const app = await listening({ gateway: { host: '0.0.0.0' } })
    expect((await httpClient(app.url, { headers: { host: 'rpc.example.com' } }).get('/')).statusCode).toBe(200)
  })
})
