/**
 * Outgoing mail. One `Mailer` for the whole process: through the configured SMTP server (Nodemailer), or, without
 * one (the embedded default), written as .eml files to `<dataDir>/mail/` (0600) with their links in one log line, so
 * a developer running `npm start` can follow every flow (docs/config.md, `mail`).
 *
 * Header injection: the recipient must pass the one email check (src/accounts/email.ts: no whitespace or control
 * characters, so no CR/LF) and the subject loses every control character before Nodemailer encodes the headers.
 * Mails never carry a key or a password: callers pass only links and notices.
 */
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import nodemailer from 'nodemailer'
import { emailProblem, normalizeEmail } from '../accounts/email.ts'
import type { MailConfig } from '../config/mail-schema.ts'
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../db/private-files.ts'
import { errors } from '../errors/index.ts'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
}

export interface Mailer {
  /** Sends one mail; rejects when the recipient is not a valid address or the SMTP server refuses it. */
  send(message: MailMessage): Promise<void>
  close(): void
}

export interface MailLogger {
  info(obj: object, msg?: string): void
  warn(obj: object, msg?: string): void
}

/** Control and invisible characters (CR, LF, NUL, bidi overrides) replaced by a space: a header stays one line. */
export const headerText = (s: string): string => s.replace(/[\p{Cc}\p{Cf}]+/gu, ' ').trim()

/** The recipient, normalized, or a VALIDATION error: the one email check keeps CR/LF and commas' lists out. */
export function mailRecipient(to: string): string {
  const address = normalizeEmail(to)
  const problem = emailProblem(address)
  if (problem !== undefined || address.includes(',') || address.includes('<') || address.includes('>'))
    throw errors.validation(problem ?? 'one plain email address', 'to')
  return address
}

/** The links of a text mail (what the file mailer logs). */
export const linksOf = (text: string): string[] => text.match(/https?:\/\/[^\s<>"]+/g) ?? []

export function createMailer(config: MailConfig, opts: { dataDir: string; logger: MailLogger }): Mailer {
  const from = headerText(config.from)
  const smtp = config.smtp
  const transport = smtp
    ? nodemailer.createTransport({
        host: smtp.host,
        port: smtp.port,
        secure: smtp.secure,
        requireTLS: smtp.requireTls,
        ...(smtp.user !== null ? { auth: { user: smtp.user, pass: smtp.password ?? '' } } : {}),
        connectionTimeout: smtp.timeoutMs,
        greetingTimeout: smtp.timeoutMs,
        socketTimeout: smtp.timeoutMs,
      })
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  const dir = join(opts.dataDir, 'mail')
  return {
    async send(message) {
      const envelope = {
        from,
        to: mailRecipient(message.to),
        subject: headerText(message.subject),
        text: message.text,
        html: message.html,
      }
      const info = await transport.sendMail(envelope)
      if (smtp) {
        opts.logger.info({ subject: envelope.subject }, 'mail sent')
        return
      }
      ensurePrivateDir(dir)
      const file = join(dir, `${Date.now()}-${randomBytes(4).toString('hex')}.eml`)
      writeFileSync(file, (info as { message: Buffer }).message, { mode: PRIVATE_FILE_MODE })
      // One line per mail: where it is and the links in it, so `npm start` users can click through. A warning, so
      // the terminal shows it when the log goes to a file (log.destination), and it says the mail was not sent.
      opts.logger.warn(
        { to: envelope.to, subject: envelope.subject, file, links: linksOf(message.text) },
        'mail written (no mail.smtp configured)',
      )
    },
    close() {
      transport.close()
    },
  }
}
