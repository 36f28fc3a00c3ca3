/**
 * The pipeline's vocabulary: what it is built from (GatewayDeps, Gateway), what a call runs with (CallContext) and
 * what every request ends as (Outcome), the same for HTTP, WebSocket messages and the in-process client. Nothing
 * here knows a transport's wire format: src/gateway/http maps an Outcome to a status, headers and body.
 */
import type { KeyEntry, KeySnapshot } from '../../keys/snapshot.ts'
import type { KeySecurity } from '../../keys/security/types.ts'
import type { ErrorCode, KeySecurityCode } from '../../errors/registry.ts'
import type { ParsedEntry, RpcCall, RpcId } from '../../jsonrpc/types.ts'
import type { Network, NetworkRegistry } from '../../networks/registry.ts'
import type { UpstreamPool } from '../../upstreams/pool/pool.ts'
import type { CostTable } from '../../credits/costs.ts'
import type { LimitStore } from '../../credits/limits/memory.ts'
import type { UsageLedger } from '../../usage/ledger.ts'
import type { UpstreamUsage } from '../../usage/upstream-usage.ts'
import type { RequestRecorder } from '../../usage/requests/recorder.ts'
import type { Metrics } from '../../observability/metrics.ts'
import type { Slots } from '../../shared/slots.ts'
import type { Tracing, TraceSpan } from '../../observability/tracing.ts'
import type { CallLayers } from '../layers/layers.ts'

export interface Clock {
  now(): number
}

export type Transport = 'http' | 'ws'

/** Answers a call in place of the node (eth_subscribe in a WebSocket session); throws when the node is unreachable. */
export type LocalMethod = (call: RpcCall) => Promise<string | undefined>

/** Per-request context once the key and network are known. */
export interface CallContext {
  entry: KeyEntry
  network: Network
  pool: UpstreamPool
  transport: Transport
  /** Methods the caller answers itself, admitted, charged and recorded like forwarded calls. */
  local?: ReadonlyMap<string, LocalMethod> | undefined
  /**
   * WebSocket: writes an answer to the client; false when it could not be (socket closed, client not reading).
   * The pipeline calls it before settling, so an answer that was not delivered is not charged.
   */
  deliver?: ((answer: string) => boolean) | undefined
  /**
   * HTTP: the client's socket. An answer ready after the client went away (destroyed) is not charged: it cannot be
   * delivered (docs/errors.md).
   */
  client?: { readonly destroyed: boolean; readonly remoteAddress?: string | undefined } | undefined
  /** The Origin header, when the client sent one (the request explorer shows it). */
  origin?: string | undefined
  /**
   * This call's span when it is traced (src/observability/tracing.ts); set only then. With `arrivedAt`, what the
   * upstream pool is told of the call (a CallOrigin): the context goes with every send, however late it starts.
   */
  span?: TraceSpan | undefined
  /** HTTP: when the call arrived (`Date.now()` ms), so the time it already waited counts against its deadline. */
  arrivedAt?: number | undefined
}

/** What the client sent besides the body: the network and key the path named, and the headers key security reads. */
export interface RequestMeta {
  /** Undefined when neither the Host nor the path named a known network. */
  network: Network | undefined
  /** What the client asked for (host or path name), for the 404 message. */
  networkLabel: string
  /** The key from the path; undefined when missing (or followed by more path). */
  key: string | undefined
  authorization?: string | undefined
  origin?: string | undefined
  userAgent?: string | undefined
  /** W3C Trace Context header: a traced call continues the client's trace. */
  traceparent?: string | undefined
}

export interface HttpRpcRequest extends RequestMeta {
  body: Buffer | undefined
  /** When the request arrived (`Date.now()` ms): its upstream deadline counts from then. */
  arrivedAt?: number | undefined
  /** The client's socket, so an answer the client can no longer receive is not charged. */
  client?: { readonly destroyed: boolean; readonly remoteAddress?: string | undefined } | undefined
}

/**
 * How a request ended. Always built by `outcome()` (one object shape, so the code reading it stays
 * monomorphic: measured in bench/).
 */
