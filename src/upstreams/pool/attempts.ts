/**
 * One call's attempts over the nodes a pool selected (src/upstreams/pool/pool.ts): retries on another node, hedges,
 * the first useful answer wins and the others are aborted; a hedge lost while hanging is a breaker strike.
 */
import { ChaingateError, errors } from '../../errors/index.ts'
import { refusalError } from './classify.ts'
import { CancelledError, counted, notDelivered, post, type Member, type UpstreamAnswer } from './member.ts'
import type { CallOrigin, SendOptions } from './types.ts'
import type { PoolState } from './state.ts'
import { attemptSpan, endAttempt, type Attempt } from './attempt.ts'
import { callKind, isAlreadySent, rawTransactionOf, txHashAnswer, weakAnswer, type CallKind } from './retry-policy.ts'
import { noneUsable, takeToken } from './selection.ts'
import type { TraceSpan } from '../../observability/tracing.ts'
import { sizeClass } from '../../shared/object-shapes.ts'

const noop = () => undefined
const fireHedge = (run: { hedge(): void }) => run.hedge()
const expire = (run: { expire(): void }) => run.expire()

/** Sizes Run by complete objects before the first call (call-shapes.ts). */
export const sizeRunClass = (pool: PoolState) =>
  sizeClass(
    () =>
      new Run({
        pool,
        body: '{}',
        order: pool.members,
        healthy: 0,
        method: 'eth_chainId',
        kind: 'read',
        startedAt: 0,
        timeoutMs: 1,
        signal: undefined,
      }),
  )

/** What a Run is made of: the call, the nodes to try in order and how many of the first are healthy. */
interface RunOf {
  pool: PoolState
  body: string | Buffer
  order: Member[]
  healthy: number
  method: string | undefined
  kind: CallKind
  /** When the call's deadline started (clock ms): `timeoutMs` after it, the call ends. */
  startedAt: number
  timeoutMs: number
  signal: AbortSignal | undefined
}

/**
 * One call's attempts. A class rather than closures: a call that is not on the one-node path allocates one
 * object and its attempts, not a closure per step.
 */
