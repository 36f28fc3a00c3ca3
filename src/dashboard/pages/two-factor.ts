/** Pages of two-factor log-in and the account page's sections for it and for active log-ins (docs/dashboard.md). */
import type { SessionListing } from '../../accounts/login-repository.ts'
import { html } from '../../shared/html.ts'
import { deviceName } from '../user-agent.ts'
import { csrfField, layout, type PageContext } from './layout.ts'

const CODE_INPUT = html`<label for="code">Code from your authenticator app, or a recovery code</label>
  <input id="code" name="code" type="text" inputmode="text" autocomplete="one-time-code" required maxlength="20">`

export function secondFactorPage(ctx: PageContext): string {
  return layout(
    'Two-factor log-in',
    ctx,
    html`<form class="card" method="post" action="/login/2fa">${csrfField(ctx.csrfToken)}${CODE_INPUT}
      <p><button type="submit">Log in</button></p><p class="muted"><a href="/login">Start again</a></p></form>`,
  )
}

export function enrollPage(ctx: PageContext, data: { qr: string; secret: string; uri: string }): string {
  return layout(
    'Turn on two-factor log-in',
    ctx,
    html`<section class="card"><p>Scan this code with an authenticator app (or type the key), then enter the code
      it shows.</p><p><img src="${data.qr}" alt="QR code of the two-factor key" width="200" height="200"></p>
      <p>Key: <code class="mono" id="totp-secret">${data.secret}</code></p>
      <form method="post" action="/account/2fa/enable">${csrfField(ctx.csrfToken)}
      <label for="code">Code from the app</label>
      <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" required maxlength="8">
      <p><button type="submit">Turn on</button></p></form></section>`,
  )
}

export function recoveryCodesPage(ctx: PageContext, codes: string[]): string {
  return layout(
    'Recovery codes',
    ctx,
    html`<section class="card"><p>Two-factor log-in is on. Keep these recovery codes somewhere safe: each logs in
      once without the app. They are shown only now.</p><ul id="recovery-codes" class="mono">${codes.map(
        (c) => html`<li>${c}</li>`,
      )}</ul><p><a href="/account">Back to the account</a></p></section>`,
  )
}

export function twoFactorSection(csrfToken: string, state: { enabled: boolean; codesLeft: number; required: boolean }) {
  if (!state.enabled)
    return html`<section class="card" aria-labelledby="tfa-h"><h2 id="tfa-h">Two-factor log-in</h2>
      <p>${state.required ? 'Required on this gateway: ' : ''}log in with a code from an authenticator app as well.</p>
      <form method="post" action="/account/2fa/setup">${csrfField(csrfToken)}
      <button type="submit">Set up two-factor log-in</button></form></section>`
  return html`<section class="card" aria-labelledby="tfa-h"><h2 id="tfa-h">Two-factor log-in</h2>
    <p>On. ${state.codesLeft} recovery code${state.codesLeft === 1 ? '' : 's'} left.</p>${
      state.required
        ? html`<p class="muted">Required on this gateway: it cannot be turned off.</p>`
        : html`<form method="post" action="/account/2fa/disable">${csrfField(csrfToken)}
    <label for="tfa-password">Password</label>
    <input id="tfa-password" name="password" type="password" autocomplete="current-password" required>${CODE_INPUT}
    <p><button type="submit" class="danger">Turn off</button></p></form>`
    }</section>`
}

export function sessionsSection(csrfToken: string, sessions: SessionListing[], currentIdHash: string) {
  const seen = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`
  const rows = sessions.map(
    (s) => html`<tr><td>${deviceName(s.userAgent)}${
      s.idHash === currentIdHash ? html` <span class="badge on">this browser</span>` : ''
    }</td><td class="mono">${s.ip ?? ''}</td><td>${seen(s.lastSeenAt)}</td>
      <td><form method="post" action="/account/sessions/end">${csrfField(csrfToken)}
      <input type="hidden" name="session" value="${s.idHash}">
      <button type="submit" class="small">Log out</button></form></td></tr>`,
  )
  return html`<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">Active log-ins</h2>
    <table id="sessions"><thead><tr><th>Device</th><th>IP</th><th>Last seen</th><th></th></tr></thead>
    <tbody>${rows}</tbody></table></section>`
}
