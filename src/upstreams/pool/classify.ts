/**
 * Which node answers are the provider refusing the gateway (rate limit, quota, credentials) rather than an answer
 * to the client's call. Those are never relayed as a success nor charged: the node is taken out of rotation for a
 * while and the call goes to another node (docs/errors.md, "Node provider refusals").
 *
 * Only looked at for refusals: an HTTP status, or — for an answer that already is a JSON-RPC error — its code and
 * message. A normal answer costs nothing here.
 *
 * Whether an answer is a JSON-RPC answer to the request at all is judge-answer.ts (`judgeAnswer`, re-exported).
 */
import { ChaingateError } from '../../errors/index.ts'

export type ProviderRefusal = 'rate-limited' | 'auth-failed'

/** HTTP statuses a provider refuses the gateway with, whatever the body. */
export function refusalOfStatus(status: number): ProviderRefusal | undefined {
  if (status === 429 || status === 402) return 'rate-limited'
  if (status === 401 || status === 403) return 'auth-failed'
  return undefined
}

/**
 * A Retry-After value in milliseconds from `now`: seconds, or an HTTP date (RFC 9110, 10.2.3); undefined when
 * unreadable.
 */
export function retryAfterMs(value: string, now: number): number | undefined {
  const v = value.trim()
  if (/^\d+$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) || !/[a-z]/i.test(v) ? undefined : Math.max(0, at - now)
}

/**
 * JSON-RPC error codes providers use for their own refusals. Any other code is the node's answer to the call.
 * -32005 is also a legitimate answer to the client's own call on some providers, so the message decides.
 */
const PROVIDER_CODES = new Set([-32005, -32097, -32090, -32001, -32000, -32007, -32029, 429, 401, 402, 403])

/** One case-insensitive pattern matching any of `texts` (regular-expression sources). */
const anyOf = (texts: string[]) => new RegExp(texts.join('|'), 'i')

/** Texts of answers the client caused (relayed as they are, even with a code from the set above). */
export const CLIENT_CAUSED = anyOf([
  'query returned more than|more than \\d+ results|block range|range (is )?too (large|wide)',
  'response size|too many (results|logs|blocks)|execution reverted|revert|nonce|gas|insufficient funds',
  'underpriced|invalid sender|exceeds the configured cap|invalid (argument|param|block|address)',
  'header not found|missing trie node',
])

/** Provider quota / rate texts (Infura, Alchemy, QuickNode, Ankr, public RPCs). */
const RATE_LIMITED = anyOf([
  'rate.?limit|too many requests|request count exceeded|daily request|request rate exceeded',
  'limit exceeded|exceeded .*(capacity|quota|limit|compute units|credits)|compute units|quota',
  'throughput|credits? (exhausted|exceeded)|upgrade your plan|request limit reached',
])

/** Credential texts. */
const AUTH_FAILED = anyOf([
  'project id|api key|apikey|unauthori[sz]ed|not authori[sz]ed|forbidden|must be authenticated',
  'authentication|invalid (key|token)|access denied|not allowed to access|whitelist|allowlist',
])

/** A JSON-RPC error object (code and message) the provider refused the gateway with, or undefined for an answer. */
export function refusalOfError(code: unknown, message: unknown): ProviderRefusal | undefined {
  if (typeof code !== 'number' || !PROVIDER_CODES.has(code) || typeof message !== 'string') return undefined
  if (CLIENT_CAUSED.test(message)) return undefined
  if (RATE_LIMITED.test(message)) return 'rate-limited'
  if (AUTH_FAILED.test(message)) return 'auth-failed'
  return undefined
}

/**
 * An error answer's bytes (a single answer `{…}` or a batch `[…]`): a provider refusal when the single error, or
 * any entry of the batch, is one (a provider refusing a batch refuses all of it; a partial answer is not served).
 */
export function refusalOfAnswer(body: Buffer): { refusal: ProviderRefusal; code: number } | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString())
  } catch {
    return undefined
  }
  const entries = Array.isArray(parsed) ? parsed : [parsed]
  for (const e of entries) {
    const err = (e as { error?: { code?: unknown; message?: unknown } } | null)?.error
    if (err && typeof err === 'object') {
      const r = refusalOfError(err.code, err.message)
      if (r !== undefined) return { refusal: r, code: err.code as number }
    }
  }
  return undefined
}

/** What the client gets when no node of the network could answer because providers refused the gateway. */
export function refusalError(
  network: string,
  refusal: ProviderRefusal,
  detail: string,
  retryInMs: number,
): ChaingateError {
  const seconds = Math.max(1, Math.ceil(retryInMs / 1000))
  return refusal === 'rate-limited'
    ? new ChaingateError(
        'UPSTREAM_RATE_LIMITED',
        `network ${network} is unavailable: its node provider is rate-limiting this gateway or its quota is used up ` +
          `(${detail}); try again in ${seconds} s`,
        { rpcCode: -32603, httpStatus: 503, retryable: true },
      )
    : new ChaingateError(
        'UPSTREAM_AUTH_FAILED',
        `network ${network} is unavailable: its node provider refused this gateway's credentials (${detail}); ` +
          'the operator must fix the upstream URL or key',
        { rpcCode: -32603, httpStatus: 503, retryable: false },
      )
}

export { judgeAnswer, type AnswerVerdict } from './judge-answer.ts'
