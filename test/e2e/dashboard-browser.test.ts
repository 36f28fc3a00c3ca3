/**
 * The dashboard in a real browser (Debian's chromium via playwright-core): sign up, log in, log out, log in, create a
 * key,
 * disable a network, set an origin allowlist, view the usage charts, revoke the key. Screenshots go to the temp
 * dir (path printed) so a person can look at them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { evaluateKeyAccess } from '../../src/keys/security/evaluate.ts'
import { loadAllKeySecurity } from '../../src/keys/security/repository.ts'
import { buildDashboardTestApp, type DashboardTestApp } from './helpers/dashboard.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'

const PASSWORD = 'browser-test-password-1'

let t: DashboardTestApp
let context: BrowserContext
let base: string
let profileDir: string
const shotsDir = mkdtempSync(join(tmpdir(), 'chaingate-dashboard-shots-'))

async function setUp() {
  t = await buildDashboardTestApp()
  // Wall-clock time, so the seeded usage lands in the charts' current buckets.
  t.clock.set(Date.now())
  base = await t.app.listen({ host: '127.0.0.1', port: 0 })
  profileDir = mkdtempSync(join(tmpdir(), 'chaingate-chromium-'))
  // A fresh profile per run; playwright wants it as launchPersistentContext's first argument.
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: programPath('chromium'),
    viewport: { width: 1200, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
}

async function tearDown() {
  await context?.close()
  await t?.close()
  if (profileDir) rmSync(profileDir, { recursive: true, force: true })
}

/** Visible elements of the page that reach past the viewport's edges (none expected), outside scroll boxes. */
async function overflowing(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const out: string[] = []
    for (const el of Array.from(document.querySelectorAll('body *'))) {
      const r = el.getBoundingClientRect()
      if (r.width === 0 || r.height === 0 || el.closest('.sr-only, .skip')) continue
      // Content of a scroll box (code examples, wide tables) scrolls inside it; the box itself is checked.
      let clipped = false
      for (let p = el.parentElement; p && !clipped; p = p.parentElement)
        clipped = ['auto', 'scroll', 'hidden', 'clip'].includes(getComputedStyle(p).overflowX)
      if (clipped) continue
      if (r.right > width + 1 || r.left < -1)
        out.push(
          `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${el.className} ` +
            `(${Math.round(r.left)}–${Math.round(r.right)} of ${width})`,
        )
    }
    return out.slice(0, 10)
  })
}

async function expectNoConsoleErrors(page: Page, errors: string[]) {
  expect(errors, errors.join('\n')).toEqual([])
  // The CSP allows only same-origin assets: the stylesheet must have applied.
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor)
  expect(bg).toBe('rgb(246, 247, 249)')
}

