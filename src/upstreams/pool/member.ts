/**
 * One node of a pool and the one way to send it a body (src/upstreams/pool/pool.ts chooses which node). Sending also
 * judges the answer: a failure to connect or a 5xx cools the node down for a moment; a provider refusal (HTTP
 * 429/401/402/403, or a quota/credential JSON-RPC error: src/upstreams/pool/classify.ts) takes it out of rotation for a
 * back-off; a body refused for its size is the client's error (BODY_TOO_LARGE) and leaves the node alone. A 4xx
 * or 5xx carrying the client's own JSON-RPC error (a revert, invalid params) is an answer (error-status.ts).
 */
import { errors as undiciErrors } from 'undici'
import { isErrorAnswer } from '../../jsonrpc/envelope.ts'
import type { RpcId } from '../../jsonrpc/types.ts'
import { judgeAnswer, refusalOfAnswer, refusalOfStatus, retryAfterMs } from './classify.ts'
import { isPlainResult } from './judge-answer.ts'
import { notClientsOwn } from './error-status.ts'
import {
  AnswerTooLarge,
  answerTooLarge,
  block,
  CancelledError,
  counted,
  NO_CONNECTION,
  notDelivered,
  decode,
  refusedForSize,
  tooLarge,
  toGatewayError,
  UpstreamHttpError,
} from './failures.ts'
import type { Member, RequestControl, SendSettings, UpstreamAnswer } from './types.ts'
import { overWebSocket } from './ws-send.ts'

export { tooLarge } from './failures.ts'
export { AUTH_BACKOFF_MS, block, CancelledError, counted, notDelivered } from './failures.ts'

export type { Member, RequestControl, UpstreamAnswer } from './types.ts'

/** Default of `networks[].maxResponseBytes`. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024

/**
 * One call (or batch) to one node; settles with its answer, or with the gateway error saying why there is none.
 * `settled` runs just before it settles (UpstreamPool.send: no promise reaction of its own). `id`: the call's id when
 * `body` is a single call with it (judgeAnswer's; undefined: unknown). Positional, as ForwardHandler's: one `Post`
 * object per call measured +1,600 to +4,300 instructions per uncached call (docs/benchmarks.md, "The rest converted").
 */
export function post(
  m: Member,
  body: string | Buffer,
  timeoutMs: number,
  s: SendSettings,
  ctl?: RequestControl,
  settled?: () => void,
  id?: RpcId,
): Promise<UpstreamAnswer> {
  if (m.pool === undefined) {
    const p = overWebSocket(m, body, timeoutMs, s)
    if (settled !== undefined) p.then(settled, settled)
    return p
  }
  const pool = m.pool
  const headers = ctl?.traceparent === undefined ? m.headers : { ...m.headers, traceparent: ctl.traceparent }
  return new Promise((resolve, reject) => {
    pool.dispatch(
      { method: 'POST', path: m.path, headers, body, headersTimeout: 0, bodyTimeout: 0 },
      new ForwardHandler(m, timeoutMs, s, body, resolve, reject, ctl, settled, id),
    )
  })
}

/** The request's deadline passed: a node that has not answered, or whose answer trickles, is cut off. */
function expire(h: ForwardHandler): void {
  h.expired()
}

/**
 * undici's dispatcher handler, in its native (v1) form so undici does not wrap it in an adapter that parses the
 * answer's headers: the chunks are collected straight into a Buffer, without the Readable stream and promises of
 * `request()` (measurable on the per-call path). The deadline is one native timer from dispatch to the last byte,
 * exact and cleared at once: undici's own header and body timeouts (off here) fire up to ~1 s late, and each parks a
 * timer object in undici's list for up to a second, long enough to be promoted to the old generation on every call
 * (most of what a gateway promoted under load; docs/benchmarks.md, "Promotion, fourth pass").
 */
