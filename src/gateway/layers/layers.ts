/**
 * What stands between the forward step and a network's upstream pool for a single call (docs/caching.md):
 *
 * - cache: finality-aware (src/gateway/layers/cache-rules.ts): finalized data, by-hash lookups and receipts of
 * finalized
 *   transactions are kept until evicted; unfinalized data is keyed on its block hash (from the heads seen) and
 *   dropped on a reorg; tags are never cached except eth_blockNumber for one served head; empty answers for
 *   unfinalized data are not kept (cached-reads.ts);
 * - in-flight dedup: identical concurrent reads share one upstream call, each client gets the answer with its own
 *   id (the id is spliced into the node's bytes, nothing is re-serialized; dedup.ts);
 * - consistent heads: eth_blockNumber never goes backwards for a key (HeadFloorStore), latest and tag-less reads
 *   ask an upstream at the served tip (`minBlock`), a block above the tip answers null when several upstreams could
 *   disagree (one trusted node is asked instead: a block its client just mined must not be hidden;
 * consistent-heads.ts);
 * - eth_getLogs: range and result caps, splitting (getlogs.ts).
 *
 * This file composes them per network over one shared state (layer-state.ts) and routes each call by its method.
 * A call of a method listed nowhere (a write, a filter, a devnet method) costs one Map and one Set lookup and goes
 * to the pool as the client's bytes, as before.
 */
import type { MaybePromise } from '../../shared/types.ts'
import type { ChaingateError } from '../../errors/index.ts'
import type { RpcCall } from '../../jsonrpc/types.ts'
import { RANGE_SCAN_METHOD } from '../../methods/catalog.ts'
import type { CallOrigin } from '../../upstreams/pool/pool.ts'
import { createCachedReads, IMMUTABLE } from './cached-reads.ts'
import { createBlockNumber, createContextSlot, createSlotNumber, watchHeads } from './consistent-heads.ts'
import { createSharedSend } from './dedup.ts'
import { createGetLogsHook } from './getlogs.ts'
import {
  atTip,
  createLayerState,
  methodOnly,
  paramsKey,
  type CacheStats,
  type CallLayerOptions,
  type LayerAnswer,
} from './state.ts'
import { CACHE_RULES, isRewind, SHARED_READS, UNSHARED_READS } from './cache-rules.ts'

export type { CacheStats, CallLayerOptions, LayerAnswer } from './state.ts'

export interface CallLayers {
  /**
   * One call of a key: from the cache, joined to an identical call in flight, or sent to the pool. An answer the
   * in-process cache holds comes back as it is, not as a promise: the pipeline then answers synchronously.
   * `origin`: the client call (its span, its arrival), passed down to whatever send it leads to.
   */
  send(call: RpcCall, raw: Buffer | string, keyId: string, origin?: CallOrigin): MaybePromise<LayerAnswer>
  /** A batch went to the node: any write in it invalidates what depends on the chain's state. */
  sawCalls(methods: readonly string[]): void
  /**
   * A call inside a batch answered from the in-process cache, if it is there (its answer with the call's id);
   * undefined sends it with the batch. Only what is kept for good (finalized, by hash, static): a batch is not
   * held up by a shared tier.
   */
  batchHit(call: RpcCall): Buffer | undefined
  /** An eth_getLogs call inside a batch: its range-cap refusal, if any (batches are not split). */
  batchLogsRefusal(call: RpcCall): ChaingateError | undefined
  /** An eth_getLogs result inside a batch: the result-cap refusal when it holds too many logs. */
  batchLogsOverCap(call: RpcCall, result: unknown): ChaingateError | undefined
  readonly stats: CacheStats
  close(): void
}

