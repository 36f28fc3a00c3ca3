/**
 * One webhook attempt: the body signed with the account's secret (HMAC-SHA256 of the raw body, as GitHub's
 * `X-Hub-Signature-256`: https://docs.github.com/webhooks/using-webhooks/validating-webhook-deliveries), POSTed
 * with a timeout, and judged: 2xx delivered; 5xx, 429, a timeout or a connection error retried later with
 * exponential backoff; any other answer (3xx: redirects are not followed; 4xx) is final.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { request } from 'undici'

export const SIGNATURE_HEADER = 'x-chaingate-signature'
export const TIMESTAMP_HEADER = 'x-chaingate-timestamp'
export const ALERT_ID_HEADER = 'x-chaingate-alert-id'

/** `sha256=<hex>` of the raw body. */
export function sign(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}

/** The receiver's check, in constant time (docs/alerts.md shows the same in a few lines of Node). */
export function verifySignature(secret: string, body: string, header: string | undefined): boolean {
  if (!header) return false
  const expected = Buffer.from(sign(secret, body))
  const got = Buffer.from(header)
  return got.length === expected.length && timingSafeEqual(got, expected)
}

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  status: number | null
  /** Why it failed, for the delivery log (no secret, no body). */
  error: string | null
  delivered: boolean
  retry: boolean
  /** A 429's or 503's Retry-After, in ms. */
  retryAfterMs?: number
  durationMs: number
}

export async function sendWebhook(
  url: string,
  secret: string,
  alertId: string,
  body: string,
  opts: { timeoutMs: number; nowMs: number },
): Promise<AttemptResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  try {
    const res = await request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'chaingate-alerts',
        [SIGNATURE_HEADER]: sign(secret, body),
        [TIMESTAMP_HEADER]: String(Math.floor(opts.nowMs / 1000)),
        [ALERT_ID_HEADER]: alertId,
      },
      body,
      headersTimeout: opts.timeoutMs,
      bodyTimeout: opts.timeoutMs,
      signal: AbortSignal.timeout(opts.timeoutMs),
    })
    // The receiver's answer is not read beyond its status (it may be large); dump it to free the connection.
    await res.body.dump().catch(() => {})
    const status = res.statusCode
    if (status >= 200 && status < 300) return { status, error: null, delivered: true, retry: false, durationMs: took() }
    const retry = status >= 500 || status === 429
    const retryAfter = retryAfterMs(res.headers['retry-after'])
    return {
      status,
      error: `HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`,
      delivered: false,
      retry,
      ...(retry && retryAfter !== undefined ? { retryAfterMs: retryAfter } : {}),
      durationMs: took(),
    }
  } catch (err) {
    const e = err as Error & { code?: string }
    const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || /Timeout/.test(e.code ?? '')
    const error = timedOut ? `no answer within ${opts.timeoutMs} ms` : `${e.code ?? e.name}: ${e.message}`
    return { status: null, error: error.slice(0, 300), delivered: false, retry: true, durationMs: took() }
  }
}

function retryAfterMs(value: string | string[] | undefined): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (!v) return undefined
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now())
}

/**
 * The wait before attempt `attempt + 1` after `attempt` failed: base · 2^(attempt-1), at most `maxMs`, plus up to
 * 20 % jitter so many alerts failing together do not come back together; a Retry-After is honoured up to `maxMs`.
 */
export function backoffMs(
  attempt: number,
  opts: { baseMs: number; maxMs: number },
  retryAfter?: number,
  random = Math.random,
): number {
  const exp = Math.min(opts.maxMs, opts.baseMs * 2 ** Math.max(0, attempt - 1))
  const wait = Math.round(exp * (1 + 0.2 * random()))
  return Math.min(opts.maxMs, Math.max(wait, retryAfter ?? 0))
}
