/**
 * Teams in a real browser (Debian's chromium via playwright-core), the invitation through a real SMTP server: the
 * owner creates a team and a key and invites by email; the mail arrives; the invitee (another browser context)
 * signs up, follows the link, joins as developer and sees the team's key; the owner removes them and the invitee's
 * open page loses the team at its next load.
 */
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { buildDashboardTestApp, type DashboardTestApp } from './helpers/dashboard.ts'
import { describeWithPrograms, programPath } from '../support/programs.ts'
import { startSmtpInbox, type SmtpInbox } from '../support/smtp-inbox.ts'

const PASSWORD = 'browser-test-password-1'

describeWithPrograms(['chromium'], 'teams in chromium', () => {
  let t: DashboardTestApp
  let browser: Browser
  let inbox: SmtpInbox

  beforeAll(async () => {
    inbox = await startSmtpInbox()
    t = await buildDashboardTestApp({ listen: true, mail: { smtp: inbox.config } })
    browser = await chromium.launch({
      executablePath: programPath('chromium'),
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
    })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await t?.close()
    await inbox?.close()
  })

  async function signUpAndLogIn(page: Page, email: string) {
    await page.goto(`${t.url}/signup`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Create account' }).click()
    await page.getByRole('button', { name: 'Log in' }).waitFor()
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('heading', { name: 'API keys', level: 1 }).waitFor()
  }

  test('create a team, invite by email, the invitee joins and sees the keys; removal ends their access', async () => {
    const owner = await (await browser.newContext()).newPage()
    const invitee = await (await browser.newContext()).newPage()
    await signUpAndLogIn(owner, 'owner@example.com')
    await owner.goto(`${t.url}/team`)
    await owner.getByLabel('Name', { exact: true }).last().fill('Browser team')
    await owner.getByRole('button', { name: 'Create team' }).click()
    await owner.getByRole('heading', { name: 'Team Browser team', level: 1 }).waitFor()
    await owner.goto(`${t.url}/keys`)
    await owner.getByLabel('Name').fill('team key')
    await owner.getByRole('button', { name: 'Create key' }).click()
    await owner.getByRole('heading', { name: 'team key', level: 1 }).waitFor()
    await owner.goto(`${t.url}/team`)
    await owner.getByLabel('Email').fill('invitee@example.com')
    await owner.getByLabel('Role', { exact: true }).selectOption('developer')
    await owner.getByRole('button', { name: 'Send invitation' }).click()
    await owner.getByText('Invitation sent.').waitFor()

    const link = await inbox.nextLink('invitee@example.com', '/invite/')
    await signUpAndLogIn(invitee, 'invitee@example.com')
    await invitee.goto(link)
    await invitee.getByRole('button', { name: 'Join Browser team as developer' }).click()
    await invitee.getByText('You joined the team.').waitFor()
    await invitee.goto(`${t.url}/keys`)
    await expect(invitee.getByRole('link', { name: 'team key' }).isVisible()).resolves.toBe(true)

    await owner.goto(`${t.url}/team`)
    await owner
      .getByRole('row', { name: /invitee@example.com/ })
      .getByRole('button', { name: 'Remove' })
      .click()
    await owner.getByText('Member removed.').waitFor()
    await invitee.reload()
    await expect(invitee.getByRole('link', { name: 'team key' }).count()).resolves.toBe(0)
  }, 60_000)
})
