/**
 * The mailer against a real SMTP server (smtp-server, Nodemailer's own) and in file mode: what arrives, the file's
 * mode, the one log line with the links, and header injection through the recipient or the subject refused.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MailConfigSchema } from '../config/mail-schema.ts'
import { startSmtpInbox, type SmtpInbox } from '../../test/support/smtp-inbox.ts'
import { composeMail } from './compose.ts'
import { createMailer } from './mailer.ts'

const logs: { obj: Record<string, unknown>; msg?: string }[] = []
const note = (obj: object, msg?: string) => void logs.push({ obj: obj as never, msg })
const logger = { info: note, warn: note }
const message = composeMail('Alice@Example.com', {
  subject: 'Confirm your <email>',
  paragraphs: ['Hello <b>there</b> & welcome.'],
  link: { label: 'Confirm', url: 'http://127.0.0.1:8545/confirm?token=abc_DEF-123' },
})

describe('mailer', () => {
  let smtp: SmtpInbox
  let dir: string
  beforeAll(async () => {
    smtp = await startSmtpInbox()
    dir = mkdtempSync(join(tmpdir(), 'chaingate-mail-'))
  })
  afterAll(async () => {
    await smtp.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('sends plain text and escaped HTML through SMTP with auth', async () => {
    const mailer = createMailer(
      MailConfigSchema.parse({
        from: 'Gateway <noreply@example.com>',
        smtp: { ...smtp.config, user: 'u', password: 'p' },
      }),
      { dataDir: dir, logger },
    )
    await mailer.send(message)
    const mail = await smtp.next('alice@example.com')
    expect(mail.subject).toBe('Confirm your <email>')
    expect(mail.from).toContain('noreply@example.com')
    expect(mail.text).toContain('http://127.0.0.1:8545/confirm?token=abc_DEF-123')
    expect(mail.html).toContain('Hello &lt;b&gt;there&lt;/b&gt; &amp; welcome.')
    expect(smtp.logins).toContainEqual({ user: 'u', password: 'p' })
    mailer.close()
  })

  it('refuses a recipient with CR/LF or a second address, and keeps a subject on one line', async () => {
    const mailer = createMailer(MailConfigSchema.parse({ smtp: smtp.config }), { dataDir: dir, logger })
    for (const to of ['a@example.com\r\nBcc: evil@example.com', 'a@example.com,evil@example.com', 'x <a@b.c>'])
      await expect(mailer.send({ ...message, to })).rejects.toMatchObject({ code: 'VALIDATION' })
    await mailer.send({ ...message, to: 'bob@example.com', subject: 'Hi\r\nBcc: evil@example.com' })
    const mail = await smtp.next('bob@example.com')
    expect(mail.subject).toBe('Hi Bcc: evil@example.com')
    expect(mail.headerLines.some((h) => /^bcc:/i.test(h))).toBe(false)
    expect(smtp.received.flatMap((m) => m.to)).not.toContain('evil@example.com')
    mailer.close()
  })

  it('without SMTP writes a private .eml file per mail and logs its links in one line', async () => {
    const mailer = createMailer(MailConfigSchema.parse({}), { dataDir: dir, logger })
    await mailer.send(message)
    const files = readdirSync(join(dir, 'mail'))
    expect(files).toHaveLength(1)
    const file = join(dir, 'mail', files[0]!)
    if (process.platform !== 'win32') expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(readFileSync(file, 'utf8')).toContain('abc_DEF-123')
    const line = logs.find((l) => l.msg === 'mail written (no mail.smtp configured)')
    expect(line?.obj).toMatchObject({ file, links: ['http://127.0.0.1:8545/confirm?token=abc_DEF-123'] })
  })
})
