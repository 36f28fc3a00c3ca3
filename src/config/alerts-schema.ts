/**
 * The `alerts` section of the config: usage alerts and their webhooks (docs/alerts.md, docs/config.md).
 */
import { z } from 'zod'

export const AlertsConfigSchema = z
  .object({
    /** false: no thresholds are checked and no webhook is sent (settings and the log stay in the database). */
    enabled: z.boolean().default(true),
    /** How often each process compares the accounts that have alerts against their thresholds. */
    sweepMs: z.number().int().min(50).max(600_000).default(2000),
    /** How often each process looks for deliveries that are due (new ones are sent at once). */
    deliveryPollMs: z.number().int().min(20).max(600_000).default(1000),
    /** A webhook that does not answer within this counts as a failed attempt (retried). */
    timeoutMs: z.number().int().min(100).max(120_000).default(10_000),
    /** Attempts per delivery, the first included; after the last one the delivery is `failed`. */
    maxAttempts: z.number().int().min(1).max(50).default(8),
    /** The wait after the first failed attempt; doubled after each further one (with up to 20 % jitter). */
    backoffBaseMs: z.number().int().min(10).max(3_600_000).default(10_000),
    /** The longest wait between two attempts. */
    backoffMaxMs: z.number().int().min(10).max(86_400_000).default(3_600_000),
    /** Alerts (with their delivery log) older than this are deleted, hourly; pending ones are kept. */
    retentionDays: z.number().int().min(1).max(3650).default(90),
    /**
     * Host names webhooks may point at (`hooks.example.com`, or `*.example.com` for its sub-domains); null: any.
     * On a shared gateway set it: a webhook URL is a request the gateway makes on a customer's behalf (SSRF).
     */
    allowedHosts: z.array(z.string().min(1)).nullable().default(null),
    /**
     * true: webhooks may also reach loopback, private (RFC 1918, fc00::/7), link-local, CGNAT and other addresses
     * that are not public (a receiver on the gateway's own network). Checked on the address each connection uses.
     */
    allowPrivateTargets: z.boolean().default(false),
  })
  .strict()

export type AlertsConfig = z.infer<typeof AlertsConfigSchema>
