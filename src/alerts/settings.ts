/**
 * An account's alert settings and the rules for them, shared by the CLI, the dashboard and the admin API (one
 * implementation, three faces): credit thresholds as percentages of the daily balance, a refusal-rate threshold,
 * and the webhook with its signing secret. The secret is generated here, returned once, and never shown again.
 */
import { randomBytes } from 'node:crypto'
import type { Db } from '../db/database.ts'
import { errors } from '../errors/index.ts'
import { literalTargetProblem } from './egress.ts'

export interface AlertSettings {
  accountId: string
  /** Percentages of the daily credit balance, ascending, e.g. [80, 100]. */
  creditThresholds: number[]
  /** Refused calls (402/429: balance or credits/s) per minute above which an alert fires; null: none. */
  refusalsPerMinute: number | null
  webhookUrl: string | null
  updatedAt: number
}

/** What a caller changes; an omitted field keeps its value. */
export interface AlertSettingsChange {
  creditThresholds?: number[]
  refusalsPerMinute?: number | null
  webhookUrl?: string | null
  /** A new signing secret (the old one stops verifying at once). */
  rotateSecret?: boolean
}

/** The webhook target and key, for the sender only. */
export interface WebhookTarget {
  url: string
  secret: string
}

export interface AlertSettingsRepository {
  get(accountId: string): Promise<AlertSettings | undefined>
  /** Every account's settings (deleted accounts left out), for the sweep and `chaingate alerts list`. */
  list(): Promise<(AlertSettings & { plan: string; email: string })[]>
  /** Validates and saves; `secret` is set when one was made (first settings, or rotated): show it once. */
  set(
    accountId: string,
    change: AlertSettingsChange,
    nowMs: number,
  ): Promise<{ settings: AlertSettings; secret?: string }>
  remove(accountId: string): Promise<boolean>
  target(accountId: string): Promise<WebhookTarget | undefined>
}

const MAX_THRESHOLDS = 10

/** "80,100" or [80, 100] → [80, 100]: whole percentages 1..100, distinct, ascending. */
export function parseThresholds(input: string | readonly number[]): number[] {
  const parts =
    typeof input === 'string'
      ? input
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : input
  const out = new Set<number>()
  for (const p of parts) {
    const n = typeof p === 'number' ? p : /^\d+$/.test(p) ? Number(p) : Number.NaN
    if (!Number.isInteger(n) || n < 1 || n > 100)
      throw errors.validation(
        `creditThresholds: ${String(p)} is not a whole percentage from 1 to 100`,
        'creditThresholds',
      )
    out.add(n)
  }
  if (out.size > MAX_THRESHOLDS)
    throw errors.validation(`creditThresholds: at most ${MAX_THRESHOLDS} thresholds`, 'creditThresholds')
  return [...out].sort((a, b) => a - b)
}

/** A positive whole number of refused calls per minute, or null (none). */
export function parseRefusalRate(input: string | number | null): number | null {
  if (input === null || input === '' || input === 'none' || input === 0 || input === '0') return null
  const n = typeof input === 'number' ? input : /^\d+$/.test(input) ? Number(input) : Number.NaN
  if (!Number.isInteger(n) || n < 1 || n > 10_000_000)
    throw errors.validation(
      `refusalsPerMinute: ${String(input)} is not a whole number of calls from 1 to 10000000`,
      'refusalsPerMinute',
    )
  return n
}

/** The operator's rules for webhook targets (config `alerts`; docs/alerts.md, "SSRF"). */
export interface WebhookRules {
  /** Exact host names or `*.example.com` for sub-domains; null: any. */
  allowedHosts: readonly string[] | null
  /** true: private, loopback and link-local addresses too (default false). */
  allowPrivateTargets?: boolean | undefined
}

/**
 * Why the current rules refuse a URL's host, without resolving it (a resolved address is checked when the
 * webhook connects: src/alerts/egress.ts); undefined when they allow it.
 */
export function hostProblem(url: URL, rules: WebhookRules): string | undefined {
  const host = url.hostname.toLowerCase()
  const allowed =
    rules.allowedHosts === null ||
    rules.allowedHosts.some((h) => {
      const rule = h.toLowerCase()
      return rule.startsWith('*.') ? host.endsWith(rule.slice(1)) : host === rule
    })
  if (!allowed) return `host ${host} is not in the gateway's alerts.allowedHosts`
  if (!rules.allowPrivateTargets) {
    const problem = literalTargetProblem(host)
    if (problem) return `${problem}, refused unless the gateway sets alerts.allowPrivateTargets`
  }
  return undefined
}

/**
 * Whether a stored webhook URL may still be sent to under the current rules (checked before every attempt: the
 * rules may have changed since it was saved): undefined when it may, else why not (for the server log).
 */
