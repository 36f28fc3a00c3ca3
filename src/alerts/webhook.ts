/**
 * One webhook attempt: signed with the account's secret (HMAC-SHA256 of `<timestamp>.<raw body>`, so the timestamp
 * header cannot be replaced without the secret, as Stripe does: https://docs.stripe.com/webhooks#verify-manually),
 * POSTed with a timeout, and judged: 2xx delivered; 5xx, 429, a timeout or a connection error retried later with
 * exponential backoff; any other answer (3xx: redirects are not followed; 4xx) is final.
 */
import { createHmac, timingSafeEqual } from 'node:crypto'
import { request, type Dispatcher } from 'undici'

export const SIGNATURE_HEADER = 'x-chaingate-signature'
export const TIMESTAMP_HEADER = 'x-chaingate-timestamp'
export const ALERT_ID_HEADER = 'x-chaingate-alert-id'

/** `sha256=<hex>` of `<timestamp>.<raw body>`; `timestamp` is the `x-chaingate-timestamp` header as sent. */
export function sign(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

/** How far a timestamp may be from the receiver's clock (Stripe's default tolerance). */
export const DEFAULT_TOLERANCE_S = 300

/**
 * The receiver's check (docs/alerts.md shows the same in a few lines of Node): the signature over the timestamp
 * and the body, in constant time, and a timestamp within `toleranceS` of `nowMs`, so a captured request cannot be
 * replayed later.
 */
export function verifySignature(
  secret: string,
  body: string,
  headers: { signature: string | undefined; timestamp: string | undefined },
  opts: { nowMs?: number; toleranceS?: number } = {},
): boolean {
  const { signature, timestamp } = headers
  if (!signature || !timestamp || !/^\d{1,12}$/.test(timestamp)) return false
  const ageS = Math.abs((opts.nowMs ?? Date.now()) / 1000 - Number(timestamp))
  if (ageS > (opts.toleranceS ?? DEFAULT_TOLERANCE_S)) return false
  const expected = Buffer.from(sign(secret, timestamp, body))
  const got = Buffer.from(signature)
  return got.length === expected.length && timingSafeEqual(got, expected)
}

export interface AttemptResult {
  /** The HTTP status, when an answer came. */
  status: number | null
  /** Why it failed, for the delivery log the account sees (no secret, no body, no socket error text). */
  error: string | null
  /** A connection error's own text, for the server log only (it would map the operator's network). */
  detail?: string
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
  opts: { timeoutMs: number; nowMs: number; dispatcher: Dispatcher },
): Promise<AttemptResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  const timestamp = String(Math.floor(opts.nowMs / 1000))
  try {
    const res = await request(url, {
      method: 'POST',
      dispatcher: opts.dispatcher,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'chaingate-alerts',
        [SIGNATURE_HEADER]: sign(secret, timestamp, body),
        [TIMESTAMP_HEADER]: timestamp,
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
    if (timedOut)
      return {
        status: null,
        error: `no answer within ${opts.timeoutMs} ms`,
        delivered: false,
        retry: true,
        durationMs: took(),
      }
    // The same words for a refused port, a reset, a name that does not resolve or resolves to a private address:
    // the socket's own error would let the account map what the gateway can reach.
    return {
      status: null,
      error: 'connection failed',
      detail: `${e.code ?? e.name}: ${e.message}`.slice(0, 300),
      delivered: false,
      retry: true,
      durationMs: took(),
    }
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