describeWithPrograms(['chromium'], 'dashboard in chromium', () => {
  beforeAll(setUp)
  afterAll(tearDown)

  test('behavior: sign up, log in, create a key, disable a network, allowlist an origin, see usage, revoke', {
    timeout: 90_000,
  }, async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base })
    const page = await context.newPage()
    // Fail at the step that hangs rather than at the test timeout.
    page.setDefaultTimeout(10_000)
    const consoleErrors: string[] = []
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(m.text())
    })
    page.on('pageerror', (e) => consoleErrors.push(String(e)))
    page.on('response', (r) => {
      if (r.status() >= 400 && r.request().method() === 'GET') consoleErrors.push(`${r.status()} ${r.url()}`)
    })

    // Sign up.
    await page.goto(`${base}/`)
    await page.getByRole('link', { name: 'Create an account' }).click()
    await page.getByLabel('Email').fill('dev@example.com')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    // Sign-up answers alike for new and known emails (docs/dashboard.md), so it leads to the log-in form.
    await page.waitForURL(`${base}/login?signup=done`)
    await page.getByText('Sign-up received.').waitFor()
    await page.getByLabel('Email').fill('dev@example.com')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.waitForURL(`${base}/keys`)
    await expect(page.getByRole('heading', { name: 'API keys', level: 1 }).isVisible()).resolves.toBe(true)

    // Log out, then log in with the keyboard only.
    await page.getByRole('button', { name: 'Log out' }).click()
    await page.waitForURL(`${base}/login`)
    await page.getByLabel('Email').focus()
    await page.keyboard.type('dev@example.com')
    await page.keyboard.press('Tab')
    await page.keyboard.type(PASSWORD)
    await page.keyboard.press('Enter')
    await page.waitForURL(`${base}/keys`)

    // Create a key.
    await page.getByLabel('Name').fill('Browser dapp')
    await page.getByRole('button', { name: 'Create key' }).click()
    await page.getByRole('heading', { name: 'Browser dapp', level: 1 }).waitFor()
    const secret = await page.locator('#new-secret').inputValue()
    expect(secret).toMatch(/^[0-9a-f]{32}$/)
    const apiKey = await page.locator('#api-key').inputValue()
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/)
    const pathUrl = await page.locator('#url-path-devnet-a').inputValue()
    expect(pathUrl).toBe(`${base}/networks/devnet-a/v3/${apiKey}`)
    const keyRow = await t.opened.db
      .selectFrom('api_keys')
      .selectAll()
      .where('key', '=', apiKey)
      .executeTakeFirstOrThrow()
    // The address bar shows the key's page, so a reload does not create another key (and hides the secret).
    await page.waitForURL(`${base}/keys/${keyRow.id}`)
    await page.reload()
    await expect(page.locator('#new-secret').count()).resolves.toBe(0)
    expect(await t.opened.db.selectFrom('api_keys').select('id').execute()).toHaveLength(1)

    // The copy button puts the endpoint URL on the clipboard.
    await page.locator('button[data-copy="url-path-devnet-a"]').click()
    await page.locator('button[data-copy="url-path-devnet-a"]', { hasText: 'Copied' }).waitFor()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(pathUrl)
    // The code examples copy too (from a <pre>, not an input).
    await page.getByText('curl', { exact: true }).waitFor()
    await page.locator('button[data-copy="snippet-curl"]').click()
    await page.locator('button[data-copy="snippet-curl"]', { hasText: 'Copied' }).waitFor()
    const copiedCurl = await page.evaluate(() => navigator.clipboard.readText())
    expect(copiedCurl).toContain(`curl -s '${pathUrl}'`)
    expect(copiedCurl).toContain('"method":"eth_blockNumber"')

    // Disable a network.
    await page.getByRole('button', { name: 'Disable devnet-b' }).click()
    await page.getByText('Network disabled.').waitFor()
    await expect(page.locator('#network-devnet-b .badge').textContent()).resolves.toBe('disabled')
    const nets = await t.opened.db
      .selectFrom('api_key_networks')
      .select('network')
      .where('key_id', '=', keyRow.id)
      .execute()
    expect(nets.map((n) => n.network)).toEqual(['devnet-a'])

    // Set an origin allowlist.
    await page.getByLabel('Add to origins').fill('https://app.example.com')
    await page.getByLabel('Add to origins').press('Enter')
    await page.getByText('Allowlist updated.').waitFor()
    await expect(page.locator('#allowlist-origins code').allTextContents()).resolves.toEqual([
      'https://app.example.com',
    ])
    // What the gateway will load: the other origin is refused with Infura's 403 body, the listed one passes.
    const security = (await loadAllKeySecurity(t.opened.db)).get(keyRow.id)!
    const opts = { jwtAudience: 'chaingate', now: Date.now() }
    const call = [{ method: 'eth_blockNumber', params: [] }]
    expect(await evaluateKeyAccess(security, { origin: 'https://app.example.com', calls: call }, opts)).toBeNull()
    expect((await evaluateKeyAccess(security, { origin: 'https://evil.example', calls: call }, opts))?.code).toBe(
      'KEY_SETTINGS_REJECTED',
    )
    await page.screenshot({ path: join(shotsDir, 'key.png'), fullPage: true })

    // Usage after some calls (seeded into the ledger the gateway writes).
    const hour = Math.floor(Date.now() / 3_600_000) * 3600
    const rows = [
      { hour, method: 'eth_blockNumber', network: 'devnet-a', calls: 120, credits: 9600, errors: 2 },
      { hour, method: 'eth_getBalance', network: 'devnet-a', calls: 40, credits: 3200, errors: 0 },
      { hour: hour - 3600, method: 'eth_call', network: 'devnet-a', calls: 25, credits: 2000, errors: 1 },
      { hour: hour - 5 * 3600, method: 'eth_blockNumber', network: 'devnet-b', calls: 60, credits: 4800, errors: 0 },
    ]
    await t.opened.db
      .insertInto('usage_hourly')
      .values(rows.map((r) => ({ ...r, account_id: keyRow.account_id, key_id: keyRow.id })))
      .execute()
    await t.opened.db
      .insertInto('usage_errors')
      .values([
        { hour, account_id: keyRow.account_id, key_id: keyRow.id, network: 'devnet-a', error: 'http:429', count: 2 },
        {
          hour: hour - 3600,
          account_id: keyRow.account_id,
          key_id: keyRow.id,
          network: 'devnet-a',
          error: 'rpc:-32000',
          count: 1,
        },
      ])
      .execute()
    await page.getByRole('link', { name: 'Usage', exact: true }).click()
    await page.waitForURL(`${base}/usage`)
    await expect(page.locator('#credits-chart svg rect').count()).resolves.toBeGreaterThanOrEqual(4)
    await expect(page.locator('#calls-chart svg polyline').count()).resolves.toBe(3)
    await expect(page.locator('main').textContent()).resolves.toContain(
      '245 calls, 19,600 credits, 3 errors in the last 24 hours',
    )
    await expect(page.locator('#errors-chart').textContent()).resolves.toContain('HTTP 429 (over a credits limit)')
    await page.getByRole('link', { name: 'By network' }).click()
    await expect(page.locator('#credits-chart .legend').textContent()).resolves.toContain('devnet-b')
    await page.getByRole('link', { name: 'Last 7 days' }).click()
    await expect(page.locator('#credits-chart svg rect').count()).resolves.toBeGreaterThanOrEqual(2)
    await page.getByRole('link', { name: 'Last 24 hours' }).click()
    await page.getByRole('link', { name: 'By method' }).click()
    const usageShot = join(shotsDir, 'usage.png')
    await page.screenshot({ path: usageShot, fullPage: true })

    // The overview chart is scaled to the data: today's ~20k credits draw well above the baseline on an axis
    // in thousands, not as a flat line at the bottom of a 0–15M axis (the developer plan's quota).
    await page.getByRole('link', { name: 'Overview' }).click()
    await page.waitForURL(`${base}/`)
    const ticks = await page.locator('#daily-chart .axis text[text-anchor="end"]').allTextContents()
    expect(ticks.at(-1)).toMatch(/^\d+(\.\d)?k$/)
    await expect(page.locator('#daily-chart').textContent()).resolves.toContain('daily quota 15M (above this scale)')
    const svg = (await page.locator('#daily-chart svg[role="img"]').boundingBox())!
    const today = (await page.locator('#daily-chart svg[role="img"] .dot').last().boundingBox())!
    expect(svg.y + svg.height - (today.y + today.height / 2)).toBeGreaterThan(svg.height * 0.4)
    expect(await overflowing(page)).toEqual([])
    await page.screenshot({ path: join(shotsDir, 'overview.png'), fullPage: true })

    // Narrow screen: nothing wider than the viewport.
    await page.setViewportSize({ width: 375, height: 800 })
    await page.goto(`${base}/keys/${keyRow.id}`)
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
    expect(overflow).toBeLessThanOrEqual(0)
    await page.screenshot({ path: join(shotsDir, 'key-narrow.png'), fullPage: false })
    // An operator also has the accounts page (role set as `chaingate account set-role` does).
    await t.opened.db.updateTable('accounts').set({ role: 'operator' }).where('id', '=', keyRow.account_id).execute()
    for (const path of ['/usage', '/keys', '/', '/account', `/keys/${keyRow.id}`, '/accounts']) {
      await page.goto(`${base}${path}`)
      expect(
        await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth),
        path,
      ).toBeLessThanOrEqual(0)
      expect([path, await overflowing(page)]).toEqual([path, []])
    }
    // The HTML 404 page (its 404 status is expected here, not a console error of the dashboard).
    const errorsBefore = consoleErrors.length
    expect((await page.goto(`${base}/no-such-page`))!.status()).toBe(404)
    await page.getByRole('heading', { name: 'Page not found' }).waitFor()
    expect(await overflowing(page)).toEqual([])
    await page.screenshot({ path: join(shotsDir, 'not-found-narrow.png') })
    consoleErrors.splice(errorsBefore)
    await page.goto(`${base}/`)
    await page.screenshot({ path: join(shotsDir, 'overview-narrow.png'), fullPage: true })
    await page.goto(`${base}/usage`)
    await page.screenshot({ path: join(shotsDir, 'usage-narrow.png'), fullPage: true })
    await page.setViewportSize({ width: 1200, height: 900 })
    await page.goto(`${base}/keys/${keyRow.id}`)

    // Revoke the key.
    await page.getByLabel('Yes, revoke Browser dapp').check()
    await page.getByRole('button', { name: 'Revoke key' }).click()
    await page.getByText('Key revoked.').waitFor()
    await page.getByRole('heading', { name: 'Browser dapp (revoked)' }).waitFor()
    const revoked = await t.opened.db
      .selectFrom('api_keys')
      .select('revoked_at')
      .where('id', '=', keyRow.id)
      .executeTakeFirstOrThrow()
    expect(revoked.revoked_at).not.toBeNull()

    // Change the password, then delete the account, from the account page.
    const NEW_PASSWORD = 'browser-test-password-2'
    // The header's account link (the personal team's link beside it carries the same email).
    await page.locator('header a[href="/account"]').click()
    await page.waitForURL(`${base}/account`)
    await page.getByLabel('Current password').fill(PASSWORD)
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('New password again').fill(NEW_PASSWORD)
    await page.getByRole('button', { name: 'Change password' }).click()
    await page.getByText('Password changed.').waitFor()
    await page.screenshot({ path: join(shotsDir, 'account.png'), fullPage: true })
    await page.getByLabel('Password', { exact: true }).fill(NEW_PASSWORD)
    await page.getByLabel('Yes, delete dev@example.com and revoke its keys').check()
    await page.getByRole('button', { name: 'Delete account' }).click()
    await page.waitForURL(`${base}/login?deleted=done`)
    await page.getByText('Your account was deleted and its keys revoked.').waitFor()
    const gone = await t.opened.db
      .selectFrom('accounts')
      .select(['deleted_at', 'email'])
      .where('id', '=', keyRow.account_id)
      .executeTakeFirstOrThrow()
    expect(gone.deleted_at).not.toBeNull()

    await expectNoConsoleErrors(page, consoleErrors)
    console.log(`dashboard screenshots: ${shotsDir}`)
  })
})
