/**
 * The finality-aware answer cache (docs/caching.md, rules in src/gateway/layers/cache-rules.ts; "write" in the layers
 * means a call that may change the chain, never a store into the cache): finalized data, by-hash lookups and
 * receipts of finalized transactions are kept until evicted; unfinalized data is keyed on its block hash (from the
 * heads seen) and dropped on a reorg; empty answers for unfinalized data are not kept.
 */
import type { MaybePromise } from '../../shared/types.ts'
import type { RpcCall, RpcId } from '../../jsonrpc/types.ts'
import type { CallOrigin, SendOptions } from '../../upstreams/pool/pool.ts'
import { answerSpans, isEmptyResult, resultAnswer, type AnswerSpans } from './cached-answer.ts'
import type { SharedSend } from './dedup.ts'
import { atLeast, atTip, paramsKey, type LayerAnswer, type LayerState } from './state.ts'
import { asksFinalized, blockRefOf, CACHE_RULES, minedAt, type CacheRule } from './cache-rules.ts'
import type { CacheSetOptions } from './cache-store.ts'
import type { LookupCounts } from './cache-lookups.ts'

/** Unfinalized entries tracked per network (to drop them on a reorg); beyond it the oldest is dropped. */
const MAX_UNFINALIZED = 50_000

/** Set options of what is kept until evicted. */
export const IMMUTABLE: CacheSetOptions = { immutable: true }

/**
 * An answer from the in-process tier comes back as it is, not wrapped in a promise (the pipeline then answers
 * synchronously).
 */
export type CachedSend = (read: CachedRead) => MaybePromise<LayerAnswer>

/** One read through the cache: the key looked up, the call sent on a miss, and what to keep from its answer. */
export interface CachedRead {
  key: string
  call: RpcCall
  raw: Buffer | string
  /** Sent with the call on a miss (a minimum block: src/gateway/layers/state.ts, atLeast). */
  opts?: SendOptions | undefined
  keep: (result: Buffer, empty: boolean) => void
  origin: CallOrigin | undefined
  /** The look-up counts of the call's cache rule (./cache-lookups.ts). */
  counts: LookupCounts
}

export interface CachedReads {
  /**
   * Looks the key up, else sends (shared) and lets `keep` decide what to store from the answer. `keep` runs once,
   * on the first caller's answer; the generation is checked so an answer that raced a write is not stored.
   */
  cached: CachedSend
  byBlock(
    rule: CacheRule & { kind: 'block' },
    call: RpcCall,
    raw: Buffer | string,
    origin: CallOrigin | undefined,
  ): MaybePromise<LayerAnswer>
  byTx(call: RpcCall, raw: Buffer | string, origin: CallOrigin | undefined): MaybePromise<LayerAnswer>
  /** Solana: kept when the call asks for finalized data, else shared while in flight. */
  byCommitment(
    rule: CacheRule & { kind: 'finalized' },
    call: RpcCall,
    raw: Buffer | string,
    origin: CallOrigin | undefined,
  ): MaybePromise<LayerAnswer>
  /** CallLayers.batchHit: only what is kept for good, and only from the in-process tier. */
  batchHit(call: RpcCall): Buffer | undefined
}

