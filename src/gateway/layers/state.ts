/**
 * The per-network state the call layers share (src/gateway/layers/layers.ts composes them): options, stats, the
 * write generation, calls in flight, recent block hashes, unfinalized keys and the served eth_blockNumber entry;
 * plus the send options every layer builds. One plain object per network, built once: the layers read and set
 * its fields directly.
 */
import type { RpcCall } from '../../jsonrpc/types.ts'
import type { GetLogsLimits } from '../../methods/eth_getLogs.ts'
import type { HeadView, SendOptions, UpstreamAnswer, UpstreamPool } from '../../upstreams/pool/pool.ts'
import { ChurnMap } from '../../shared/churn-map.ts'
import type { AnswerSpans } from './cached-answer.ts'
import type { CacheStore, HeadFloorStore } from './cache-store.ts'
import { newNetworkLookups, type NetworkLookups } from './cache-lookups.ts'

/** An answer the layers served themselves is marked (`source`: request lines, metrics, usage). */
export type LayerAnswer = UpstreamAnswer

export interface CacheStats {
  hits: number
  misses: number
  deduplicated: number
  /** Answers to blocks above the served tip given without asking an upstream. */
  aboveTip: number
}

export interface CallLayerOptions {
  network: string
  pool: UpstreamPool
  heads: HeadView | undefined
  store: CacheStore
  floors: HeadFloorStore
  /** Cache on for this network (dedup and monotonic heads stay on). */
  cache: boolean
  dedup: boolean
  /** Methods whose answers are never cached on this network. */
  uncached: ReadonlySet<string>
  /** Largest result kept, in bytes. */
  maxItemBytes: number
  /** How long unfinalized entries live at most (a missed reorg cannot serve them for longer). */
  unfinalizedTtlMs: number
  /** How long one eth_blockNumber answer is served for the same head (heads are polled, and not at all when idle). */
  blockNumberTtlMs: number
  /** Several upstreams: a block above the served tip is answered null rather than by whichever node is asked. */
  multiUpstream: boolean
  /** The pool stops polling heads after this long without calls (networks[].upstreamPolicy.headIdleMs). */
  headIdleMs: number
  /** A devnet: its history can be rewritten (evm_revert, state loads), which clears everything kept for it. */
  devnet: boolean
  /** eth_getLogs range and result caps, and splitting for the nodes' own range limit. */
  getLogs: GetLogsLimits
  /** The network's cache look-up counts (./cache-lookups.ts: kept across reloads); none: counted for no one. */
  lookups?: NetworkLookups
}

export interface InFlight {
  generation: number
  promise: Promise<LayerAnswer>
  spans: AnswerSpans | undefined | null
}

/** eth_blockNumber for one head: valid while the served tip and the write generation are those it was fetched at. */
export interface HeadEntry {
  tip: number | undefined
  generation: number
  value: number
  until: number
}

export interface LayerState {
  readonly o: CallLayerOptions
  /** `${network}\0`: every key of this network starts with it. */
  readonly prefix: string
  readonly stats: CacheStats
  /** Look-ups per cache rule, for /metrics (bound here: the per-call path increments a field). */
  readonly lookups: NetworkLookups
  /**
   * Bumped by every call that may change the chain (writes, unknown methods): nothing in flight before it is shared
   * after.
   */
  generation: number
  /** A ChurnMap: an entry per uncached call, set and removed at the call rate. */
  readonly inflight: ChurnMap<string, InFlight>
  /** block number → hash, from the heads announced. */
  readonly recent: Map<number, string>
  /** Keys of unfinalized entries, dropped on a reorg. */
  readonly unfinalized: Set<string>
  headEntry: HeadEntry | undefined
  /** When the last head was announced: heads are not polled while the gateway is idle, so the tip can be old. */
  lastHeadAt: number
}

export function createLayerState(o: CallLayerOptions): LayerState {
  return {
    o,
    prefix: `${o.network}\0`,
    stats: { hits: 0, misses: 0, deduplicated: 0, aboveTip: 0 },
    lookups: o.lookups ?? newNetworkLookups(),
    generation: 0,
    inflight: new ChurnMap(),
    recent: new Map(),
    unfinalized: new Set(),
    headEntry: undefined,
    lastHeadAt: -Infinity,
  }
}

/** The key of a call by its method and parameters (as JSON.stringify writes them, whichever way they were sent). */
export const paramsKey = (prefix: string, call: RpcCall) =>
  `${prefix}${call.method}\0${call.paramsText ?? (call.params === undefined ? '[]' : JSON.stringify(call.params))}`

/** `{ method }` per method name, built once: the pool's retry and hedging policy reads it on every call. */
const methodOptions = new Map<string, SendOptions>()
export const methodOnly = (method: string): SendOptions => {
  let o = methodOptions.get(method)
  if (o === undefined) {
    o = Object.freeze({ method })
    // Only served method names reach here (the method policy refuses the others), so the map stays small.
    methodOptions.set(method, o)
  }
  return o
}

/** Send options for a read at or after block `n` (undefined: any upstream). */
export const atLeast = (method: string, n: number | undefined): SendOptions =>
  n === undefined ? methodOnly(method) : { method, minBlock: n }

/**
 * Latest and tag-less reads go to an upstream at the served tip. With one upstream there is no other to choose:
 * no per-call options object.
 */
export const atTip = (o: CallLayerOptions, method: string): SendOptions =>
  o.multiUpstream ? atLeast(method, o.heads?.latest()) : methodOnly(method)
