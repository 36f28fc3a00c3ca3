/**
 * The dashboard's mailed flows over real HTTP against a real SMTP server (smtp-server): sign-up confirmation,
 * password reset, two-factor log-in, the sessions list, and the attacks on them: reused, expired and forged links,
 * a link used while logged in as another account, CSRF on every new form, a TOTP code replayed, enumeration (the
 * same answer and the same work, one mail, for known and unknown addresses), header injection through an address.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { totpCodeAt } from '../../src/dashboard/auth/two-factor.ts'
import { buildDashboardTestApp, csrfOf, httpClient, type DashboardTestApp } from './helpers/dashboard.ts'
import { linkIn, startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox.ts'

const PASSWORD = 'Tr0ub4dor&3-horse-staple'
const path = (link: string) => new URL(link).pathname + new URL(link).search
const tokenOf = (link: string) => new URL(link).searchParams.get('token') ?? ''

describe('dashboard mail flows', () => {
  let smtp: SmtpInbox
  let t: DashboardTestApp
  let n = 0
  const email = (what: string) => `${what}-${++n}@example.com`
  beforeAll(async () => {
    smtp = await startSmtpInbox()
    t = await buildDashboardTestApp({
      listen: true,
      mail: { smtp: smtp.config },
      dashboard: { confirmEmail: true, signupsPerHour: 1000, loginAttemptsPerMinute: 100 },
    })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  /** Signs up and logs in; returns the client and the confirmation link. */
  const signedUp = async (address: string) => {
    const c = httpClient(t.url)
    expect((await c.signup(address, PASSWORD)).statusCode).toBe(303)
    return { c, link: linkIn(await smtp.next(address), '/confirm?token=') }
  }
  const followLink = async (c: ReturnType<typeof httpClient>, link: string, form: Record<string, string> = {}) => {
    const page = await c.get(path(link))
    if (page.statusCode !== 200) return page
    return c.post(new URL(link).pathname, { _csrf: csrfOf(page.body), token: tokenOf(link), ...form })
  }

  it('sign-up mails a confirmation link; keys wait for it; the link works once, a forged one never', async () => {
    const address = email('confirm')
    const { c, link } = await signedUp(address)
    expect((await c.get('/keys')).body).toContain('Confirm your email')
    expect((await c.submit('/keys', '/keys', { name: 'k' })).statusCode).toBe(403)
    const forged = link.replace(/token=./, (m) => (m.endsWith('A') ? 'token=B' : 'token=A'))
    expect((await c.get(path(forged))).statusCode).toBe(400)
    const done = await followLink(c, link)
    expect(done.statusCode).toBe(303)
    expect(done.headers.location).toBe('/keys?confirmed=done')
    expect((await c.submit('/keys', '/keys', { name: 'k' })).statusCode).toBe(201)
    expect((await followLink(c, link)).statusCode).toBe(400) // reused
  })

  it('a confirmation link for one account is refused while logged in as another', async () => {
    const a = await signedUp(email('owner'))
    const b = await signedUp(email('other'))
    expect((await b.c.get(path(a.link))).statusCode).toBe(403)
    const page = await a.c.get(path(a.link))
    const post = await b.c.post('/confirm', { _csrf: csrfOf(page.body), token: tokenOf(a.link) })
    expect(post.statusCode).toBe(403)
    expect((await followLink(a.c, a.link)).statusCode).toBe(303) // still unused
  })

  it('sign-up of a known address answers the same and sends exactly one mail, a notice with a reset link', async () => {
    const known = email('known')
    await signedUp(known)
    const before = smtp.received.length
    const fresh = email('fresh')
    const answers = [] as { status: number; location: unknown }[]
    for (const address of [known, fresh]) {
      const res = await httpClient(t.url).submit('/signup', '/signup', { email: address, password: PASSWORD })
      answers.push({ status: res.statusCode, location: res.headers.location })
    }
    expect(answers[0]).toEqual(answers[1])
    expect(smtp.received.length - before).toBe(2) // one each
    expect((await smtp.next(known)).subject).toBe('Someone tried to sign up with your address')
    expect((await smtp.next(fresh)).subject).toBe('Confirm your email address')
  })

  it('password reset: one mail for known and unknown addresses alike; the link sets the password once, ends every session, and a notice follows', async () => {
    const address = email('reset')
    const { c } = await signedUp(address)
    await smtp.next(address).catch(() => undefined)
    const ask = (who: string) => httpClient(t.url).submit('/forgot', '/forgot', { email: who })
    const unknown = email('nobody')
    const [a, b] = [await ask(address), await ask(unknown)]
    expect([a.statusCode, a.headers.location]).toEqual([b.statusCode, b.headers.location])
    expect((await smtp.next(unknown)).text).toContain('no account uses it')
    const link = linkIn(await smtp.next(address), '/reset?token=')
    const browser = httpClient(t.url)
    expect((await followLink(browser, link, { password: 'short' })).statusCode).toBe(400)
    expect((await followLink(browser, link, { password: 'a-new-password-42' })).headers.location).toBe(
      '/login?reset=done',
    )
    expect((await c.get('/keys')).statusCode).toBe(303) // the old session ended
    expect((await smtp.next(address)).subject).toBe('Your password was changed')
    expect((await followLink(browser, link, { password: 'a-third-password-42' })).statusCode).toBe(400)
    expect((await httpClient(t.url).login(address, 'a-new-password-42')).headers.location).toBe('/keys')
  })

  it('a reset link expires', async () => {
    const address = email('expire')
    await signedUp(address)
    await httpClient(t.url).submit('/forgot', '/forgot', { email: address })
    const link = linkIn(await smtp.next(address), '/reset?token=')
    const now = t.clock.now()
    t.clock.set(now + 31 * 60_000)
    try {
      expect((await httpClient(t.url).get(path(link))).statusCode).toBe(400)
    } finally {
      t.clock.set(now)
    }
  })

  it('every new form refuses a POST without its CSRF token', async () => {
    const { c } = await signedUp(email('csrf'))
    for (const url of ['/forgot', '/reset', '/confirm', '/login/2fa'])
      expect((await httpClient(t.url).post(url, { email: 'x@example.com', token: 'x' })).statusCode, url).toBe(403)
    for (const url of ['/account/2fa/setup', '/account/2fa/enable', '/account/2fa/disable', '/account/sessions/end'])
      expect((await c.post(url, { _csrf: 'wrong', session: 'x' })).statusCode, url).toBe(403)
  })

  it('an address with CR/LF cannot add headers: refused at sign-up and by "Forgot password", nothing sent', async () => {
    const before = smtp.received.length
    const evil = 'victim@example.com\r\nBcc: attacker@example.com'
    expect((await httpClient(t.url).submit('/signup', '/signup', { email: evil, password: PASSWORD })).statusCode).toBe(
      400,
    )
    await httpClient(t.url).submit('/forgot', '/forgot', { email: evil })
    await new Promise((r) => setTimeout(r, 200))
    expect(smtp.received.slice(before).flatMap((m) => m.to)).not.toContain('attacker@example.com')
  })

  it('two-factor log-in: set up with a code, then log-in needs one; a replayed code and a used recovery code are refused', async () => {
    const address = email('tfa')
    const { c } = await signedUp(address)
    const setup = await c.submit('/account', '/account/2fa/setup', {})
    expect(setup.body).toContain('data:image/svg+xml;base64,')
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.body)![1]!
    const enable = await c.post('/account/2fa/enable', {
      _csrf: csrfOf(setup.body),
      code: totpCodeAt(secret, t.clock.now()),
    })
    const codes = [...enable.body.matchAll(/<li>([a-z0-9-]{12})<\/li>/g)].map((m) => m[1]!)
    expect(codes).toHaveLength(10)
    expect((await smtp.next(address)).subject).toBe('Two-factor log-in turned on')
    // Log in again: the password leads to the code form.
    const later = t.clock.now() + 60_000
    t.clock.set(later)
    const d = httpClient(t.url)
    expect((await d.login(address, PASSWORD)).headers.location).toBe('/login/2fa')
    expect((await d.submit('/login/2fa', '/login/2fa', { code: '000000' })).statusCode).toBe(401)
    const code = totpCodeAt(secret, later)
    expect((await d.submit('/login/2fa', '/login/2fa', { code })).headers.location).toBe('/keys')
    // The same code again, within its window: refused.
    const e = httpClient(t.url)
    await e.login(address, PASSWORD)
    expect((await e.submit('/login/2fa', '/login/2fa', { code })).statusCode).toBe(401)
    expect((await e.submit('/login/2fa', '/login/2fa', { code: codes[0]! })).headers.location).toBe('/keys')
    const f = httpClient(t.url)
    await f.login(address, PASSWORD)
    expect((await f.submit('/login/2fa', '/login/2fa', { code: codes[0]! })).statusCode).toBe(401)
    // Turning it off needs the password and a code.
    const off = await d.submit('/account', '/account/2fa/disable', { password: PASSWORD, code: '123456' })
    expect(off.statusCode).toBe(401)
    const ok = await d.submit('/account', '/account/2fa/disable', { password: PASSWORD, code: codes[1]! })
    expect(ok.headers.location).toBe('/account?done=2fa-off')
  })

  it('sessions: the account page lists each log-in with its device and ends another one', async () => {
    const address = email('sessions')
    const { c } = await signedUp(address)
    const other = httpClient(t.url, { headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0' } })
    await other.login(address, PASSWORD)
    const page = (await c.get('/account')).body
    expect(page).toContain('Firefox on Linux')
    expect([...page.matchAll(/name="session" value="[0-9a-f]{64}"/g)]).toHaveLength(2)
    const row = page.split('<tr>').find((r) => r.includes('Firefox on Linux'))!
    const otherId = /name="session" value="([0-9a-f]{64})"/.exec(row)![1]!
    expect((await c.submit('/account', '/account/sessions/end', { session: otherId })).statusCode).toBe(303)
    expect((await other.get('/keys')).statusCode).toBe(303)
    expect((await c.get('/keys')).statusCode).toBe(200)
  })
})
