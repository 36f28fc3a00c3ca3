/** Pages of the mailed links: forgot password, set a new password, confirm the email (docs/dashboard.md, "Mail"). */
import { html } from '../../shared/html.ts'
import { csrfField, layout, type PageContext } from './layout.ts'

export function forgotPage(ctx: PageContext, opts: { email?: string } = {}): string {
  return layout(
    'Forgot password',
    ctx,
    html`<form class="card" method="post" action="/forgot">${csrfField(ctx.csrfToken)}
      <p>Enter the email address of your account: a link to set a new password is mailed to it.</p>
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}">
      <p><button type="submit">Send the link</button></p>
      <p class="muted"><a href="/login">Back to log-in</a></p></form>`,
  )
}

export function resetPage(ctx: PageContext, token: string): string {
  return layout(
    'Set a new password',
    ctx,
    html`<form class="card" method="post" action="/reset">${csrfField(ctx.csrfToken)}
      <input type="hidden" name="token" value="${token}">
      <label for="new-password">New password</label>
      <input id="new-password" name="password" type="password" autocomplete="new-password" minlength="8" required
        aria-describedby="password-hint">
      <p id="password-hint" class="muted">At least 8 characters. Every session of the account is logged out.</p>
      <p><button type="submit">Set password</button></p></form>`,
  )
}

export function confirmPage(ctx: PageContext, token: string, email: string): string {
  return layout(
    'Confirm your email',
    ctx,
    html`<form class="card" method="post" action="/confirm">${csrfField(ctx.csrfToken)}
      <input type="hidden" name="token" value="${token}">
      <p>Confirm <strong>${email}</strong> as the address of your account.</p>
      <p><button type="submit">Confirm</button></p></form>`,
  )
}

/** On the keys page of an account whose email is not confirmed yet. */
export function unconfirmedNotice(csrfToken: string, email: string) {
  return html`<section class="card" aria-labelledby="confirm-h"><h2 id="confirm-h">Confirm your email</h2>
    <p>Follow the link mailed to <strong>${email}</strong> to create API keys.</p>
    <form method="post" action="/confirm/resend">${csrfField(csrfToken)}
    <button type="submit" class="small">Send the link again</button></form></section>`
}
