/**
 * A test inbox: a real SMTP server (smtp-server, Nodemailer's own) on 127.0.0.1:0 for the mail tests. It accepts any
 * login, keeps every message (envelope recipients, headers, decoded text and HTML parts) and lets a test wait for the
 * next mail to an address and read the link in it. The sender under test reaches it through `config` (the `mail.smtp`
 * setting, docs/config.md "mail"): the mailer of src/mail/mailer.ts, as in production.
 */
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface InboxMail {
  to: string[]
  headerLines: string[]
  subject: string
  from: string
  text: string
  html: string
  raw: string
}

export interface SmtpInbox {
  /** The `mail.smtp` config that reaches it. */
  config: { host: string; port: number; secure: false }
  received: InboxMail[]
  logins: { user: string; password: string }[]
  /**
   * The first mail to `to` not yet taken, among those whose text contains `containing` when given (others stay for a
   * later call); waits up to `timeoutMs` (default 10 s).
   */
  next(to: string, opts?: { containing?: string; timeoutMs?: number }): Promise<InboxMail>
  /** The link containing `part` in the next mail to `to` that has one (e.g. an invitation among welcome mails). */
  nextLink(to: string, part: string, timeoutMs?: number): Promise<string>
  close(): Promise<void>
}

/** The first link in a mail's text that contains `part`. */
export function linkIn(mail: InboxMail, part: string): string {
  const link = (mail.text.match(/https?:\/\/\S+/g) ?? []).find((l) => l.includes(part))
  if (!link) throw new Error(`no link with ${part} in the mail "${mail.subject}":\n${mail.text}`)
  return link
}

const decodeQp = (s: string) =>
  Buffer.from(
    s.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/gi, (_, h: string) => String.fromCharCode(Number.parseInt(h, 16))),
    'latin1',
  ).toString('utf8')

const decodeWords = (s: string) =>
  s.replace(/=\?utf-8\?([QB])\?([^?]*)\?=/gi, (_, enc: string, body: string) =>
    enc.toUpperCase() === 'B' ? Buffer.from(body, 'base64').toString('utf8') : decodeQp(body.replace(/_/g, ' ')),
  )

function splitHeaders(part: string): { headers: string[]; body: string } {
  const at = part.search(/\r?\n\r?\n/)
  const head = part.slice(0, at).replace(/\r?\n[ \t]+/g, ' ')
  return { headers: head.split(/\r?\n/), body: part.slice(at).replace(/^\r?\n\r?\n/, '') }
}

const header = (lines: string[], name: string) =>
  lines
    .find((l) => l.toLowerCase().startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim() ?? ''

function decodePart(part: string): { type: string; body: string } {
  const { headers, body } = splitHeaders(part)
  const encoding = header(headers, 'content-transfer-encoding').toLowerCase()
  const decoded =
    encoding === 'quoted-printable'
      ? decodeQp(body)
      : encoding === 'base64'
        ? Buffer.from(body, 'base64').toString('utf8')
        : body
  return { type: header(headers, 'content-type').toLowerCase(), body: decoded }
}

export function parseMail(raw: string, to: string[]): InboxMail {
  const { headers } = splitHeaders(raw)
  const type = header(headers, 'content-type')
  const boundary = /boundary="?([^";]+)"?/.exec(type)?.[1]
  const parts = boundary ? raw.split(`--${boundary}`).slice(1, -1).map(decodePart) : [decodePart(raw)]
  const of = (t: string) => parts.find((p) => p.type.startsWith(t))?.body.trim() ?? ''
  return {
    to,
    headerLines: headers,
    subject: decodeWords(header(headers, 'subject')),
    from: decodeWords(header(headers, 'from')),
    text: of('text/plain'),
    html: of('text/html'),
    raw,
  }
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const received: InboxMail[] = []
  const logins: { user: string; password: string }[] = []
  const waiters: (() => void)[] = []
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      logins.push({ user: auth.username ?? '', password: auth.password ?? '' })
      cb(null, { user: auth.username })
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address.toLowerCase())
        received.push(parseMail(Buffer.concat(chunks).toString('utf8'), to))
        for (const w of waiters.splice(0)) w()
        cb()
      })
    },
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.server.address() as AddressInfo).port
  const taken = new Set<InboxMail>()
  const inbox: SmtpInbox = {
    config: { host: '127.0.0.1', port, secure: false },
    received,
    logins,
    async next(to, { containing, timeoutMs = 10_000 } = {}) {
      const deadline = Date.now() + timeoutMs
      const wanted = (m: InboxMail) =>
        !taken.has(m) && m.to.includes(to.toLowerCase()) && (containing === undefined || m.text.includes(containing))
      for (;;) {
        const mail = received.find(wanted)
        if (mail) {
          taken.add(mail)
          return mail
        }
        const left = deadline - Date.now()
        const what = containing === undefined ? '' : ` containing ${containing}`
        if (left <= 0) throw new Error(`no mail to ${to}${what} within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left)
          waiters.push(() => {
            clearTimeout(t)
            resolve()
          })
        })
      }
    },
    async nextLink(to, part, timeoutMs) {
      return linkIn(await inbox.next(to, { containing: part, ...(timeoutMs === undefined ? {} : { timeoutMs }) }), part)
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
  return inbox
}
