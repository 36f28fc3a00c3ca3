/**
 * The mailed flows in Chromium (playwright-core) against a real SMTP server: sign up, read the confirmation mail,
 * follow its link and create a key; forget the password, follow the reset link, log in with the new one; turn on
 * two-factor log-in from the QR page and log in with a code.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { totpCodeAt } from '../../src/dashboard/auth/two-factor.ts'
import { buildDashboardTestApp, type DashboardTestApp } from './helpers/dashboard.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'
import { linkIn, startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox.ts'

const PASSWORD = 'browser-test-password-1'
let t: DashboardTestApp
let smtp: SmtpInbox
let context: BrowserContext
let base: string
let profileDir: string

describeWithPrograms(['chromium'], 'dashboard mail flows in Chromium', () => {
  beforeAll(async () => {
    smtp = await startSmtpInbox()
    t = await buildDashboardTestApp({ mail: { smtp: smtp.config }, dashboard: { confirmEmail: true } })
    t.clock.set(Date.now())
    base = await t.app.listen({ host: '127.0.0.1', port: 0 })
    profileDir = mkdtempSync(join(tmpdir(), 'chaingate-chromium-'))
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: programPath('chromium'),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    })
  }, 60_000)
  afterAll(async () => {
    await context?.close()
    await t?.close()
    await smtp?.close()
    if (profileDir) rmSync(profileDir, { recursive: true, force: true })
  })

  test('sign-up confirmation, password reset and two-factor log-in, each through the mail that arrived', async () => {
    const page = await context.newPage()
    const address = 'browser-mail@example.com'
    await page.goto(`${base}/signup`)
    await page.fill('#email', address)
    await page.fill('#password', PASSWORD)
    await page.click('button[type=submit]')
    await page.fill('#email', address)
    await page.fill('#password', PASSWORD)
    await page.click('form.card button[type=submit]')
    expect(await page.textContent('main')).toContain('Confirm your email')
    await page.goto(linkIn(await smtp.next(address), '/confirm?token='))
    await page.click('form.card button[type=submit]')
    expect(page.url()).toContain('/keys?confirmed=done')
    await page.fill('#key-name', 'from the browser')
    await page.click('form[action="/keys"] button[type=submit]')
    expect(await page.textContent('main')).toContain('created')

    // Forgot password: a fresh browser context (logged out) follows the reset link.
    const other = await context.browser()?.newContext()
    const anon = other ? await other.newPage() : await context.newPage()
    await anon.goto(`${base}/login`)
    await anon.click('a[href="/forgot"]')
    await anon.fill('#email', address)
    await anon.click('form.card button[type=submit]')
    expect(await anon.textContent('main')).toContain('a link to set a new password is on its way')
    await anon.goto(linkIn(await smtp.next(address), '/reset?token='))
    await anon.fill('#new-password', 'a-brand-new-password-9')
    await anon.click('form.card button[type=submit]')
    expect(await anon.textContent('main')).toContain('Password set')
    expect((await smtp.next(address)).subject).toBe('Your password was changed')

    // Two-factor: set up from the QR page (the QR image must load under the CSP), then log in with a code.
    await anon.fill('#email', address)
    await anon.fill('#password', 'a-brand-new-password-9')
    await anon.click('form.card button[type=submit]')
    await anon.goto(`${base}/account`)
    await anon.click('form[action="/account/2fa/setup"] button')
    const qrLoaded = await anon.$eval('main img', (img) => (img as HTMLImageElement).naturalWidth > 0)
    expect(qrLoaded).toBe(true)
    const secret = (await anon.textContent('#totp-secret'))!.trim()
    // Codes follow the server's clock (set once in beforeAll), not this process's: a slow run would otherwise drift
    // past the server's one-step window.
    await anon.fill('#code', totpCodeAt(secret, t.clock.now()))
    await anon.click('form[action="/account/2fa/enable"] button')
    expect(await anon.locator('#recovery-codes li').count()).toBe(10)
    await anon.click('form[action="/logout"] button')
    await anon.goto(`${base}/login`)
    await anon.fill('#email', address)
    await anon.fill('#password', 'a-brand-new-password-9')
    await anon.click('form.card button[type=submit]')
    expect(anon.url()).toContain('/login/2fa')
    // The setup's code is used up (replays are refused): move the server's clock one step on and use that step's.
    t.clock.set(t.clock.now() + 30_000)
    await anon.fill('#code', totpCodeAt(secret, t.clock.now()))
    await anon.click('form.card button[type=submit]')
    expect(anon.url()).toContain('/keys')
    await other?.close()
  }, 120_000)
})