/** The network's cache reads, built once per network over its state and its `shared` send. */
export function createCachedReads(s: LayerState, shared: SharedSend): CachedReads {
  const { o, prefix, stats, inflight, recent, unfinalized, lookups } = s
  const { heads, store } = o

  /**
   * A stored result as this client's answer, counted (a shared tier may answer asynchronously: an answer that is a
   * promise came from Redis, the in-process tier answers synchronously).
   */
  const lookup = (
    key: string,
    id: RpcId,
    counts: LookupCounts,
  ): LayerAnswer | Promise<LayerAnswer | undefined> | undefined => {
    const v = store.get(key)
    if (v === undefined) {
      counts.miss++
      return undefined
    }
    if (v instanceof Promise)
      return v.then((b) => {
        if (b === undefined) {
          counts.miss++
          return undefined
        }
        counts.redis++
        return hit(b, id)
      })
    counts.memory++
    return hit(v, id)
  }
  const hit = (result: Buffer, id: RpcId): LayerAnswer => {
    stats.hits++
    return answered(resultAnswer(id, result), 'cache')
  }

  /** The result bytes of a successful answer, or undefined (an error, not JSON-RPC, too large to keep). */
  const resultOf = (body: Buffer): { spans: AnswerSpans; result: Buffer } | undefined => {
    const spans = answerSpans(body)
    if (spans === undefined || spans.resultStart < 0 || spans.resultEnd - spans.resultStart > o.maxItemBytes)
      return undefined
    return { spans, result: body.subarray(spans.resultStart, spans.resultEnd) }
  }

  const cached: CachedSend = (read) => {
    const found = lookup(read.key, read.call.id, read.counts)
    if (found !== undefined) {
      if (!(found instanceof Promise)) return found
      // A shared tier's miss: the send starts later, and still for this call (its span, its deadline).
      return found.then((a) => a ?? miss(read))
    }
    return miss(read)
  }
  const miss = ({ key, call, raw, opts, keep, origin }: CachedRead): Promise<LayerAnswer> => {
    const leading = !o.dedup || inflight.get(key)?.generation !== s.generation
    const sentAt = s.generation
    const p = shared(key, raw, call, origin, opts)
    if (!leading) return p
    stats.misses++
    return p.then((a) => {
      if (a.source === undefined && sentAt === s.generation) {
        const r = resultOf(a.body)
        if (r !== undefined) keep(Buffer.from(r.result), isEmptyResult(r.result, 0, r.result.length))
      }
      return a
    })
  }

  /** Kept until evicted, unless empty (an unknown hash, data not found or not finalized yet). */
  const keepFound = (key: string) => (result: Buffer, empty: boolean) => empty || store.set(key, result, IMMUTABLE)

  const volatile = { immutable: false, ttlMs: o.unfinalizedTtlMs }
  const keepUnfinalized = (key: string, result: Buffer) => {
    unfinalized.add(key)
    store.set(key, result, volatile)
    // Bounded: the oldest unfinalized entry goes first (its TTL would have dropped it soon anyway).
    if (unfinalized.size > MAX_UNFINALIZED) {
      const oldest = unfinalized.values().next().value!
      unfinalized.delete(oldest)
      store.delete(oldest)
    }
  }

  const byBlock = (
    rule: CacheRule & { kind: 'block' },
    call: RpcCall,
    raw: Buffer | string,
    origin: CallOrigin | undefined,
  ): MaybePromise<LayerAnswer> => {
    const params = call.params as unknown[] | undefined
    const ref = blockRefOf(Array.isArray(params) ? params[rule.at] : undefined)
    const tip = heads?.latest()
    if ('tag' in ref) {
      // latest/pending/safe/finalized are never cached; latest and tag-less reads go to an upstream at the tip.
      return shared(
        paramsKey(prefix, call),
        raw,
        call,
        origin,
        ref.tag === 'latest' || ref.tag === 'pending' ? atTip(o, call.method) : undefined,
      )
    }
    const key = paramsKey(prefix, call)
    if ('hash' in ref) return cached({ key, call, raw, keep: keepFound(key), origin, counts: lookups.block })
    const n = ref.number
    if (tip !== undefined && n > tip) {
      if (o.multiUpstream && rule.blockData && performance.now() - s.lastHeadAt < o.headIdleMs) {
        // Not yet a block for the gateway: the same answer whichever node would have been asked. Only while heads
        // are being polled: after an idle spell the tip is old until the next poll, and a node is asked.
        stats.aboveTip++
        return answered(resultAnswer(call.id, NULL), 'gateway')
      }
      return shared(key, raw, call, origin, atLeast(call.method, n))
    }
    const finalized = heads?.finalized()
    if (finalized !== undefined && n <= finalized)
      return cached({
        key,
        call,
        raw,
        keep: (result, empty) => (empty && rule.blockData) || store.set(key, result, IMMUTABLE),
        origin,
        counts: lookups.block,
      })
    const hash = recent.get(n)
    if (hash === undefined) return shared(key, raw, call, origin, atLeast(call.method, n))
    const hashed = `${key}@${hash}`
    return cached({
      key: hashed,
      call,
      raw,
      opts: atLeast(call.method, n),
      keep: (result, empty) => empty || (recent.get(n) === hash && keepUnfinalized(hashed, result)),
      origin,
      counts: lookups.block,
    })
  }

  const byTx = (call: RpcCall, raw: Buffer | string, origin: CallOrigin | undefined): MaybePromise<LayerAnswer> => {
    const key = paramsKey(prefix, call)
    if (unfinalized.has(key)) {
      // Kept while its block was unfinalized: still valid only if that block is still the one at its height.
      const at = txBlocks.get(key)
      if (at === undefined || recent.get(at.number) !== at.hash) {
        store.delete(key)
        unfinalized.delete(key)
        txBlocks.delete(key)
      }
    }
    return cached({ key, call, raw, keep: keepTx(key), origin, counts: lookups.tx })
  }
  const txBlocks = new Map<string, { number: number; hash: string }>()
  const keepTx = (key: string) => (result: Buffer, empty: boolean) => {
    if (empty) return
    const at = minedAt(result.toString('latin1', 0, Math.min(result.length, 4096)))
    if (at === undefined) return // pending
    const finalized = heads?.finalized()
    if (finalized !== undefined && at.number <= finalized) {
      store.set(key, result, IMMUTABLE)
      return
    }
    if (recent.get(at.number) !== at.hash) return
    txBlocks.set(key, at)
    if (txBlocks.size > 10_000) txBlocks.delete(txBlocks.keys().next().value!)
    keepUnfinalized(key, result)
  }

  const byCommitment = (
    rule: CacheRule & { kind: 'finalized' },
    call: RpcCall,
    raw: Buffer | string,
    origin: CallOrigin | undefined,
  ): MaybePromise<LayerAnswer> => {
    const key = paramsKey(prefix, call)
    if (!asksFinalized(rule, call.params)) return shared(key, raw, call, origin)
    // Finalized data never changes; a null answer (not found, or not finalized yet) is not kept.
    return cached({ key, call, raw, keep: keepFound(key), origin, counts: lookups.finalized })
  }

  const batchHit = (call: RpcCall): Buffer | undefined => {
    const rule = CACHE_RULES.get(call.method)
    if (
      rule === undefined ||
      rule.kind === 'head' ||
      rule.kind === 'slot' ||
      rule.kind === 'context' ||
      !o.cache ||
      o.uncached.has(call.method)
    )
      return undefined
    let key: string
    if (rule.kind === 'static') {
      const p = call.params
      if (p !== undefined && !(Array.isArray(p) && p.length === 0)) return undefined
      key = `${prefix}${call.method}`
    } else {
      if (rule.kind === 'block') {
        const params = call.params as unknown[] | undefined
        const ref = blockRefOf(Array.isArray(params) ? params[rule.at] : undefined)
        const finalized = heads?.finalized()
        if (!('hash' in ref) && !('number' in ref && finalized !== undefined && ref.number <= finalized))
          return undefined
      } else if (rule.kind === 'finalized' && !asksFinalized(rule, call.params)) return undefined
      key = paramsKey(prefix, call)
      if (unfinalized.has(key)) return undefined
    }
    const v = store.get(key)
    const counts = lookups[rule.kind]
    // A shared tier's answer is not waited for: the call goes with the batch (a miss here).
    if (v === undefined || v instanceof Promise) {
      counts.miss++
      return undefined
    }
    stats.hits++
    counts.memory++
    return resultAnswer(call.id, v)
  }

  return { cached, byBlock, byTx, byCommitment, batchHit }
}

const NULL = Buffer.from('null')
/** An answer the gateway gives itself; isError false: the pipeline need not scan it (it is always a result). */
const answered = (body: Buffer, upstream: string): LayerAnswer => ({
  body,
  latencyMs: 0,
  upstream,
  attempts: 0,
  source: 'cache',
  isError: false,
})