export function storedUrlProblem(stored: string, rules: WebhookRules): string | undefined {
  let url: URL
  try {
    url = new URL(stored)
  } catch {
    return 'not a URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'not an http(s) URL'
  if (url.username || url.password) return 'a user or password in the URL'
  return hostProblem(url, rules)
}

/**
 * Only http(s) URLs, without credentials, to a host the rules allow (docs/alerts.md, "SSRF").
 */
export function checkWebhookUrl(input: string, rules: WebhookRules): string {
  let url: URL
  try {
    url = new URL(input)
  } catch {
    throw errors.validation('webhookUrl: not a URL', 'webhookUrl')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw errors.validation('webhookUrl: only http(s) URLs', 'webhookUrl')
  if (url.username || url.password) throw errors.validation('webhookUrl: no user or password in the URL', 'webhookUrl')
  if (input.length > 2048) throw errors.validation('webhookUrl: at most 2048 characters', 'webhookUrl')
  const problem = hostProblem(url, rules)
  if (problem) throw errors.validation(`webhookUrl: ${problem}`, 'webhookUrl')
  return url.toString()
}

/** A path segment this long is probably a token (Slack's and Discord's webhook URLs carry one in the path). */
const TOKEN_SEGMENT = 16

/**
 * A webhook URL for the audit: a user or password, query values and the fragment masked, and path segments of
 * 16 characters or more cut to their first 4, so the entry names the target without carrying its secrets.
 */
export function maskWebhookUrl(input: string | null | undefined): string {
  if (!input) return 'none'
  let url: URL
  try {
    url = new URL(input)
  } catch {
    return '(not a URL)'
  }
  const credentials = url.username || url.password ? '***@' : ''
  const query = [...url.searchParams.keys()].map((k) => `${encodeURIComponent(k)}=***`).join('&')
  const path = url.pathname
    .split('/')
    .map((seg) => (seg.length >= TOKEN_SEGMENT ? `${seg.slice(0, 4)}…` : seg))
    .join('/')
  const out = `${url.protocol}//${credentials}${url.host}${path}${query ? `?${query}` : ''}`
  return out.length > 200 ? `${out.slice(0, 199)}…` : out
}

/** The audit's words for a webhook change, or '' when the URL stays as it was. */
export function webhookChangeSummary(before: string | null | undefined, after: string | null | undefined): string {
  if ((before ?? null) === (after ?? null)) return ''
  return `webhook ${maskWebhookUrl(after)} (was ${maskWebhookUrl(before)})`
}

/** A new signing secret: 32 random bytes, shown to the account once. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64url')}`

type Row = {
  account_id: string
  credit_thresholds: string
  refusals_per_minute: number | null
  webhook_url: string | null
  updated_at: number
}

const toSettings = (r: Row): AlertSettings => ({
  accountId: r.account_id,
  creditThresholds: r.credit_thresholds ? r.credit_thresholds.split(',').map(Number) : [],
  refusalsPerMinute: r.refusals_per_minute === null ? null : Number(r.refusals_per_minute),
  webhookUrl: r.webhook_url,
  updatedAt: Number(r.updated_at),
})

const COLUMNS = ['account_id', 'credit_thresholds', 'refusals_per_minute', 'webhook_url', 'updated_at'] as const

export function createAlertSettingsRepository(db: Db, rules: WebhookRules): AlertSettingsRepository {
  const repo: AlertSettingsRepository = {
    async get(accountId) {
      const r = await db
        .selectFrom('alert_settings')
        .select(COLUMNS)
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      return r ? toSettings(r) : undefined
    },
    async list() {
      const rows = await db
        .selectFrom('alert_settings as s')
        .innerJoin('accounts as a', 'a.id', 's.account_id')
        .select(['s.account_id', 's.credit_thresholds', 's.refusals_per_minute', 's.webhook_url', 's.updated_at'])
        .select(['a.plan', 'a.email'])
        .where('a.deleted_at', 'is', null)
        .orderBy('a.email')
        .execute()
      return rows.map((r) => ({ ...toSettings(r), plan: r.plan, email: r.email }))
    },
    async set(accountId, change, nowMs) {
      const before = await db
        .selectFrom('alert_settings')
        .selectAll()
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      const thresholds =
        change.creditThresholds !== undefined
          ? parseThresholds(change.creditThresholds)
          : before
            ? toSettings(before).creditThresholds
            : []
      const refusals =
        change.refusalsPerMinute !== undefined
          ? parseRefusalRate(change.refusalsPerMinute)
          : (before?.refusals_per_minute ?? null)
      const url =
        change.webhookUrl === undefined
          ? (before?.webhook_url ?? null)
          : change.webhookUrl === null || change.webhookUrl === ''
            ? null
            : checkWebhookUrl(change.webhookUrl, rules)
      const secret = !before || change.rotateSecret ? newSecret() : undefined
      const row = {
        account_id: accountId,
        credit_thresholds: thresholds.join(','),
        refusals_per_minute: refusals,
        webhook_url: url,
        updated_at: nowMs,
      }
      if (before)
        await db
          .updateTable('alert_settings')
          .set({ ...row, ...(secret ? { secret } : {}) })
          .where('account_id', '=', accountId)
          .execute()
      else
        await db
          .insertInto('alert_settings')
          .values({ ...row, secret: secret! })
          .execute()
      return { settings: toSettings(row), ...(secret ? { secret } : {}) }
    },
    async remove(accountId) {
      const r = await db.deleteFrom('alert_settings').where('account_id', '=', accountId).executeTakeFirst()
      return Number(r.numDeletedRows) > 0
    },
    async target(accountId) {
      const r = await db
        .selectFrom('alert_settings')
        .select(['webhook_url', 'secret'])
        .where('account_id', '=', accountId)
        .executeTakeFirst()
      return r?.webhook_url ? { url: r.webhook_url, secret: r.secret } : undefined
    },
  }
  return repo
}