export class ForwardHandler {
  private status = 0
  private retryAfterMs: number | undefined
  private encoding: string | undefined = undefined
  private chunks: Buffer[] = []
  private size = 0
  private abort: ((err: Error) => void) | undefined = undefined
  private readonly deadline: NodeJS.Timeout
  /** Settled (answered, failed, or past its deadline): undici's later callbacks are moot. */
  private done = false
  private readonly started = performance.now()
  private readonly m: Member
  private readonly timeoutMs: number
  private readonly s: SendSettings
  private readonly body: string | Buffer
  private readonly resolve: (answer: UpstreamAnswer) => void
  private readonly reject: (err: Error) => void
  private readonly ctl: RequestControl | undefined
  private readonly settled: (() => void) | undefined
  private readonly id: RpcId | undefined
  // Positional: post()'s arguments as they come, no object per call (measured: post's comment).
  constructor(
    m: Member,
    timeoutMs: number,
    s: SendSettings,
    body: string | Buffer,
    resolve: (answer: UpstreamAnswer) => void,
    reject: (err: Error) => void,
    ctl: RequestControl | undefined,
    settled: (() => void) | undefined,
    id: RpcId | undefined,
  ) {
    this.m = m
    this.timeoutMs = timeoutMs
    this.s = s
    this.body = body
    this.resolve = resolve
    this.reject = reject
    this.ctl = ctl
    this.settled = settled
    this.id = id
    this.deadline = setTimeout(expire, timeoutMs, this)
  }
  expired() {
    if (this.done) return
    const err = this.status === 0 ? new undiciErrors.HeadersTimeoutError() : new undiciErrors.BodyTimeoutError()
    // Not yet on a connection (every one busy): failed now; aborted once undici starts it (onConnect).
    if (this.abort === undefined) this.onError(err)
    else this.abort(err)
  }
  private answer(a: UpstreamAnswer) {
    this.done = true
    clearTimeout(this.deadline)
    this.settled?.()
    this.resolve(a)
  }
  private fail(err: Error) {
    this.done = true
    clearTimeout(this.deadline)
    this.settled?.()
    this.reject(err)
  }
  onConnect(abort: (err: Error) => void) {
    if (this.done) {
      abort(new undiciErrors.HeadersTimeoutError())
      return
    }
    this.abort = abort
    const ctl = this.ctl
    if (ctl === undefined) return
    if (ctl.cancelled) abort(new CancelledError('cancelled'))
    else ctl.abort = abort
  }
  onHeaders(statusCode: number, rawHeaders: Buffer[]) {
    this.status = statusCode
    // Header names are told apart by length first: most answers carry none of these.
    for (let i = 0; i < rawHeaders.length; i += 2) {
      const n = rawHeaders[i]!.length
      if (n === 16 && rawHeaders[i]!.toString('latin1').toLowerCase() === 'content-encoding') {
        const e = rawHeaders[i + 1]!.toString('latin1').trim().toLowerCase()
        if (e !== 'identity') this.encoding = e
      } else if (n === 11 && statusCode === 429 && rawHeaders[i]!.toString('latin1').toLowerCase() === 'retry-after')
        this.retryAfterMs = retryAfterMs(rawHeaders[i + 1]!.toString('latin1'), Date.now())
    }
    return true
  }
  onData(chunk: Buffer) {
    if (this.done) return false
    this.chunks.push(chunk)
    this.size += chunk.length
    if (this.size > this.s.maxResponseBytes) {
      this.abort?.(new AnswerTooLarge())
      return false
    }
    return true
  }
  onComplete() {
    if (this.done) return
    let answer = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks)
    const status = this.status
    if (status >= 300) {
      const byStatus = refusalOfStatus(status)
      if (byStatus !== undefined) {
        this.fail(counted(block(this.m, byStatus, `HTTP ${status}`, this.s, this.retryAfterMs)))
        return
      }
      // A redirect is not followed (the upstream URL is wrong); 413 is the request's size (onError). Other 4xx and
      // 5xx are read below: only the client's own JSON-RPC error is passed on (error-status.ts).
      if (status < 400 || status === 413) {
        this.onError(
          new UpstreamHttpError(status, status < 400 ? ' (a redirect: not followed; fix the upstream URL)' : ''),
        )
        return
      }
    }
    if (this.encoding !== undefined) {
      try {
        answer = decode(answer, this.encoding, this.s.maxResponseBytes)
      } catch (err) {
        this.onError(
          err instanceof RangeError
            ? new AnswerTooLarge()
            : new UpstreamHttpError(
                status,
                ` with a body in an encoding it could not be read in (${this.encoding.slice(0, 40)})`,
              ),
        )
        return
      }
    }
    // The usual answer, a compact result for this call's id, is neither a refusal nor a fault: known in one pass.
    const isError = status < 300 && this.id !== undefined && isPlainResult(answer, this.id) ? false : this.judge(answer)
    if (isError === undefined) return
    const m = this.m
    m.downUntil = 0
    m.backoffMs = 0
    m.breaker.success()
    const latencyMs = performance.now() - this.started
    m.stats.recordLatency(latencyMs)
    this.answer({ body: answer, latencyMs, upstream: m.label, attempts: 1, isError })
  }
  /** A node's answer other than a plain result: whether it is an error answer; undefined when it failed the call. */
  private judge(answer: Buffer): boolean | undefined {
    const status = this.status
    const first = answer[0]
    // Only error answers are read for refusals (the allocation-free first-key test); a batch only if it holds one.
    if ((first === 0x7b && isErrorAnswer(answer)) || (first === 0x5b && answer.includes('"error"'))) {
      const refused = refusalOfAnswer(answer)
      if (refused !== undefined) {
        this.m.stats.recordFailure()
        this.fail(counted(block(this.m, refused.refusal, `JSON-RPC error ${refused.code}`, this.s)))
        return undefined
      }
    }
    // Passed on only as an answer to this very call (its id, a result or an error object): else a node failure.
    const verdict = judgeAnswer(this.body, answer, this.id)
    if (typeof verdict === 'object') {
      this.onError(
        new UpstreamHttpError(
          status,
          status >= 500 ? '' : ` with something that is not a JSON-RPC answer to the call: ${verdict.fault}`,
        ),
      )
      return undefined
    }
    if (status >= 300) {
      const why = notClientsOwn(answer)
      if (why !== undefined) {
        this.onError(new UpstreamHttpError(status, ` (${why})`))
        return undefined
      }
    }
    return verdict === 'error'
  }
  onError(err: Error) {
    if (this.done) return
    if (err instanceof AnswerTooLarge) {
      this.fail(counted(answerTooLarge(this.s.network, this.s.maxResponseBytes)))
      return
    }
    if (refusedForSize(err, this.status, this.body.length)) {
      this.fail(tooLarge(this.s.network, undefined))
      return
    }
    if (this.ctl?.cancelled) {
      this.fail(err instanceof CancelledError ? err : new CancelledError('cancelled'))
      return
    }
    const now = Date.now()
    this.m.downUntil = now + this.s.cooldownMs
    this.m.stats.recordFailure()
    this.m.breaker.failure(now)
    const e = toGatewayError(this.s.network, err, this.timeoutMs)
    if (NO_CONNECTION.has((err as { code?: string }).code ?? '')) notDelivered.add(e)
    this.fail(counted(e))
  }
}
