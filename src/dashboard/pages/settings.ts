/**
 * Templates of the account's own settings (password, deletion), the operators' accounts page and the error
 * pages. Pure functions from plain data to HTML, like the other page files.
 */
import type { Account } from '../../accounts/repository.ts'
import type { PlanConfig } from '../../config/schema.ts'
import { html, type SafeHtml } from '../../shared/html.ts'
import { csrfField, layout, type PageContext } from './layout.ts'

export function settingsPage(
  ctx: PageContext,
  data: { account: Account; activeKeys: number; alerts?: SafeHtml | undefined },
): string {
  const { account } = data
  const keys = `${data.activeKeys} active key${data.activeKeys === 1 ? '' : 's'}`
  return layout(
    'Account',
    ctx,
    html`<section class="card" aria-labelledby="who-h"><h2 id="who-h">Your account</h2>
<p><strong>${account.email}</strong> · plan <strong>${account.plan}</strong>${
      account.role === 'operator' ? html` · operator (<a href="/accounts">all accounts</a>)` : ''
    } · ${keys}</p></section>${data.alerts ?? ''}
<section class="card" aria-labelledby="password-h"><h2 id="password-h">Change password</h2>
<form method="post" action="/account/password">${csrfField(ctx.csrfToken)}
<input type="text" name="username" autocomplete="username" value="${account.email}" hidden>
<label for="current-password">Current password</label>
<input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required>
<label for="new-password">New password</label>
<input id="new-password" name="newPassword" type="password" autocomplete="new-password" minlength="8" required
 aria-describedby="new-password-hint">
<p id="new-password-hint" class="muted">At least 8 characters. Your other sessions (other browsers and devices) are
 logged out; this one stays.</p>
<label for="confirm-password">New password again</label>
<input id="confirm-password" name="confirmPassword" type="password" autocomplete="new-password" minlength="8" required>
<p><button type="submit">Change password</button></p></form></section>
<section class="card" aria-labelledby="delete-h"><h2 id="delete-h">Delete account</h2>
<p>Deleting the account revokes its ${keys} at once on every network, logs out every session and frees the email
 address. It cannot be undone. The usage already recorded stays in the gateway's totals, without your email.</p>
<form method="post" action="/account/delete">${csrfField(ctx.csrfToken)}<label for="delete-password">Password</label>
<input id="delete-password" name="password" type="password" autocomplete="current-password" required>
<label class="check"><input type="checkbox" name="confirm" value="yes" required> Yes, delete ${
      account.email
    } and revoke its keys</label><p><button type="submit" class="danger">Delete account</button></p></form></section>`,
  )
}

export interface AccountRow {
  account: Account
  activeKeys: number
  creditsToday: number
}

export function accountsPage(
  ctx: PageContext,
  data: {
    rows: AccountRow[]
    plans: Record<string, PlanConfig>
    deletedCreditsToday: number
    totalCreditsToday: number
  },
): string {
  const planNames = Object.keys(data.plans)
  const rows = data.rows.map(({ account: a, activeKeys, creditsToday }) => {
    const id = `plan-${a.id}`
    return html`<tr id="account-${a.id}">
      <td>${a.email}${a.role === 'operator' ? html` <span class="badge on">operator</span>` : ''}</td>
      <td class="num" data-label="Keys">${activeKeys}</td>
      <td class="num" data-label="Credits today">${creditsToday.toLocaleString('en-US')}</td>
      <td data-label="Created">${new Date(a.createdAt).toISOString().slice(0, 10)}</td><td>
      <form method="post" action="/accounts/${a.id}/plan" class="row">${csrfField(ctx.csrfToken)}<div>
      <label class="sr-only" for="${id}">Plan of ${a.email}</label>
      <select id="${id}" name="plan">${planNames.map(
        (p) => html`<option value="${p}"${p === a.plan ? html` selected` : ''}>${p}</option>`,
      )}</select>
      </div><button type="submit" class="small secondary" aria-label="Save the plan of ${a.email}">Save</button>
      </form></td></tr>`
  })
  return layout(
    'Accounts',
    ctx,
    html`<section class="card" aria-labelledby="accounts-h"><h2 id="accounts-h">Every account</h2>
      <p class="muted">You see this page because your account is an operator
      (<code>chaingate account set-role &lt;email&gt; operator</code>). A new plan applies to the gateway within a
      second: daily quota, credits per second and the key limit. ${data.totalCreditsToday.toLocaleString(
        'en-US',
      )} credits used today by all accounts${
        data.deletedCreditsToday > 0
          ? `, ${data.deletedCreditsToday.toLocaleString('en-US')} of them by deleted accounts`
          : ''
      }.</p>
      <div class="table-wrap"><table class="stack"><thead><tr><th>Email</th><th class="num">Keys</th>
      <th class="num">Credits today</th><th>Created</th><th>Plan</th></tr></thead><tbody>${rows}</tbody></table></div>
      </section>`,
  )
}

/** The HTML answer to an unknown dashboard page or an internal error: what happened, and a way back. */
export function errorPage(ctx: PageContext, status: 404 | 500): string {
  return status === 404
    ? layout(
        'Page not found',
        ctx,
        html`<div class="card"><p class="status-code">404</p><p>There is no such page on this dashboard.</p><p>
          <a href="/">Back to the dashboard</a>${
            ctx.account ? html` · <a href="/keys">API keys</a> · <a href="/usage">Usage</a>` : ''
          }</p>
          <p class="muted">Looking for the JSON-RPC endpoint? POST to <code>/v3/&lt;key&gt;</code> or
          <code>/networks/&lt;network&gt;/v3/&lt;key&gt;</code>.</p>
          </div>`,
      )
    : layout(
        'Something went wrong',
        ctx,
        html`<div class="card"><p class="status-code">500</p>
          <p>The dashboard hit an internal error. Try again in a moment; if it keeps happening, the gateway's log has
          the details for its operator.</p>
          <p><a href="/">Back to the dashboard</a></p></div>`,
      )
}
