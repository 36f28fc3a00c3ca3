/**
 * The dashboard's page templates (this folder): pure functions from plain data to HTML; the plugin (plugin.ts) loads
 * the data and checks who may see it. Every form posts with the session's CSRF token; every control is a real link,
 * button or input so the dashboard works by keyboard and without the script. This file: the frame every page shares.
 */
import { html, type SafeHtml } from '../../shared/html.ts'

export interface PageContext {
  /** Logged-in account, if any. */
  account?: { email: string; plan: string; role?: string } | undefined
  /** The team the pages act for, the account's role in it, and every team of the account (the switcher). */
  team?: { id: string; name: string; role: string; all: { id: string; name: string }[] } | null | undefined
  csrfToken: string
  /** Path of the current page, for aria-current in the nav. */
  current: string
  flash?: { kind: 'ok' | 'error'; message: string } | undefined
  /**
   * The GET address of what this page shows, when it answers a POST: the script moves the address bar there so a
   * reload does not post the form again (and a secret shown once stays shown once).
   */
  canonical?: string | undefined
}

export const csrfField = (token: string) => html`<input type="hidden" name="_csrf" value="${token}">`

export function layout(title: string, ctx: PageContext, body: SafeHtml): string {
  const here = (href: string) => ctx.current === href || (href !== '/' && ctx.current.startsWith(`${href}/`))
  const nav = (href: string, label: string) =>
    html`<a href="${href}"${here(href) ? html` aria-current="page"` : ''}>${label}</a>`
  const header = ctx.account
    ? html`${nav('/', 'Overview')}${nav('/keys', 'API keys')}${nav('/usage', 'Usage')}${
        ctx.account.role === 'operator' ? nav('/accounts', 'Accounts') : ''
      }
      ${teamSwitcher(ctx)}
      <a href="/account" class="who" title="Account settings (plan ${ctx.account.plan})"${
        ctx.current === '/account' ? html` aria-current="page"` : ''
      }>${ctx.account.email}</a>
      <form method="post" action="/logout">${csrfField(ctx.csrfToken)}
      <button type="submit" class="small">Log out</button></form>`
    : html`${nav('/login', 'Log in')}${nav('/signup', 'Sign up')}`
  const flash = ctx.flash
    ? html`<p class="flash ${ctx.flash.kind}" role="${ctx.flash.kind === 'error' ? 'alert' : 'status'}">${
        ctx.flash.message
      }</p>`
    : ''
  return `<!doctype html>${html`<html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title} · chaingate</title>${
      ctx.canonical ? html`<meta name="chaingate-url" content="${ctx.canonical}">` : ''
    }
    <link rel="icon" href="/assets/favicon.svg" type="image/svg+xml"><link rel="stylesheet" href="/assets/app.css">
    <script src="/assets/app.js" defer></script></head><body><a class="skip" href="#main">Skip to content</a>
    <header class="top"><div class="bar"><a class="brand" href="/">chaingate</a>${header}</div></header>
    <main id="main" tabindex="-1"><h1>${title}</h1>${flash}${body}
    <p id="copy-status" class="sr-only" aria-live="polite"></p></main></body></html>`}`
}

/** The current team, linked to its page; with a form to switch when the account has several. */
function teamSwitcher(ctx: PageContext) {
  const team = ctx.team
  if (!team) return ''
  const link = html`<a href="/team" title="Team (your role: ${team.role})"${
    ctx.current === '/team' ? html` aria-current="page"` : ''
  }>${team.name}</a>`
  if (team.all.length < 2) return link
  return html`${link}<form method="post" action="/teams/switch" class="switch">${csrfField(ctx.csrfToken)}
    <label class="sr-only" for="team-switch">Team</label><select id="team-switch" name="team">${team.all.map(
      (t) => html`<option value="${t.id}"${t.id === team.id ? html` selected` : ''}>${t.name}</option>`,
    )}</select><button type="submit" class="small">Switch</button></form>`
}

export function messagePage(title: string, ctx: PageContext, message: string): string {
  return layout(title, ctx, html`<div class="card"><p>${message}</p><p><a href="/">Back to the dashboard</a></p></div>`)
}