class Run {
  readonly running: Attempt[] = []
  next = 0
  attempts = 0
  finished = false
  lastError: unknown = undefined
  overBudget = false
  /** A null/empty answer kept while another node may still have something better. */
  weak: UpstreamAnswer | undefined = undefined
  hedgeTimer: NodeJS.Timeout | undefined = undefined
  /** The call's whole deadline: whatever the nodes do (a body that trickles, a slow connect), the call ends then. */
  deadlineTimer: NodeJS.Timeout | undefined = undefined
  resolve: (answer: UpstreamAnswer) => void = noop
  reject: (err: unknown) => void = noop
  onAbort: (() => void) | undefined = undefined
  /** Told which node's answer won (filter creation pins the filter to it: src/upstreams/pool/filters.ts). */
  onWinner: ((m: Member) => void) | undefined = undefined
  /** The traced call this run is for (src/observability/tracing.ts); undefined: not traced. */
  span: TraceSpan | undefined = undefined
  readonly body: string | Buffer
  readonly order: Member[]
  readonly method: string | undefined
  readonly kind: CallKind
  readonly deadline: number
  readonly timeoutMs: number
  readonly tx: { hash: string; id: unknown } | undefined
  readonly hedging: boolean
  readonly healthy: number
  readonly signal: AbortSignal | undefined
  readonly pool: PoolState
  constructor(r: RunOf) {
    const { pool, body, kind, healthy, timeoutMs } = r
    this.pool = pool
    this.body = body
    this.order = r.order
    this.method = r.method
    this.kind = kind
    this.timeoutMs = timeoutMs
    this.deadline = r.startedAt + timeoutMs
    this.tx = kind === 'send-raw' ? rawTransactionOf(body) : undefined
    // Hedges and missing-data retries go to healthy nodes only: a lagging or failing node would not do better.
    this.healthy = healthy
    this.hedging = kind === 'read' && pool.policy.hedge.enabled && healthy > 1
    this.signal = r.signal
  }
  start(): Promise<UpstreamAnswer> {
    const promise = new Promise<UpstreamAnswer>((resolve, reject) => {
      this.resolve = resolve
      this.reject = reject
    })
    if (this.signal !== undefined) {
      this.onAbort = () => this.fail(new CancelledError('the client went away'))
      this.signal.addEventListener('abort', this.onAbort, { once: true })
    }
    if (!this.launch()) this.giveUp()
    else if (!this.finished) this.deadlineTimer = setTimeout(expire, this.deadline - Date.now(), this)
    return promise
  }
  /** Starts the next attempt on the next node in order; false when none is left (budget, attempts, time). */
  launch(): boolean {
    const t = Date.now()
    const order = this.order
    while (this.next < order.length && this.attempts < this.pool.policy.maxAttempts && t < this.deadline) {
      const m = order[this.next++]!
      if (!takeToken(m, t)) {
        this.overBudget = true
        continue
      }
      if (m.breaker.isOpen) m.breaker.allow(t) // a last resort past its open time becomes the probe
      this.attempts++
      const span =
        this.span === undefined ? undefined : attemptSpan(this.span, m, this.attempts, this.running.length > 0)
      const a: Attempt = {
        m,
        ctl: {
          abort: undefined,
          cancelled: false,
          traceparent: span?.propagates ? span.traceparent() : undefined,
        },
        startedAt: t,
        span,
      }
      this.running.push(a)
      post(m, this.body, Math.max(1, Math.min(m.timeoutMs, this.deadline - t)), this.pool.settings, a.ctl).then(
        (answer) => this.onAnswer(a, answer),
        (err: unknown) => this.onFailure(a, err),
      )
      if (this.hedging && this.hedgeTimer === undefined && this.next < this.healthy)
        this.hedgeTimer = setTimeout(fireHedge, this.pool.hedgeDelayMs, this)
      return true
    }
    return false
  }
  hedge(): void {
    this.hedgeTimer = undefined
    if (!this.finished && this.running.length > 0 && this.next < this.healthy) this.launch()
  }
  done(a: Attempt): void {
    const i = this.running.indexOf(a)
    if (i >= 0) this.running.splice(i, 1)
  }
  /** Settles the call with `answer` (`winner`'s, or a weak answer kept: none). */
  finish(answer: UpstreamAnswer, winner?: Attempt): void {
    if (!this.end(winner)) return
    if (winner !== undefined) this.onWinner?.(winner.m)
    this.resolve(answer.attempts === this.attempts ? answer : { ...answer, attempts: this.attempts })
  }
  /** Fails the call with `err`, else the last attempt's failure, else "no node could answer". */
  fail(err?: unknown): void {
    if (!this.end(undefined)) return
    const e = (err ?? this.lastError ?? errors.upstreamUnavailable(this.pool.network, 'no node could answer')) as Error
    this.reject(typeof e === 'object' && e !== null ? counted(e, this.attempts) : e)
  }
  /** Stops the timers and the attempts still running; false when the run had already ended. */
  end(winner: Attempt | undefined): boolean {
    if (this.finished) return false
    this.finished = true
    if (this.hedgeTimer !== undefined) clearTimeout(this.hedgeTimer)
    if (this.deadlineTimer !== undefined) clearTimeout(this.deadlineTimer)
    if (this.onAbort !== undefined) this.signal!.removeEventListener('abort', this.onAbort)
    if (this.running.length > 0) {
      const at = Date.now()
      for (const a of this.running) {
        // A request that started before the winner's and is still waiting lost a race it should have won:
        // a strike for its breaker (a hanging node gets taken out without waiting for its timeouts).
        if (winner !== undefined && a.startedAt < winner.startedAt) {
          a.m.breaker.failure(at)
          a.m.stats.recordLatency(at - a.startedAt)
        } else if (a.m.breaker.probing) a.m.breaker.probing = false
        endAttempt(a, winner === undefined ? 'abandoned' : 'lost')
        a.ctl.cancelled = true
        a.ctl.abort?.(new CancelledError('cancelled'))
      }
      this.running.length = 0
    }
    return true
  }
  expire(): void {
    this.deadlineTimer = undefined
    if (this.weak !== undefined) return this.finish(this.weak)
    this.fail(errors.upstreamTimeout(this.pool.network, this.timeoutMs))
  }
  giveUp(): void {
    if (this.weak !== undefined) return this.finish(this.weak)
    if (this.lastError === undefined && this.overBudget)
      return this.fail(
        refusalError(
          this.pool.network,
          'rate-limited',
          'the gateway reached its own limit for the nodes, upstreams[].maxRequestsPerSecond',
          1000,
        ),
      )
    if (this.lastError === undefined && Date.now() >= this.deadline)
      return this.fail(errors.upstreamTimeout(this.pool.network, this.timeoutMs))
    this.fail()
  }
  onAnswer(a: Attempt, answer: UpstreamAnswer): void {
    this.done(a)
    if (this.finished) return
    if (a.span !== undefined) endAttempt(a, answer.isError ? 'rpc-error' : 'answer')
    const tx = this.tx
    if (tx !== undefined) {
      if (answer.isError) {
        // Only after an earlier attempt of this very call was sent (a node skipped for its rate budget got
        // nothing): a client's own second send gets the node's answer, as from the node directly (docs/upstreams.md).
        if (this.attempts > 1 && isAlreadySent(answer.body, this.pool.relayed.has(tx.hash)))
          return this.finish({ ...answer, body: txHashAnswer(tx.id, tx.hash), isError: false }, a)
      } else this.pool.relayed.add(tx.hash)
    }
    const w = this.kind === 'read' && this.method !== undefined ? weakAnswer(this.method, answer.body) : undefined
    if (w === undefined) return this.finish(answer, a)
    this.weak ??= answer
    // "Missing" data: ask a node that may be further ahead; "empty": only wait for a request already running.
    if (w === 'missing' && this.next < this.healthy && this.launch()) return
    if (this.running.length === 0) this.giveUp()
  }
  onFailure(a: Attempt, err: unknown): void {
    this.done(a)
    if (this.finished || err instanceof CancelledError) return
    if (a.span !== undefined) endAttempt(a, 'failed', err instanceof Error ? err.message : String(err))
    // Refused for the request itself (too large to send, or its answer too large to take): another node would too.
    if (err instanceof ChaingateError && (err.code === 'BODY_TOO_LARGE' || err.code === 'UPSTREAM_ANSWER_TOO_LARGE'))
      return this.fail(err)
    this.lastError = err
    if (this.running.length > 0) return // a hedge is still running: let it answer
    const retryable =
      this.kind !== 'unsafe' ||
      notDelivered.has(err as Error) ||
      (err instanceof ChaingateError && (err.code === 'UPSTREAM_RATE_LIMITED' || err.code === 'UPSTREAM_AUTH_FAILED'))
    if (retryable && this.launch()) return
    this.giveUp()
  }
}

