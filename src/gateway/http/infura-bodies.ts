/**
 * The one place where refusals become bytes: Infura's exact bodies (clients match them; docs/errors.md,
 * docs/key-security.md, https://docs.metamask.io/services/reference/) and the gateway's own texts for paths and
 * verbs. The core answers with codes from src/errors/registry.ts; the HTTP route, the WebSocket upgrade and the
 * WebSocket session format them here.
 */
import { ERROR_REGISTRY, type ErrorCode, type LimitCode } from '../../errors/registry.ts'
import type { RpcId } from '../../jsonrpc/types.ts'

export const TEXT = 'text/plain; charset=utf-8'
export const JSON_TYPE = 'application/json'

export const BODIES = {
  KEY_REQUIRED: 'project id required in the url\n',
  KEY_INVALID: 'invalid project id\n',
  NETWORK_NOT_ENABLED: 'project ID does not have access to this network\n',
  // Documented by Infura without a trailing newline.
  SECRET_INVALID: 'invalid project id or project secret',
  JWT_INVALID: 'invalid JWT',
  // Observed with a newline, no `id`, JSON sent as text/plain.
  KEY_SETTINGS_REJECTED: '{"jsonrpc":"2.0","error":{"code":-32002,"message":"rejected due to project ID settings"}}\n',
  METHOD_NOT_ALLOWED: 'method not allowed: send JSON-RPC with POST\n',
  NOT_AN_ENDPOINT:
    'no JSON-RPC endpoint here: POST to /v3/<key> or /networks/<name>/v3/<key>; ' +
    'WebSocket: /ws/v3/<key> or /networks/<name>/ws/v3/<key>\n',
  HOST_NOT_ALLOWED:
    'this endpoint does not answer to that host name: use an address of this gateway, add the name to ' +
    'gateway.allowedHosts, or set gateway.operations.token\n',
  WS_NOT_AN_ENDPOINT: 'no WebSocket endpoint here: use /ws/v3/<key>\n',
  UNAUTHORIZED: 'unauthorized: send the configured bearer token\n',
} as const

export const KEY_INVALID_HEADERS: Record<string, string> = {
  'www-authenticate': 'Basic realm="Auth failure, invalid project id"',
}

/** A whole-request refusal as text: status, content type, body, extra headers. */
export interface Refusal {
  status: number
  contentType: string
  body: string
  headers: Record<string, string> | undefined
}

/** The HTTP answer to a refusal that has no JSON-RPC id (keys, networks, paths). `detail`: NETWORK_UNKNOWN's text. */
export function refusal(code: ErrorCode, detail?: string): Refusal {
  const status = ERROR_REGISTRY[code].httpStatus
  const text = (BODIES as Record<string, string>)[code]
  const body = code === 'NETWORK_UNKNOWN' ? `${detail ?? ''}\n` : (text ?? `${ERROR_REGISTRY[code].summary}\n`)
  return { status, contentType: TEXT, body, headers: code === 'KEY_INVALID' ? KEY_INVALID_HEADERS : undefined }
}

const LIMIT_ERRORS: Record<LimitCode, string> = {
  DAILY_CREDITS_EXHAUSTED: limitObject(
    402,
    -33000,
    'Payment Required',
    'You have reached your daily credit limit. ' +
      'To continue making requests, upgrade your plan or purchase additional credits',
  ),
  ACCOUNT_THROUGHPUT_EXCEEDED: limitObject(
    429,
    -33200,
    'Too Many Requests',
    'You have surpassed your allowed throughput limit. ' +
      'Reduce the amount of requests per second or upgrade for more capacity.',
  ),
  KEY_THROUGHPUT_EXCEEDED: limitObject(
    429,
    -33300,
    'Too Many Requests',
    'You have surpassed your user-defined key throughput limit setting. ' +
      'To make more requests with this key, review key setting configurations.',
  ),
  KEY_DAILY_CREDITS_EXHAUSTED: limitObject(
    429,
    -33400,
    'Too Many Requests',
    'You have surpassed your user-defined key daily credit limit setting. ' +
      'To make more requests, adjust your daily quota limit.',
  ),
}

function limitObject(code: number, event: number, message: string, details: string): string {
  return JSON.stringify({ code, event, message, details })
}

/** Infura's JSON-RPC answer to a call refused by a limit (HTTP 402/429, or a WebSocket message). */
export function limitAnswer(code: LimitCode, id: RpcId): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${LIMIT_ERRORS[code]}}`
}

/** The same refusal for every call of a request: one answer, or a batch array of them. */
export function limitAnswers(code: LimitCode, ids: readonly RpcId[], batch: boolean): string {
  return batch ? `[${ids.map((id) => limitAnswer(code, id)).join(',')}]` : limitAnswer(code, ids[0] ?? null)
}

const SETTINGS_REJECTED_ERROR = '{"code":-32002,"message":"rejected due to project ID settings"}'

/** A WebSocket message refused by the key's allowlists: -32002 per call, with the call's id. */
export function settingsRejectedAnswers(ids: readonly RpcId[], batch: boolean): string {
  const one = (id: RpcId) => `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${SETTINGS_REJECTED_ERROR}}`
  return batch ? `[${ids.map(one).join(',')}]` : one(ids[0] ?? null)
}

/** Whether a code is one of the limit store's. */
export const isLimitCode = (code: ErrorCode | undefined): code is LimitCode =>
  code === 'DAILY_CREDITS_EXHAUSTED' ||
  code === 'KEY_DAILY_CREDITS_EXHAUSTED' ||
  code === 'ACCOUNT_THROUGHPUT_EXCEEDED' ||
  code === 'KEY_THROUGHPUT_EXCEEDED'
