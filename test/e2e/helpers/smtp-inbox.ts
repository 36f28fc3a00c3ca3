/**
 * A real SMTP server (smtp-server, Nodemailer's own) on 127.0.0.1:0 keeping every message, and a sender reaching it
 * through Nodemailer: the dashboard's mailer in the team tests until src/mail's Mailer is merged (then its own
 * test helper replaces this one).
 */
import type { AddressInfo } from 'node:net'
import nodemailer from 'nodemailer'
import { SMTPServer } from 'smtp-server'
import type { MailSender } from '../../../src/dashboard/context.ts'

export interface InboxMail {
  to: string[]
  /** The raw message, quoted-printable soft breaks and escapes undone. */
  raw: string
}

const decodeQp = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  ).toString('utf8')

export async function startSmtpInbox() {
  const received: InboxMail[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        received.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: decodeQp(Buffer.concat(chunks).toString('latin1')),
        })
        callback()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true })
  const mailer: MailSender = {
    async send(m) {
      await transport.sendMail({ from: 'chaingate <noreply@example.com>', ...m })
    },
  }
  return {
    mailer,
    received,
    /** The mails to `to`, waiting up to `timeoutMs` for at least one. */
    async mailsTo(to: string, timeoutMs = 5000): Promise<InboxMail[]> {
      return waitForMails((m) => m.to.includes(to), timeoutMs)
    },
    /** The invitation mails to `to` (a sign-up also mails a confirmation link), waiting as `mailsTo`. */
    async invitesTo(to: string, timeoutMs = 5000): Promise<InboxMail[]> {
      return waitForMails((m) => m.to.includes(to) && /\/invite\//.test(m.raw), timeoutMs)
    },
    async close() {
      transport.close()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }

  async function waitForMails(match: (m: InboxMail) => boolean, timeoutMs: number): Promise<InboxMail[]> {
    const until = Date.now() + timeoutMs
    for (;;) {
      const found = received.filter(match)
      if (found.length > 0 || Date.now() > until) return found
      await new Promise((r) => setTimeout(r, 20))
    }
  }
}

/** The invitation link in a mail. */
export function invitationLink(mail: InboxMail): string {
  const link = /https?:\/\/[^\s"<>]+\/invite\/[A-Za-z0-9_-]{43}/.exec(mail.raw)?.[0]
  if (!link) throw new Error(`no invitation link in:\n${mail.raw}`)
  return link
}
