/**
 * The `mail` section of the config: how chaingate sends the dashboard's mails (sign-up confirmation, password reset,
 * notices). Without `smtp` (the default) every mail is written to `<dataDir>/mail/` and its links logged, so a
 * developer can follow every flow locally (docs/config.md).
 */
import { z } from 'zod'

/** A display name or address for a header: no control characters (CR/LF would start a new header). */
const headerSafe = z
  .string()
  .min(1)
  .max(320)
  .regex(/^[^\p{Cc}\p{Cf}]+$/u, 'no control or invisible characters')

export const MailConfigSchema = z
  .object({
    /** The From header, e.g. `chaingate <noreply@rpc.example.com>` or a bare address. */
    from: headerSafe.default('chaingate <noreply@localhost>'),
    /**
     * The SMTP server mails go out through (Nodemailer); null: mails are written to `<dataDir>/mail/` instead.
     * `${ENV}` expansion applies to every string, so the password can come from the environment.
     */
    smtp: z
      .object({
        host: z.string().min(1),
        port: z.number().int().min(1).max(65535).default(587),
        /** TLS from the first byte (port 465); false: plain, upgraded with STARTTLS when the server offers it. */
        secure: z.boolean().default(false),
        /** Refuse to send unless the connection is upgraded with STARTTLS (with `secure: false`). */
        requireTls: z.boolean().default(false),
        user: z.string().min(1).nullable().default(null),
        password: z.string().min(1).nullable().default(null),
        /** Give up on a server that does not answer within this (connect, greeting, each command). */
        timeoutMs: z.number().int().min(100).max(300_000).default(10_000),
      })
      .strict()
      .nullable()
      .default(null),
  })
  .strict()

export type MailConfig = z.infer<typeof MailConfigSchema>
