/**
 * What a request to one node that brought no usable answer becomes (src/upstreams/pool/member.ts): the gateway error
 * the call fails with, what a provider refusal does to the node (`block`), and the node answers that are the call's
 * own (too large to send, too large to take).
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib'
import { errors as undiciErrors } from 'undici'
import { ChaingateError, errors } from '../../errors/index.ts'
import { refusalError, type ProviderRefusal } from './classify.ts'
import type { SendSettings, Member } from './types.ts'

/**
 * A body at least this large that the node stops reading (EPIPE / ECONNRESET while sending) was most likely
 * refused for its size; a smaller one means the node is in trouble.
 */
const LARGE_BODY_BYTES = 1024 * 1024

/** A body in the encoding the node says (it should send none: the gateway asks for none), at most `max` bytes. */
export function decode(body: Buffer, encoding: string, max: number): Buffer {
  const o = { maxOutputLength: max }
  if (encoding === 'gzip' || encoding === 'x-gzip') return gunzipSync(body, o)
  if (encoding === 'deflate') return inflateSync(body, o)
  if (encoding === 'br') return brotliDecompressSync(body, o)
  throw new Error(`unknown encoding ${encoding}`)
}

/** Whether the node refused the request for its size: HTTP 413, or it stopped reading a large body. */
export function refusedForSize(err: Error, status: number, requestSize: number): boolean {
  if (err instanceof UpstreamHttpError) return err.status === 413
  const code = (err as { code?: string }).code
  return (
    status === 0 &&
    requestSize >= LARGE_BODY_BYTES &&
    (code === 'EPIPE' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET')
  )
}

export function tooLarge(network: string, maxBytes: number | undefined) {
  const limit = maxBytes === undefined ? '' : `: at most ${maxBytes} bytes`
  return new ChaingateError('BODY_TOO_LARGE', `request too large for network ${network}${limit}`, {
    rpcCode: -32600,
    httpStatus: 413,
  })
}

export class UpstreamHttpError extends Error {
  readonly status: number
  constructor(status: number, detail: string) {
    super(status === 0 ? `node answered${detail}` : `node answered HTTP ${status}${detail}`) // 0: over WebSocket
    this.status = status
  }
}

/** The node's answer grew past `maxResponseBytes`: cut off. */
export class AnswerTooLarge extends Error {}

/** An answer too large for the gateway: the call's own (another node answers the same), free, the node left alone. */
export function answerTooLarge(network: string, maxBytes: number) {
  return new ChaingateError(
    'UPSTREAM_ANSWER_TOO_LARGE',
    `response size exceeded: the answer from network ${network} is larger than ${maxBytes} bytes ` +
      '(networks[].maxResponseBytes); ask for less (a narrower block range, fewer calls per batch)',
    { rpcCode: -32005, httpStatus: 200 },
  )
}

export function toGatewayError(network: string, err: unknown, timeoutMs: number) {
  if (err instanceof UpstreamHttpError) return errors.upstreamUnavailable(network, err.message)
  const e = err as { name?: string; code?: string; message?: string }
  if (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    err instanceof undiciErrors.HeadersTimeoutError ||
    err instanceof undiciErrors.BodyTimeoutError
  )
    return errors.upstreamTimeout(network, timeoutMs)
  const why =
    e?.code === 'ECONNREFUSED'
      ? 'the node refused the connection'
      : e?.code === 'ENOTFOUND' || e?.code === 'EAI_AGAIN'
        ? "the node's host name does not resolve"
        : e?.code === 'UND_ERR_CONNECT_TIMEOUT'
          ? 'no connection to the node within its connect timeout'
          : (e?.code ?? e?.message ?? 'unknown error')
  return errors.upstreamUnavailable(network, why)
}

/** The gateway gave up on the request itself (hedge lost, client gone): says nothing about the node. */
export class CancelledError extends Error {}

/**
 * A failed call's error says how many upstream requests it made (`attempts`, as on an answer): the usage record
 * counts them. One here; the pool sets the total when it tried several nodes.
 */
export function counted<E extends Error>(err: E, attempts = 1): E {
  ;(err as E & { attempts?: number }).attempts = attempts
  return err
}

/** Failures where the node surely never got the request (no connection was made): safe to retry any method. */
export const notDelivered = new WeakSet<Error>()
/** Refused, unresolvable host, unreachable network or host, connect timeout: the request never left the gateway. */
export const NO_CONNECTION = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
])

/** A provider refusing the gateway's credentials is not retried sooner than this (the config must change). */
export const AUTH_BACKOFF_MS = 30_000
const MIN_RATE_BACKOFF_MS = 1000
const MAX_BACKOFF_MS = 60_000

/** Takes a node out of rotation after a provider refusal; returns the error the call fails with. */
export function block(
  m: Member,
  refusal: ProviderRefusal,
  detail: string,
  s: SendSettings,
  retryAfterMs?: number,
): ChaingateError {
  const ms =
    refusal === 'auth-failed'
      ? AUTH_BACKOFF_MS
      : Math.min(
          MAX_BACKOFF_MS,
          retryAfterMs ??
            (m.backoffMs = Math.min(MAX_BACKOFF_MS, m.backoffMs === 0 ? MIN_RATE_BACKOFF_MS : m.backoffMs * 2)),
        )
  m.refusal = refusal
  m.refusalDetail = detail
  m.blockedUntil = Date.now() + ms
  m.usable = false
  return refusalError(s.network, refusal, detail, ms)
}
