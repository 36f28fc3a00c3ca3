/**
 * The texts of the account mails (docs/dashboard.md, "Mail"). Each holds at most one link and never a key or a
 * password; the address it goes to is the only account detail in it.
 */
import { composeMail } from './compose.ts'
import type { MailMessage } from './mailer.ts'

const NOT_YOU = 'If this was not you, you can ignore this mail.'

export const accountMails = {
  confirm: (to: string, url: string, hours: number): MailMessage =>
    composeMail(to, {
      subject: 'Confirm your email address',
      paragraphs: [
        `An account was created on this gateway with the address ${to}.`,
        `Confirm the address to create API keys. The link works once, within ${hours} hours.`,
      ],
      link: { label: 'Confirm your email address', url },
      footer: NOT_YOU,
    }),
  welcome: (to: string, dashboardUrl: string): MailMessage =>
    composeMail(to, {
      subject: 'Your account is ready',
      paragraphs: [`An account was created on this gateway with the address ${to}. Log in to create API keys.`],
      link: { label: 'Open the dashboard', url: `${dashboardUrl}/login` },
      footer: "If this was not you, tell the gateway's operator.",
    }),
  signupExists: (to: string, resetUrl: string, minutes: number): MailMessage =>
    composeMail(to, {
      subject: 'Someone tried to sign up with your address',
      paragraphs: [
        `Someone tried to create an account on this gateway with ${to}, which already has one. Nothing was changed.`,
        `If it was you and you forgot your password, set a new one (the link works once, within ${minutes} minutes).`,
      ],
      link: { label: 'Set a new password', url: resetUrl },
      footer: NOT_YOU,
    }),
  reset: (to: string, url: string, minutes: number): MailMessage =>
    composeMail(to, {
      subject: 'Reset your password',
      paragraphs: [
        `Someone asked to reset the password of the account ${to}.`,
        `The link works once, within ${minutes} minutes. Setting a new password logs out every session.`,
      ],
      link: { label: 'Set a new password', url },
      footer: NOT_YOU,
    }),
  resetUnknown: (to: string): MailMessage =>
    composeMail(to, {
      subject: 'Reset your password',
      paragraphs: [
        `Someone asked to reset the password of an account with the address ${to}, but no account uses it.`,
        'If it was you, maybe you signed up with another address.',
      ],
      footer: NOT_YOU,
    }),
  passwordChanged: (to: string): MailMessage =>
    composeMail(to, {
      subject: 'Your password was changed',
      paragraphs: [
        `The password of the account ${to} was just set with a reset link, and every session was logged out.`,
        "If this was not you, reset your password now and tell the gateway's operator.",
      ],
    }),
  twoFactor: (to: string, on: boolean): MailMessage =>
    composeMail(to, {
      subject: on ? 'Two-factor log-in turned on' : 'Two-factor log-in turned off',
      paragraphs: [
        on
          ? `Logging in to ${to} now needs a code from your authenticator app (or a recovery code).`
          : `Logging in to ${to} no longer needs a code from an authenticator app.`,
        "If this was not you, reset your password now and tell the gateway's operator.",
      ],
    }),
}
