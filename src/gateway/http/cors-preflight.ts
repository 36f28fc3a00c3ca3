/**
 * The CORS headers of the RPC paths (every answer there carries them; the hot route, ./rpc-route.ts, its own
 * subset) and their preflight answer. A page's fetch may add headers of its own (viem's `fetchOptions`,
 * tracing ids): the preflight allows what the browser asks for when each name is a plain HTTP token, so one odd
 * header does not fail every call, and falls back to the fixed list otherwise. Any origin may call (the key is
 * the credential); `vary` keeps caches from reusing an answer for another request's header list.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'

/** Headers a browser page may read from an answer besides the CORS-safelisted ones. */
export const EXPOSED_HEADERS = 'x-credits-charged, retry-after'
export const CORS_HEADERS: [string, string][] = [
  ['access-control-allow-origin', '*'],
  ['access-control-allow-methods', 'POST, OPTIONS'],
  ['access-control-allow-headers', 'content-type, authorization, enable-failover'],
  ['access-control-expose-headers', EXPOSED_HEADERS],
  ['access-control-max-age', '86400'],
]

/** CORS, and the credits header every answer on an RPC path carries (nothing is charged for these). */
export const CORS = { ...Object.fromEntries(CORS_HEADERS), 'x-credits-charged': '0' }

const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/
const MAX_ASKED = 2048
const DEFAULT_ALLOWED = Object.fromEntries(CORS_HEADERS)['access-control-allow-headers']!

/** The allow-headers value for a preflight that asked for `asked` (Access-Control-Request-Headers). */
export function allowedRequestHeaders(asked: string | string[] | undefined): string {
  const text = Array.isArray(asked) ? asked.join(',') : asked
  if (!text || text.length > MAX_ASKED) return DEFAULT_ALLOWED
  const names = text
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter((n) => n !== '')
  if (names.length === 0 || !names.every((n) => TOKEN.test(n))) return DEFAULT_ALLOWED
  const all = new Set(DEFAULT_ALLOWED.split(', '))
  for (const n of names) all.add(n)
  return [...all].join(', ')
}

/** Every preflight header, the allowed request headers chosen for this request. */
export function preflightHeaders(asked: string | string[] | undefined): Record<string, string> {
  return {
    ...Object.fromEntries(CORS_HEADERS),
    'access-control-allow-headers': allowedRequestHeaders(asked),
    vary: 'access-control-request-headers',
    'x-credits-charged': '0',
  }
}

export const preflight = async (req: FastifyRequest, reply: FastifyReply) =>
  reply.code(204).headers(preflightHeaders(req.headers['access-control-request-headers'])).send()
