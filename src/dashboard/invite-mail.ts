/**
 * The invitation mail: plain text and simple HTML (escaped, so a team name never becomes markup), never a key or a
 * password. The team name cannot hold control characters or line breaks (src/accounts/teams/repository.ts); they
 * are stripped here again before it enters the Subject header, so no name can add a header.
 */
import { html } from '../shared/html.ts'

export const headerSafe = (s: string) => s.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ').trim()

const FOOTER = 'Not expecting this? Ignore this mail.'

export function invitationMail(input: { to: string; teamName: string; role: string; inviter: string; url: string }) {
  const team = headerSafe(input.teamName)
  const lines = [
    `${input.inviter} invited you to the team "${team}" on chaingate as ${input.role}.`,
    'Open the link to accept. No account with this address yet? Sign up with it first, then open the link again.',
  ]
  return {
    to: input.to,
    subject: `Invitation to the team "${team}" on chaingate`,
    text: `${lines.join('\n\n')}\n\nAccept the invitation:\n${input.url}\n\n-- \n${FOOTER}\n`,
    html: html`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${lines.map(
      (l) => html`<p>${l}</p>`,
    )}<p><a href="${input.url}">Accept the invitation</a></p><p style="color:#555">${input.url}</p></body></html>`
      .value,
  }
}