export interface Outcome {
  /** The refusal that decides a non-200 status (registry code); undefined: answered (200, or 204 without a body). */
  code: ErrorCode | undefined
  /** JSON-RPC answer bytes (a single call's answer as the node sent it); undefined for refusals the edge words. */
  body: string | Buffer | undefined
  /** Limit and allowlist refusals of calls: their ids, one answer each (the edge formats Infura's bodies). */
  ids: RpcId[] | undefined
  batch: boolean
  /** NETWORK_UNKNOWN: the sentence naming the known networks. */
  detail: string | undefined
  /** Credits this request cost. */
  credits: number
  /** For the log line. */
  keyId: string | undefined
  method: string
  calls: number
  /** A single call answered without an upstream request of its own (docs/caching.md): marked in its request line. */
  source?: 'cache' | 'dedup' | undefined
}

export function outcome(o: Outcome): Outcome {
  return {
    code: o.code,
    body: o.body,
    ids: o.ids,
    batch: o.batch,
    detail: o.detail,
    credits: o.credits,
    keyId: o.keyId,
    method: o.method,
    calls: o.calls,
    source: o.source,
  }
}

/**
 * Key security (secret, JWT, allowlists; src/keys/security): a refusal code, or null to let the request
 * through. A required part of the gateway: a key with security settings is never served unchecked.
 */
export type AccessCheck = (
  security: KeySecurity,
  request: {
    authorization?: string | undefined
    origin?: string | undefined
    userAgent?: string | undefined
    calls: { method: string; params: unknown }[]
  },
) => Promise<{ code: KeySecurityCode } | null>

/**
 * What the pipeline is built from (src/gateway/pipeline/execute.ts createGateway); src/app/parts/gateway.ts wires
 * it.
 */
export interface GatewayDeps {
  networks: NetworkRegistry
  keys: KeySnapshot
  pools: Map<string, UpstreamPool>
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  maxBatchSize: number
  /** Key security: required, so a key with a secret, JWT or allowlists is never served unchecked. */
  checkAccess: AccessCheck
  /** Per network: cache, in-flight dedup and consistent heads in front of the pool (src/gateway/layers/layers.ts). */
  layers?: ReadonlyMap<string, CallLayers>
  /** Upstream usage per call (which node answered, attempts, cache/dedup); none: not recorded. */
  upstreamUsage?: UpstreamUsage | undefined
  /** The request explorer's per-call records (src/usage/requests); none: not recorded. */
  requests?: RequestRecorder | undefined
  /** Told when an account's daily balance runs out, so its WebSockets can be closed. */
  onDailyExhausted?: (accountId: string) => void
  /** Traces (src/observability/tracing.ts); none: off. */
  tracing?: Tracing
}

export interface Gateway {
  /** A promise only when something waits (the node, Redis, key security): a cached answer comes back as it is. */
  handleHttp(req: HttpRpcRequest): Outcome | Promise<Outcome>
  /** A WebSocket upgrade: the key checks of an HTTP request (no calls yet), then the daily-balance rule. */
  connect(req: RequestMeta): Promise<Authorized>
  /** One WebSocket message for a known key: parse, key security with the upgrade's headers, run. */
  handleMessage(
    ctx: CallContext,
    text: string,
    headers: Omit<RequestMeta, 'network' | 'networkLabel' | 'key'>,
  ): Promise<Outcome>
  /** Runs parsed calls for a known key and network (also the in-process client's way in). */
  run(ctx: CallContext, entries: ParsedEntry[], batch: boolean, raw: Buffer | string | undefined): Promise<Outcome>
}

/** Either a context to run calls in, or the refusal (code, what it cost). One shape for both. */
export interface Authorized {
  ctx: CallContext | undefined
  code: ErrorCode | undefined
  credits: number
  keyId: string | undefined
  /** NETWORK_UNKNOWN: names the known networks. */
  detail: string | undefined
}

/** What client subscriptions (./client-subscriptions.ts) and their event charges (./event-charges.ts) run on. */
export interface SubscriptionDeps {
  keys: KeySnapshot
  costs: CostTable
  limits: LimitStore
  ledger: UsageLedger
  metrics: Metrics
  clock: Clock
  /** Subscriptions one connection may hold (config gateway.maxSubscriptionsPerConnection). */
  maxSubscriptions: number
  /**
   * Subscriptions one key may hold across its connections in this process: the key's plan's maxSubscriptionsPerKey,
   * else this (gateway.maxSubscriptionsPerKey); counted in `perKey`, shared by every connection. None: no such cap.
   */
  keyCap?: { max: number; perKey: Slots }
  /** Traces: a span per delivered event (src/observability/tracing.ts); none: off. */
  tracing?: Tracing
}