/** One call for run(): the pool's, its nodes in order (from select(); none: the reason no node can take it). */
export interface RunCall {
  pool: PoolState
  body: string | Buffer
  o?: SendOptions | undefined
  origin?: CallOrigin | undefined
  /** When the nodes were selected (clock ms). */
  now: number
  order: Member[]
  /** The pool's deadline for a call that names none (`o.timeoutMs`). */
  totalTimeoutMs: number
  /** Told which node's answer won (filter creation pins the filter to it: src/upstreams/pool/filters.ts). */
  onWinner?: ((m: Member) => void) | undefined
}

/** Runs one call over the nodes in `order`. */
export function run({ pool, body, o, origin, now, order, totalTimeoutMs, onWinner }: RunCall): Promise<UpstreamAnswer> {
  if (order.length === 0) return Promise.reject(noneUsable(pool, now))
  if (o?.signal?.aborted) return Promise.reject(new CancelledError('the client went away'))
  const method = o?.method
  const timeoutMs = o?.timeoutMs ?? totalTimeoutMs
  // A client's HTTP call: the time it already spent in this process counts against its deadline.
  const since = o?.timeoutMs === undefined ? origin?.arrivedAt : undefined
  const waited = since === undefined || since > now ? 0 : now - since
  if (waited >= timeoutMs) return Promise.reject(errors.upstreamTimeout(pool.network, timeoutMs))
  const r = new Run({
    pool,
    body,
    order,
    healthy: pool.selectedHealthy,
    method,
    kind: callKind(method),
    startedAt: now - waited,
    timeoutMs,
    signal: o?.signal,
  })
  r.onWinner = onWinner
  r.span = origin?.span
  return r.start()
}