export function createCallLayers(o: CallLayerOptions): CallLayers {
  const { network, pool, store, floors } = o
  const s = createLayerState(o)
  const { prefix, stats, inflight, recent, unfinalized } = s
  const shared = createSharedSend(s)
  const { cached, byBlock, byTx, byCommitment, batchHit } = createCachedReads(s, shared)
  const blockNumber = createBlockNumber(s, shared)
  const slotNumber = createSlotNumber(s, shared)
  const contextSlot = createContextSlot(s, shared)
  const getLogs = createGetLogsHook(s, shared, cached)
  const logs = getLogs.logs

  /** The chain went back (a devnet rewound, a chain replaced under the gateway): nothing of before is served. */
  const rewound = () => {
    store.clear(prefix)
    unfinalized.clear()
    recent.clear()
    floors.reset(network)
    s.headEntry = undefined
  }
  const unsubscribe = watchHeads(s, rewound)

  /** A call that may change what the node answers next: nothing shared or cached from before it is served after. */
  const write = (method: string, raw: Buffer | string, origin: CallOrigin | undefined): Promise<LayerAnswer> => {
    s.generation++
    s.headEntry = undefined
    const p = pool.send(raw, methodOnly(method), undefined, undefined, origin)
    // The write's own effects are visible only once it is answered: calls joined between sending and answering
    // must not be shared after it either.
    const after = () => {
      s.generation++
      s.headEntry = undefined
      if (o.devnet && isRewind(method)) rewound()
    }
    return p.then(
      (a) => (after(), a),
      (err: unknown) => {
        after()
        throw err
      },
    )
  }

  /** Keys of the parameterless methods (eth_chainId, net_version), built once. */
  const staticKeys = new Map<string, string>()

  return {
    stats,
    send(call, raw, keyId, origin) {
      const m = call.method
      const rule = CACHE_RULES.get(m)
      if (rule === undefined) {
        if (m === RANGE_SCAN_METHOD) return logs(call, raw, origin)
        // Reads without a block parameter (gas price, fee history, estimates) are about the latest state.
        if (SHARED_READS.has(m)) return shared(paramsKey(prefix, call), raw, call, origin, atTip(o, m))
        // Filters are the calling key's own (src/upstreams/pool/filters.ts): the pool is told whose.
        return UNSHARED_READS.has(m)
          ? pool.send(raw, { method: m, owner: keyId }, undefined, undefined, origin)
          : write(m, raw, origin)
      }
      if (rule.kind === 'head') return blockNumber(call, raw, keyId, origin)
      if (rule.kind === 'slot') return slotNumber(rule, call, raw, keyId, origin)
      if (rule.kind === 'context') return contextSlot(rule, call, raw, keyId, origin)
      if (!o.cache || o.uncached.has(m)) return shared(paramsKey(prefix, call), raw, call, origin)
      switch (rule.kind) {
        case 'static': {
          // Takes no parameters: anything else is the node's to judge (it answers an error), not the cached answer.
          const p = call.params
          if (p !== undefined && !(Array.isArray(p) && p.length === 0))
            return shared(paramsKey(prefix, call), raw, call, origin)
          let key = staticKeys.get(m)
          if (key === undefined) staticKeys.set(m, (key = `${prefix}${m}`))
          return cached({
            key,
            call,
            raw,
            keep: (result) => store.set(key, result, IMMUTABLE),
            origin,
            counts: s.lookups.static,
          })
        }
        case 'hash': {
          const key = paramsKey(prefix, call)
          return cached({
            key,
            call,
            raw,
            keep: (result, empty) => empty || store.set(key, result, IMMUTABLE),
            origin,
            counts: s.lookups.hash,
          })
        }
        case 'tx':
          return byTx(call, raw, origin)
        case 'block':
          return byBlock(rule, call, raw, origin)
        case 'finalized':
          return byCommitment(rule, call, raw, origin)
      }
    },
    sawCalls(methods) {
      for (const m of methods)
        if (!CACHE_RULES.has(m) && !SHARED_READS.has(m) && !UNSHARED_READS.has(m)) {
          s.generation++
          s.headEntry = undefined
          if (o.devnet && isRewind(m)) rewound()
        }
    },
    batchHit,
    batchLogsRefusal: getLogs.batchLogsRefusal,
    batchLogsOverCap: getLogs.batchLogsOverCap,
    close() {
      if (typeof unsubscribe === 'function') unsubscribe()
      inflight.clear()
    },
  }
}
