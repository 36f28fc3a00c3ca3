/**
 * The shape of every mail chaingate sends: a few plain paragraphs and at most one link, as plain text and as
 * simple HTML (escaped: an email address or a team name can never become markup).
 */
import { html } from '../shared/html.ts'
import type { MailMessage } from './mailer.ts'

export interface MailContent {
  subject: string
  paragraphs: string[]
  link?: { label: string; url: string }
  /** Last line, e.g. why the mail came and what to do if it was not you. */
  footer?: string
}

export function composeMail(to: string, content: MailContent): MailMessage {
  const { paragraphs, link, footer } = content
  const text = [
    ...paragraphs,
    ...(link ? [`${link.label}:\n${link.url}`] : []),
    ...(footer ? [`-- \n${footer}`] : []),
  ].join('\n\n')
  const body = html`<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">${paragraphs.map(
    (p) => html`<p>${p}</p>`,
  )}${link ? html`<p><a href="${link.url}">${link.label}</a></p><p style="color:#555">${link.url}</p>` : ''}${
    footer ? html`<p style="color:#555;font-size:small">${footer}</p>` : ''
  }</body></html>`
  return { to, subject: content.subject, text: `${text}\n`, html: body.value }
}
