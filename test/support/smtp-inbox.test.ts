/**
 * The SMTP inbox (./smtp-inbox.ts) receiving mails sent with nodemailer over real SMTP: decoded subject, sender, text
 * and HTML parts, envelope recipients, logins, `next` per address (each mail taken once, a timeout when none comes)
 * and `linkIn`.
 */
import nodemailer, { type Transporter } from 'nodemailer'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { linkIn, parseMail, startSmtpInbox, type SmtpInbox } from './smtp-inbox.ts'

describe('SMTP inbox', () => {
  let inbox: SmtpInbox
  let transport: Transporter
  beforeAll(async () => {
    inbox = await startSmtpInbox()
    transport = nodemailer.createTransport({ ...inbox.config, auth: { user: 'u', pass: 'p' } })
  })
  afterAll(async () => {
    transport?.close()
    await inbox?.close()
  })

  it('keeps a mail sent with nodemailer, decoded, and the login it came with', async () => {
    await transport.sendMail({
      from: 'Gateway Ünïcode <noreply@example.com>',
      to: 'Alice@Example.com',
      subject: 'Confirm your email — ✓',
      text: `Héllo, open https://gw.example/confirm?token=${'a'.repeat(80)} to confirm.`,
      html: '<p>Héllo &amp; welcome</p>',
    })
    const mail = await inbox.next('alice@example.com')
    expect(mail.to).toEqual(['alice@example.com'])
    expect(mail.subject).toBe('Confirm your email — ✓')
    expect(mail.from).toBe('Gateway Ünïcode <noreply@example.com>')
    expect(mail.text).toContain('Héllo, open https://gw.example/confirm?token=')
    expect(mail.html).toBe('<p>Héllo &amp; welcome</p>')
    expect(mail.headerLines.some((h) => /^message-id:/i.test(h))).toBe(true)
    expect(linkIn(mail, '/confirm?token=')).toBe(`https://gw.example/confirm?token=${'a'.repeat(80)}`)
    expect(() => linkIn(mail, '/reset?token=')).toThrow(/no link with \/reset\?token=/)
    expect(inbox.logins).toContainEqual({ user: 'u', password: 'p' })
  })

  it('next gives each mail to an address once, in order, and fails when none comes in time', async () => {
    for (const n of [1, 2])
      await transport.sendMail({ from: 'a@example.com', to: 'bob@example.com', subject: `#${n}`, text: 'x' })
    await transport.sendMail({ from: 'a@example.com', to: 'carol@example.com', subject: 'other', text: 'x' })
    expect((await inbox.next('bob@example.com')).subject).toBe('#1')
    expect((await inbox.next('bob@example.com')).subject).toBe('#2')
    await expect(inbox.next('bob@example.com', { timeoutMs: 100 })).rejects.toThrow(
      'no mail to bob@example.com within 100 ms',
    )
    expect((await inbox.next('carol@example.com')).subject).toBe('other')
  })

  it('next with `containing` skips the mails whose text lacks it and leaves them for later', async () => {
    await transport.sendMail({ from: 'a@example.com', to: 'erin@example.com', subject: 'welcome', text: 'hello' })
    await transport.sendMail({ from: 'a@example.com', to: 'erin@example.com', subject: 'invite', text: 'x /invite/y' })
    expect((await inbox.next('erin@example.com', { containing: '/invite/' })).subject).toBe('invite')
    await expect(inbox.next('erin@example.com', { containing: '/invite/', timeoutMs: 100 })).rejects.toThrow(
      'no mail to erin@example.com containing /invite/ within 100 ms',
    )
    expect((await inbox.next('erin@example.com')).subject).toBe('welcome')
    await transport.sendMail({
      from: 'a@example.com',
      to: 'erin@example.com',
      subject: 'i',
      text: 'at http://h/invite/z',
    })
    expect(await inbox.nextLink('erin@example.com', '/invite/')).toBe('http://h/invite/z')
  })

  it('next waits for a mail that arrives after it was asked for', async () => {
    const waiting = inbox.next('dave@example.com')
    await transport.sendMail({ from: 'a@example.com', to: 'dave@example.com', subject: 'late', text: 'x' })
    expect((await waiting).subject).toBe('late')
  })
})

it('parseMail decodes quoted-printable and base64 parts and encoded-word headers', () => {
  const raw = [
    'From: =?UTF-8?B?w4l2ZQ==?= <eve@example.com>',
    'Subject: =?UTF-8?Q?caf=C3=A9_time?=',
    'Content-Type: multipart/alternative; boundary="b1"',
    '',
    '--b1',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'caf=C3=A9 with a soft=',
    ' break',
    '--b1',
    'Content-Type: text/html; charset=utf-8',
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from('<b>café</b>').toString('base64'),
    '--b1--',
    '',
  ].join('\r\n')
  expect(parseMail(raw, ['x@example.com'])).toMatchObject({
    to: ['x@example.com'],
    from: 'Éve <eve@example.com>',
    subject: 'café time',
    text: 'café with a soft break',
    html: '<b>café</b>',
  })
})
