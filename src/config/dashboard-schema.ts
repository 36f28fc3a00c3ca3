/**
 * The `dashboard` section of the config (web dashboard on the gateway listener). See docs/config.md, docs/dashboard.md.
 */
import { z } from 'zod'

export const DashboardConfigSchema = z
  .object({
    enabled: z.boolean().default(true),
    /** Anyone who reaches the listener may sign up; false: accounts come from the CLI only (they can still log in). */
    signup: z.boolean().default(true),
    /**
     * Base URL shown in the endpoint URLs of the key pages, e.g. `https://rpc.example.com`; null: the scheme, host
     * and port the dashboard was reached on.
     */
    publicBaseUrl: z
      .url({ protocol: /^https?$/ })
      .nullable()
      .default(null),
    /**
     * A dashboard sign-up must follow the link mailed to its address before it can create keys; false: accounts are
     * confirmed at sign-up (closed installs whose operator knows every user).
     */
    confirmEmail: z.boolean().default(true),
    /** How long a confirmation link stays valid. */
    confirmLinkHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(48),
    /** How long a password-reset link stays valid. */
    resetLinkMinutes: z
      .number()
      .int()
      .min(5)
      .max(24 * 60)
      .default(30),
    /** Password-reset requests allowed per email, and per client IP, in any hour. */
    resetsPerHour: z.number().int().min(1).max(10_000).default(5),
    /** Who must log in with a second factor (TOTP): nobody (optional for everyone), operators, or every account. */
    requireTwoFactor: z.enum(['none', 'operators', 'all']).default('none'),
    /** How long a login lasts. */
    sessionTtlHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 90)
      .default(24 * 7),
    /** How long a team invitation link stays valid (docs/dashboard.md, "Teams"). */
    invitationTtlHours: z
      .number()
      .int()
      .min(1)
      .max(24 * 30)
      .default(72),
    /** Failed logins allowed per email, and per client IP, in any 60 seconds. */
    loginAttemptsPerMinute: z.number().int().min(1).max(1000).default(5),
    /** Sign-up attempts allowed per client IP in any hour. */
    signupsPerHour: z.number().int().min(1).max(10_000).default(10),
    /**
     * The `aud` claim a key's JWTs must carry (Infura uses "infura.io":
     * https://docs.metamask.io/services/how-to/json-web-token-jwt/).
     */
    jwtAudience: z.string().min(1).default('chaingate'),
  })
  .strict()

export type DashboardConfig = z.infer<typeof DashboardConfigSchema>
