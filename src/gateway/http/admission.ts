/**
 * Bounded admission for the hot route (src/gateway/http/rpc-route.ts): at most `gateway.maxInFlight` HTTP calls
 * are worked on at once in this process (from the body read to the answer). Past it a request is answered at once
 * with OVERLOADED (HTTP 503, `retry-after: 1`, docs/errors.md): a process that cannot keep up says so quickly
 * instead of letting every call wait in a queue without bound.
 */
import { Buffer } from 'node:buffer'
import type { ServerResponse } from 'node:http'
import { errors } from '../../errors/index.ts'
import { serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { Logger } from '../../observability/logger.ts'

/** Built once: it is the answer to give fastest. */
const BODY = Buffer.from(serializeError(null, toErrorObject(errors.overloaded())))
const HEADERS = [
  'access-control-allow-origin',
  '*',
  'access-control-expose-headers',
  'x-credits-charged, retry-after',
  'x-credits-charged',
  '0',
  'retry-after',
  '1',
  'content-type',
  'application/json',
  'content-length',
  String(BODY.length),
]
const WARN_EVERY_MS = 10_000

export interface Admission {
  full(): boolean
  enter(): void
  leave(): void
  /** Answers OVERLOADED; one warning line at most every 10 s says how many were refused. */
  refuse(res: ServerResponse): void
  readonly inFlight: number
}

export function createAdmission(maxInFlight: number, logger: Logger): Admission {
  let inFlight = 0
  let refused = 0
  let lastWarned = 0
  return {
    full: () => inFlight >= maxInFlight,
    enter() {
      inFlight++
    },
    leave() {
      inFlight--
    },
    refuse(res) {
      refused++
      const now = Date.now()
      if (now - lastWarned >= WARN_EVERY_MS) {
        logger.warn({ refused, maxInFlight }, 'overloaded: calls refused with OVERLOADED (gateway.maxInFlight)')
        refused = 0
        lastWarned = now
      }
      res.writeHead(503, HEADERS)
      res.end(BODY)
    },
    get inFlight() {
      return inFlight
    },
  }
}
