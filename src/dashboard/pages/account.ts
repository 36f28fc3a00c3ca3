import type { PlanConfig } from '../../config/schema.ts'
import { formatNumber, lineChart, quotaGauge } from '../charts.ts'
import { html } from '../../shared/html.ts'

import { csrfField, layout, type PageContext } from './layout.ts'

// ---- account pages ---------------------------------------------------------------------------------------------

export function landingPage(ctx: PageContext, signupEnabled: boolean): string {
  return layout(
    'Chain-node gateway',
    ctx,
    html`<div class="card">
      <p>Keyed, metered JSON-RPC endpoints for every network this gateway serves. Log in to create API keys, choose
      their networks and security settings, and see their usage.</p>
      <p class="row">
      <a class="button" href="/login">Log in</a>${
        signupEnabled ? html`<a class="button" href="/signup">Create an account</a>` : ''
      }</p>
      </div>`,
  )
}

export function loginPage(ctx: PageContext, opts: { email?: string; next?: string }): string {
  return layout(
    'Log in',
    ctx,
    html`<form class="card" method="post" action="/login">${csrfField(ctx.csrfToken)}${
      opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''
    }
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required><p>
      <button type="submit">Log in</button></p><p class="muted">No account? <a href="/signup">Sign up</a>.
      <a href="/forgot">Forgot password?</a></p></form>`,
  )
}

export function signupPage(ctx: PageContext, opts: { email?: string; enabled: boolean; invite?: string }): string {
  if (!opts.enabled)
    return layout(
      'Sign up',
      ctx,
      html`<div class="card"><p>Sign-up is closed on this gateway. Ask its operator for an account.</p></div>`,
    )
  return layout(
    'Sign up',
    ctx,
    html`<form class="card" method="post" action="/signup">${csrfField(ctx.csrfToken)}${
      opts.invite ? html`<input type="hidden" name="invite" value="${opts.invite}">` : ''
    }<label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="new-password" minlength="8" required
        aria-describedby="password-hint">
      <p id="password-hint" class="muted">At least 8 characters.</p><p><button type="submit">Create account</button></p>
      <p class="muted">Have an account? <a href="/login">Log in</a>.</p></form>`,
  )
}

// ---- overview --------------------------------------------------------------------------------------------------

export function overviewPage(
  ctx: PageContext,
  data: {
    planName: string
    plan: PlanConfig
    usedToday: number
    activeKeys: number
    daily: { labels: string[]; values: number[] }
  },
): string {
  const { plan } = data
  const gauge = quotaGauge({ used: data.usedToday, quota: plan.creditsPerDay })
  const chart = lineChart({
    title: 'Credits per day, last 7 days (UTC), against the daily quota',
    labels: data.daily.labels,
    series: [{ label: 'credits per day', values: data.daily.values }],
    reference: { label: `daily quota ${formatNumber(plan.creditsPerDay)}`, value: plan.creditsPerDay },
    id: 'daily-chart',
  })
  const perDay = plan.creditsPerDay.toLocaleString('en-US')
  const perSecond = plan.creditsPerSecond.toLocaleString('en-US')
  return layout(
    'Overview',
    ctx,
    html`<section class="card" aria-labelledby="balance-h">
      <h2 id="balance-h">Daily credit balance</h2>${gauge}${chart}
      </section><div class="grid2"><section class="card"><h2>Plan</h2><p>
      <strong>${data.planName}</strong>: ${perDay} credits per day, ${perSecond} credits per second, ${
        plan.maxKeys === null ? 'unlimited API keys' : `up to ${plan.maxKeys} API key${plan.maxKeys === 1 ? '' : 's'}`
      }.</p>
      </section><section class="card"><h2>API keys</h2>
      <p>${data.activeKeys} active key${data.activeKeys === 1 ? '' : 's'}. <a href="/keys">Manage keys</a> ·
      <a href="/usage">See usage</a></p>
      </section></div>`,
  )
}
