/**
 * What a pool knows of one node (src/upstreams/pool/member.ts sends to it; selection.ts and attempts.ts read and update
 * these fields) and what one answer from it carries. Plain data: one object per node, built once. Also the pool's
 * settings and call options (re-exported by ./pool.ts, the pool's public module): here, so that the parts pool.ts
 * composes do not import it back.
 */
import type { Pool } from 'undici'
import type { TokenBucket } from '../../shared/token-bucket.ts'
import type { ProviderRefusal } from './classify.ts'
import type { Breaker, BreakerSettings } from './breaker.ts'
import type { RollingStats } from './latency.ts'
import type { WsRpcConnection } from '../../jsonrpc/ws-connection.ts'
import type { TraceSpan } from '../../observability/tracing.ts'

export interface UpstreamAnswer {
  /** The node's JSON-RPC answer, verbatim (bytes: a single call's answer goes back to the client untouched). */
  body: Buffer
  /** Milliseconds from sending to the full body. */
  latencyMs: number
  /** The node that answered, as a redacted label (no credentials). */
  upstream: string
  /** Upstream requests made for this answer, retries and hedges included (1: the first node answered). */
  attempts: number
  /** Set when the answer did not come from an upstream request of its own (the cache, or a shared in-flight call). */
  source?: 'cache' | 'dedup'
  /** The answer is a single JSON-RPC error (judged once here, so the pipeline need not scan the bytes again). */
  isError?: boolean
}

export interface Member {
  url: URL
  path: string
  /** Built once: the same object goes with every request. */
  headers: Record<string, string>
  /** The URL with credentials removed (src/upstreams/pool/pool.ts redactUrl): the only form logs and /healthz show. */
  label: string
  /** HTTP(S) nodes. */
  pool: Pool | undefined
  /** ws(s) nodes. */
  socket: WsRpcConnection | undefined
  /** Short cooldown after a failure to answer: skipped while others answer, still tried as a last resort. */
  downUntil: number
  /** In rotation: chain id confirmed and no provider back-off. One flag, so the per-call path reads no clock. */
  usable: boolean
  chain: 'confirmed' | 'unknown' | 'wrong'
  /** Why the chain id is not confirmed (for /healthz and the log). */
  chainNote: string | undefined
  /** The last failed check's error: what a call gets while no node is confirmed (the node's own failure). */
  verifyError: Error | undefined
  verifying: Promise<void> | undefined
  lastVerifyAt: number
  onChainIdMismatch: 'fail' | 'exclude'
  /** Provider back-off: out of rotation (not even a last resort) until `blockedUntil`. */
  refusal: ProviderRefusal | undefined
  refusalDetail: string
  blockedUntil: number
  /** Current rate-limit back-off; doubles per refusal, back to 0 on an answer. */
  backoffMs: number
  role: 'primary' | 'fallback'
  weight: number
  /** This node's own deadline for one request. */
  timeoutMs: number
  labels: string[]
  /** Rolling latency quantiles and error rate (src/upstreams/pool/latency.ts). */
  stats: RollingStats
  breaker: Breaker
  /** Latest block the node reported (head polling), its hash, and its finalized block. */
  head: number | undefined
  finalized: number | undefined
  headPolling: boolean
  /** Rate budget (requests/s) as a token bucket; undefined: none. */
  budget: TokenBucket | undefined
  /** Latency × error rate ÷ weight, lower is better; recomputed once a second (src/upstreams/pool/selection.ts). */
  score: number
  /**
   * Scored among the best of its role (src/upstreams/pool/selection.ts, with hysteresis); others are only retry
   * targets.
   */
  inBand: boolean
  /** Smooth weighted round-robin counter. */
  rrCurrent: number
}

/** Cancels one request in flight (a hedge that lost): undici's abort once the request is dispatched. */
export interface RequestControl {
  abort: ((err: Error) => void) | undefined
  cancelled: boolean
  /** A traced attempt's W3C `traceparent`, sent to the node (tracing.propagateToUpstreams). */
  traceparent?: string | undefined
}

export interface SendSettings {
  network: string
  cooldownMs: number
  /**
   * Largest answer taken from a node (config `networks[].maxResponseBytes`); a larger one is cut off (answerTooLarge).
   */
  maxResponseBytes: number
}

export interface SendOptions {
  timeoutMs?: number
  /** The JSON-RPC method of a single call (undefined for a batch): drives retry/hedge policy. */
  method?: string
  /** Consistent heads: only upstreams whose latest head is >= this block number (undefined: any). */
  minBlock?: number
  signal?: AbortSignal
  /**
   * Who calls (the API key's id, opaque here): a filter id is handed out to and accepted from its owner only
   * (src/upstreams/pool/filters.ts).
   */
  owner?: string
}

/**
 * The client call a send is made for, passed with each send (never parked in a module variable: a send that
 * starts after a wait, e.g. on a shared cache tier's answer, still knows its call). The pipeline passes its
 * CallContext, which has these fields, so a send allocates nothing for it. Undefined: the gateway's own calls.
 */
export interface CallOrigin {
  /** The call's span when it is traced: the pool's attempts become its children. */
  readonly span?: TraceSpan | undefined
  /**
   * When the client's HTTP call arrived (`Date.now()` ms): the time it already waited in this process (its body
   * read, key checks, a cache tier's answer) counts against its deadline, so no call waits longer than it in all.
   */
  readonly arrivedAt?: number | undefined
}

export interface UpstreamEndpoint {
  url: string
  wsUrl?: string
  /** What a node answering another chain id does to start-up: stop it (default), or stay out of rotation. */
  onChainIdMismatch?: 'fail' | 'exclude'
  role?: 'primary' | 'fallback'
  weight?: number
  /** This node's deadline for one request (default: the pool's timeoutMs). */
  timeoutMs?: number | undefined
  /** Most requests per second sent to this node; null/undefined: no limit. */
  maxRequestsPerSecond?: number | null | undefined
  labels?: string[]
}

/** The network's policy over its nodes (config `networks[].upstreamPolicy`, docs/config.md). */
export interface UpstreamPolicy {
  maxLagBlocks: number
  /** All attempts of one call end within this (default: the pool's timeoutMs). */
  totalTimeoutMs?: number | undefined
  maxAttempts: number
  headPollMs: number
  headIdleMs: number
  hedge: { enabled: boolean; delayMs: number | null; quantile: number; minDelayMs: number; maxDelayMs: number }
  breaker: BreakerSettings
}

/** Where the pool reports what an operator should see (a pino logger fits). */
export interface PoolLog {
  info(fields: object, message: string): void
  warn(fields: object, message: string): void
  error(fields: object, message: string): void
}
