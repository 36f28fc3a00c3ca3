/** The console's gate: a loopback Host (defeats DNS rebinding) and the console token (docs/wallet.md "The console"). */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { constantTimeEqual } from '../../shared/constant-time.ts'
import type { ConsoleTokens } from '../console-token.ts'

const LOOPBACK_HOSTNAMES = new Set(['127.0.0.1', 'localhost', '[::1]', '::1'])

export function isLoopbackHostHeader(host: string | undefined): boolean {
  if (!host) return false
  const name = host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!
  return LOOPBACK_HOSTNAMES.has(name.toLowerCase()) || /^127\.\d+\.\d+\.\d+$/.test(name)
}

export const bearer = (req: FastifyRequest): string | undefined => req.headers.authorization?.replace(/^Bearer\s+/i, '')

/** False (and the 403/401 sent) unless the request may use the console. */
export function consoleGuard(tokens: ConsoleTokens) {
  return (req: FastifyRequest, reply: FastifyReply, token: unknown): boolean => {
    if (!isLoopbackHostHeader(req.headers.host)) {
      void reply
        .code(403)
        .send({ error: 'the wallet console answers only on a loopback host (127.0.0.1, localhost, [::1])' })
      return false
    }
    if (!(typeof token === 'string' && constantTimeEqual(tokens.current(), token))) {
      void reply
        .code(401)
        .send({ error: 'missing or wrong console token (it may have been rotated: use the newest console URL)' })
      return false
    }
    return true
  }
}
