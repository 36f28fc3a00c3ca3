/**
 * What stands between the forward step and a network's upstream pool for a single call (docs/caching.md):
 *
 * - cache: finality-aware (src/gateway/cache/rules.ts): finalized data, by-hash lookups and receipts of finalized
 *   transactions are kept until evicted; unfinalized data is keyed on its block hash (from the heads seen) and
 *   dropped on a reorg; tags are never cached except eth_blockNumber for one served head; empty answers for
 *   unfinalized data are not kept;
 * - in-flight dedup: identical concurrent reads share one upstream call, each client gets the answer with its own
 *   id (the id is spliced into the node's bytes, nothing is re-serialized);
 * - consistent heads: eth_blockNumber never goes backwards for a key (HeadFloorStore), latest and tag-less reads
 *   ask an upstream at the served tip (`minBlock`), a block above the tip answers null when several upstreams could
 *   disagree (one trusted node is asked instead: a block its client just mined must not be hidden).
 *
 * A call of a method listed nowhere (a write, a filter, a devnet method) costs one Map and one Set lookup and goes
 * to the pool as the client's bytes, as before.
 */
import type { ChaingateError } from '../../errors/index.ts'
import { skipSpace, type RpcCall, type RpcId } from '../../jsonrpc/envelope.ts'
import { countLogs, fitsTo, planGetLogs, rangeTooLarge, splitRange, tooManyResults, type GetLogsLimits } from '../../rpc-methods/eth_getLogs.ts'
import type { HeadView, SendOptions, UpstreamAnswer, UpstreamPool } from '../../upstreams/pool.ts'
import { answerSpans, isEmptyResult, resultAnswer, withId, type AnswerSpans } from './answer.ts'
import { blockRefOf, CACHE_RULES, isRewind, minedAt, SHARED_READS, type CacheRule } from './rules.ts'
import type { CacheStore, HeadFloorStore } from './store.ts'

/** An answer the layers served themselves is marked (`source`: request log, metrics, usage). */
export type LayerAnswer = UpstreamAnswer

export interface CacheStats {
  hits: number
  misses: number
  deduplicated: number
  /** Answers to blocks above the served tip given without asking an upstream. */
  aboveTip: number
}

export interface CallLayers {
  /** One call of a key: from the cache, joined to an identical call in flight, or sent to the pool. */
  send(call: RpcCall, raw: Buffer | string, keyId: string): Promise<LayerAnswer>
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
}

/** Unfinalized entries tracked per network (to drop them on a reorg); beyond it the oldest is dropped. */
const MAX_UNFINALIZED = 50_000

/** Hashes of recent blocks kept to key unfinalized entries (at least the unfinalized window of common chains). */
const RECENT_HASHES = 256

interface InFlight {
  generation: number
  promise: Promise<LayerAnswer>
  spans: AnswerSpans | undefined | null
}

export function createCallLayers(o: CallLayerOptions): CallLayers {
  const { network, pool, heads, store, floors } = o
  const prefix = `${network}\0`
  const stats: CacheStats = { hits: 0, misses: 0, deduplicated: 0, aboveTip: 0 }
  /** Bumped by every call that may change the chain (writes, unknown methods): nothing in flight before it is shared after. */
  let generation = 0
  const inflight = new Map<string, InFlight>()
  /** block number → hash, from the heads announced. */
  const recent = new Map<number, string>()
  /** Keys of unfinalized entries, dropped on a reorg. */
  const unfinalized = new Set<string>()
  /** eth_blockNumber for one head: valid while the served tip and the write generation are those it was fetched at. */
  let headEntry: { tip: number | undefined; generation: number; value: number; until: number } | undefined

  const forgetUnfinalized = () => {
    for (const k of unfinalized) store.delete(k)
    unfinalized.clear()
    headEntry = undefined
  }
  /** When the last head was announced: heads are not polled while the gateway is idle, so the tip can be old. */
  let lastHeadAt = -Infinity
  const unsubscribe = heads?.onHead?.((h) => {
    lastHeadAt = performance.now()
    if (h.reorg) forgetUnfinalized()
    recent.set(h.number, h.hash.toLowerCase())
    if (recent.size > RECENT_HASHES) for (const n of recent.keys()) if (n <= h.number - RECENT_HASHES) recent.delete(n)
  })

  const rewound = () => {
    store.clear(prefix)
    unfinalized.clear()
    recent.clear()
    floors.reset(network)
    headEntry = undefined
  }

  /** A call that may change what the node answers next: nothing shared or cached from before it is served after. */
  const write = (method: string, raw: Buffer | string): Promise<LayerAnswer> => {
    generation++
    headEntry = undefined
    const p = pool.send(raw, methodOnly(method))
    // The write's own effects are visible only once it is answered: calls joined between sending and answering
    // must not be shared after it either.
    const after = () => {
      generation++
      headEntry = undefined
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

  const spansOf = (f: InFlight, body: Buffer): AnswerSpans | undefined => (f.spans === undefined ? (f.spans = answerSpans(body) ?? null) : f.spans) ?? undefined

  /** Sends, or joins an identical call in flight of the same write generation. */
  const shared = (key: string, raw: Buffer | string, call: RpcCall, opts: SendOptions | undefined): Promise<LayerAnswer> => {
    const id = call.id
    // A notification gets no answer from the node (nothing to share), so it neither leads nor is registered.
    if (!call.hasId) return pool.send(raw, opts ?? methodOnly(call.method))
    if (o.dedup) {
      const f = inflight.get(key)
      if (f !== undefined && f.generation === generation) {
        stats.deduplicated++
        return f.promise.then((a): LayerAnswer => {
          const spans = spansOf(f, a.body)
          return { ...a, body: spans === undefined ? a.body : withId(a.body, spans, id), attempts: 0, source: 'dedup' }
        })
      }
    }
    const promise = pool.send(raw, opts ?? methodOnly(call.method))
    if (o.dedup) {
      const f: InFlight = { generation, promise, spans: undefined }
      inflight.set(key, f)
      const done = () => {
        if (inflight.get(key) === f) inflight.delete(key)
      }
      promise.then(done, done)
    }
    return promise
  }

  /** Keys of the parameterless methods (eth_chainId, net_version), built once. */
  const staticKeys = new Map<string, string>()
  const paramsKey = (call: RpcCall) => `${prefix}${call.method}\0${call.params === undefined ? '[]' : JSON.stringify(call.params)}`

  /** A stored result as this client's answer (a shared tier may answer asynchronously). */
  const lookup = (key: string, id: RpcId): LayerAnswer | Promise<LayerAnswer | undefined> | undefined => {
    const v = store.get(key)
    if (v === undefined) return undefined
    if (v instanceof Promise) return v.then((b) => (b === undefined ? undefined : hit(b, id)))
    return hit(v, id)
  }
  const hit = (result: Buffer, id: RpcId): LayerAnswer => {
    stats.hits++
    // isError false: the pipeline need not scan the answer again (a stored answer is always a result).
    return { body: resultAnswer(id, result), latencyMs: 0, upstream: 'cache', attempts: 0, source: 'cache', isError: false }
  }

  /** The result bytes of a successful answer, or undefined (an error, not JSON-RPC, too large to keep). */
  const resultOf = (body: Buffer): { spans: AnswerSpans; result: Buffer } | undefined => {
    const spans = answerSpans(body)
    if (spans === undefined || spans.resultStart < 0 || spans.resultEnd - spans.resultStart > o.maxItemBytes) return undefined
    return { spans, result: body.subarray(spans.resultStart, spans.resultEnd) }
  }

  /**
   * Looks the key up, else sends (shared) and lets `keep` decide what to store from the answer. `keep` runs once,
   * on the first caller's answer; the generation is checked so an answer that raced a write is not stored.
   */
  const cached = (
    key: string,
    call: RpcCall,
    raw: Buffer | string,
    opts: SendOptions | undefined,
    keep: (result: Buffer, empty: boolean) => void,
  ): Promise<LayerAnswer> => {
    const found = lookup(key, call.id)
    if (found !== undefined) {
      if (!(found instanceof Promise)) return Promise.resolve(found)
      return found.then((a) => a ?? miss(key, call, raw, opts, keep))
    }
    return miss(key, call, raw, opts, keep)
  }
  const miss = (key: string, call: RpcCall, raw: Buffer | string, opts: SendOptions | undefined, keep: (result: Buffer, empty: boolean) => void): Promise<LayerAnswer> => {
    const leading = !o.dedup || inflight.get(key)?.generation !== generation
    const sentAt = generation
    const p = shared(key, raw, call, opts)
    if (!leading) return p
    stats.misses++
    return p.then((a) => {
      if (a.source === undefined && sentAt === generation) {
        const r = resultOf(a.body)
        if (r !== undefined) keep(Buffer.from(r.result), isEmptyResult(r.result, 0, r.result.length))
      }
      return a
    })
  }

  const immutable = { immutable: true }
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

  const byBlock = (rule: CacheRule & { kind: 'block' }, call: RpcCall, raw: Buffer | string): Promise<LayerAnswer> => {
    const params = call.params as unknown[] | undefined
    const ref = blockRefOf(Array.isArray(params) ? params[rule.at] : undefined)
    const tip = heads?.latest()
    if ('tag' in ref) {
      // latest/pending/safe/finalized are never cached; latest and tag-less reads go to an upstream at the tip.
      return shared(paramsKey(call), raw, call, ref.tag === 'latest' || ref.tag === 'pending' ? atTip(call.method) : undefined)
    }
    const key = paramsKey(call)
    if ('hash' in ref) return cached(key, call, raw, undefined, (result, empty) => empty || store.set(key, result, immutable))
    const n = ref.number
    if (tip !== undefined && n > tip) {
      if (o.multiUpstream && rule.blockData && performance.now() - lastHeadAt < o.headIdleMs) {
        // Not yet a block for the gateway: the same answer whichever node would have been asked. Only while heads
        // are being polled: after an idle spell the tip is old until the next poll, and a node is asked.
        stats.aboveTip++
        return Promise.resolve({ body: resultAnswer(call.id, NULL), latencyMs: 0, upstream: 'gateway', attempts: 0, source: 'cache', isError: false })
      }
      return shared(key, raw, call, atLeast(call.method, n))
    }
    const finalized = heads?.finalized()
    if (finalized !== undefined && n <= finalized) return cached(key, call, raw, undefined, (result, empty) => (empty && rule.blockData) || store.set(key, result, immutable))
    const hash = recent.get(n)
    if (hash === undefined) return shared(key, raw, call, atLeast(call.method, n))
    const hashed = `${key}@${hash}`
    return cached(hashed, call, raw, atLeast(call.method, n), (result, empty) => empty || (recent.get(n) === hash && keepUnfinalized(hashed, result)))
  }

  const byTx = (call: RpcCall, raw: Buffer | string): Promise<LayerAnswer> => {
    const key = paramsKey(call)
    if (unfinalized.has(key)) {
      // Kept while its block was unfinalized: still valid only if that block is still the one at its height.
      const at = txBlocks.get(key)
      if (at === undefined || recent.get(at.number) !== at.hash) {
        store.delete(key)
        unfinalized.delete(key)
        txBlocks.delete(key)
      }
    }
    return cached(key, call, raw, undefined, keepTx(key))
  }
  const txBlocks = new Map<string, { number: number; hash: string }>()
  const keepTx = (key: string) => (result: Buffer, empty: boolean) => {
    if (empty) return
    const at = minedAt(result.toString('latin1', 0, Math.min(result.length, 4096)))
    if (at === undefined) return // pending
    const finalized = heads?.finalized()
    if (finalized !== undefined && at.number <= finalized) {
      store.set(key, result, immutable)
      return
    }
    if (recent.get(at.number) !== at.hash) return
    txBlocks.set(key, at)
    if (txBlocks.size > 10_000) txBlocks.delete(txBlocks.keys().next().value!)
    keepUnfinalized(key, result)
  }

  /** eth_blockNumber: the served tip, never below what this key was told before. */
  const blockNumber = (call: RpcCall, raw: Buffer | string, keyId: string): Promise<LayerAnswer> => {
    const tip = heads?.latest()
    const e = headEntry
    if (o.cache && e !== undefined && e.generation === generation && e.tip === tip && tip !== undefined && performance.now() < e.until) {
      stats.hits++
      return Promise.resolve(numberAnswer(call.id, floors.raise(keyId, network, e.value), undefined))
    }
    const sentAt = generation
    return shared(`${prefix}eth_blockNumber`, raw, call, atTip('eth_blockNumber')).then((a) => {
      const spans = answerSpans(a.body)
      if (spans === undefined || spans.resultStart < 0) return a
      const text = a.body.toString('latin1', spans.resultStart + 1, spans.resultEnd - 1)
      const answered = text.startsWith('0x') ? Number.parseInt(text, 16) : Number.NaN
      if (!Number.isSafeInteger(answered)) return a
      // A node behind the served tip is lifted to it (the tip is a block a healthy upstream has). Not with one node:
      // its own answer is the truth, and a devnet may go back in time (evm_revert) below a tip already seen.
      const value = o.multiUpstream && tip !== undefined && tip > answered ? tip : answered
      if (sentAt === generation && heads !== undefined) headEntry = { tip, generation: sentAt, value, until: performance.now() + o.blockNumberTtlMs }
      const served = floors.raise(keyId, network, value)
      return served === answered ? a : numberAnswer(call.id, served, a)
    })
  }

  /**
   * Latest and tag-less reads go to an upstream at the served tip. With one upstream there is no other to choose:
   * no per-call options object.
   */
  const atTip = (method: string): SendOptions => (o.multiUpstream ? atLeast(method, heads?.latest()) : methodOnly(method))

  const limits = o.getLogs
  /** More logs than the cap: the call fails with Infura's error and the range that would have fit. */
  const capped = (a: LayerAnswer, from: number | undefined): LayerAnswer => {
    const spans = answerSpans(a.body)
    if (spans === undefined || spans.resultStart < 0) return a
    const { count, overAt } = countLogs(a.body, spans.resultStart, limits.maxResults)
    if (count <= limits.maxResults) return a
    throw tooManyResults(limits.maxResults, from, from === undefined || overAt === undefined ? undefined : fitsTo(a.body, overAt, from))
  }

  /** eth_getLogs: range cap, tags resolved against the served tip (several upstreams), splitting, result cap. */
  const logs = (call: RpcCall, raw: Buffer | string): Promise<LayerAnswer> => {
    // Tags are rewritten to the tip only while heads are polled (after an idle spell the tip is old).
    const plan = planGetLogs(call.params, { tip: heads?.latest(), finalized: heads?.finalized() }, limits, o.multiUpstream && performance.now() - lastHeadAt < o.headIdleMs)
    if (!('kind' in plan)) return Promise.reject(plan as ChaingateError)
    if (plan.kind === 'pass') return shared(paramsKey(call), raw, call, undefined).then((a) => capped(a, plan.from))
    const { from, to, filter } = plan
    const size = limits.upstreamMaxBlockRange
    if (size !== null && to - from + 1 > size) {
      const parts = splitRange(from, to, size)
      if (parts.length > limits.maxSplits) return Promise.reject(rangeTooLarge(to - from + 1, size * limits.maxSplits))
      return splitLogs(call, filter, parts)
    }
    const key = plan.rewritten ? `${prefix}eth_getLogs\0${JSON.stringify([filter])}` : paramsKey(call)
    const body = plan.rewritten ? JSON.stringify({ jsonrpc: '2.0', id: call.id, method: 'eth_getLogs', params: [filter] }) : raw
    const finalized = heads?.finalized()
    // A range that ends at or below the finalized block has its final logs (an empty list included): kept, when
    // within the result cap.
    if (o.cache && !o.uncached.has('eth_getLogs') && finalized !== undefined && to <= finalized)
      return cached(key, call, body, undefined, (result) => countLogs(result, 0, limits.maxResults).count <= limits.maxResults && store.set(key, result, immutable)).then((a) =>
        capped(a, from),
      )
    return shared(key, body, call, atLeast('eth_getLogs', to)).then((a) => capped(a, from))
  }

  /**
   * A range wider than the nodes' own limit, as consecutive sub-requests (at most `splitConcurrency` in flight),
   * merged in order. All or nothing: a sub-request that fails fails the call (its error, with the client's id).
   */
  const splitLogs = async (call: RpcCall, filter: Record<string, unknown>, parts: [number, number][]): Promise<LayerAnswer> => {
    const results: (Buffer | undefined)[] = new Array(parts.length).fill(undefined)
    const counts: number[] = new Array(parts.length).fill(0)
    let next = 0
    let total = 0
    let attempts = 0
    let stop = false
    let failure: LayerAnswer | undefined
    let first: LayerAnswer | undefined
    const started = performance.now()
    const worker = async () => {
      while (!stop && next < parts.length) {
        const i = next++
        const [a, b] = parts[i]!
        const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getLogs', params: [{ ...filter, fromBlock: `0x${a.toString(16)}`, toBlock: `0x${b.toString(16)}` }] })
        let answer: LayerAnswer
        try {
          answer = await pool.send(body, atLeast('eth_getLogs', b))
        } catch (err) {
          stop = true
          throw err
        }
        attempts += answer.attempts
        first ??= answer
        const spans = answerSpans(answer.body)
        if (spans === undefined || spans.resultStart < 0 || answer.body[spans.resultStart] !== 0x5b) {
          stop = true
          failure ??= { ...answer, body: spans === undefined ? answer.body : withId(answer.body, spans, call.id) }
          return
        }
        results[i] = answer.body.subarray(spans.resultStart, spans.resultEnd)
        counts[i] = countLogs(answer.body, spans.resultStart, limits.maxResults).count
        total += counts[i]!
        if (total > limits.maxResults) stop = true
      }
    }
    await Promise.all(Array.from({ length: Math.min(limits.splitConcurrency, parts.length) }, worker))
    if (failure !== undefined) return failure
    const from = parts[0]![0]
    if (total > limits.maxResults) {
      // The range that fits: counted over the sub-ranges answered in order from the start.
      let before = 0
      let fits: number | undefined
      for (let i = 0; i < parts.length && results[i] !== undefined; i++) {
        if (before + counts[i]! > limits.maxResults) {
          const r = results[i]!
          const over = countLogs(r, 0, limits.maxResults - before).overAt
          fits = over === undefined ? undefined : fitsTo(r, over, from)
          break
        }
        before += counts[i]!
        fits = parts[i]![1]
      }
      throw tooManyResults(limits.maxResults, from, fits)
    }
    const inner: Buffer[] = []
    for (const r of results) {
      // Between the brackets; an empty sub-range adds nothing.
      const open = skipSpace(r!, 1)
      if (r![open] === 0x5d) continue
      if (inner.length > 0) inner.push(COMMA)
      inner.push(r!.subarray(1, r!.length - 1))
    }
    const merged = Buffer.concat([OPEN, ...inner, CLOSE])
    return { body: resultAnswer(call.id, merged), latencyMs: performance.now() - started, upstream: first?.upstream ?? 'split', attempts, isError: false }
  }

  return {
    stats,
    send(call, raw, keyId) {
      const m = call.method
      const rule = CACHE_RULES.get(m)
      if (rule === undefined) {
        if (m === 'eth_getLogs') return logs(call, raw)
        // Reads without a block parameter (gas price, fee history, estimates) are about the latest state.
        return SHARED_READS.has(m) ? shared(paramsKey(call), raw, call, atTip(m)) : write(m, raw)
      }
      if (rule.kind === 'head') return blockNumber(call, raw, keyId)
      if (!o.cache || o.uncached.has(m)) return shared(paramsKey(call), raw, call, undefined)
      switch (rule.kind) {
        case 'static': {
          // Takes no parameters: anything else is the node's to judge (it answers an error), not the cached answer.
          const p = call.params
          if (p !== undefined && !(Array.isArray(p) && p.length === 0)) return shared(paramsKey(call), raw, call, undefined)
          let key = staticKeys.get(m)
          if (key === undefined) staticKeys.set(m, (key = `${prefix}${m}`))
          return cached(key, call, raw, undefined, (result) => store.set(key, result, immutable))
        }
        case 'hash': {
          const key = paramsKey(call)
          return cached(key, call, raw, undefined, (result, empty) => empty || store.set(key, result, immutable))
        }
        case 'tx':
          return byTx(call, raw)
        case 'block':
          return byBlock(rule, call, raw)
      }
    },
    sawCalls(methods) {
      for (const m of methods)
        if (!CACHE_RULES.has(m) && !SHARED_READS.has(m)) {
          generation++
          headEntry = undefined
          if (o.devnet && isRewind(m)) rewound()
        }
    },
    batchHit(call) {
      const rule = CACHE_RULES.get(call.method)
      if (rule === undefined || rule.kind === 'head' || !o.cache || o.uncached.has(call.method)) return undefined
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
          if (!('hash' in ref) && !('number' in ref && finalized !== undefined && ref.number <= finalized)) return undefined
        }
        key = paramsKey(call)
        if (unfinalized.has(key)) return undefined
      }
      const v = store.get(key)
      if (v === undefined || v instanceof Promise) return undefined
      stats.hits++
      return resultAnswer(call.id, v)
    },
    batchLogsRefusal(call) {
      const plan = planGetLogs(call.params, { tip: heads?.latest(), finalized: heads?.finalized() }, limits, false)
      return 'kind' in plan ? undefined : plan
    },
    batchLogsOverCap(call, result) {
      if (!Array.isArray(result) || result.length <= limits.maxResults) return undefined
      const plan = planGetLogs(call.params, { tip: heads?.latest(), finalized: heads?.finalized() }, limits, false)
      const from = 'kind' in plan ? plan.from : undefined
      const over = (result[limits.maxResults] as { blockNumber?: unknown } | undefined)?.blockNumber
      const overBlock = typeof over === 'string' ? Number.parseInt(over, 16) : Number.NaN
      return tooManyResults(limits.maxResults, from, from === undefined || !Number.isSafeInteger(overBlock) ? undefined : Math.max(from, overBlock - 1))
    },
    close() {
      if (typeof unsubscribe === 'function') unsubscribe()
      inflight.clear()
    },
  }
}

const NULL = Buffer.from('null')
const OPEN = Buffer.from('[')
const CLOSE = Buffer.from(']')
const COMMA = Buffer.from(',')

/** An eth_blockNumber answer with the number the gateway serves (from the cache, or lifted to the tip or floor). */
const numberAnswer = (id: RpcId, value: number, from: LayerAnswer | undefined): LayerAnswer => {
  const body = resultAnswer(id, Buffer.from(`"0x${value.toString(16)}"`))
  return from === undefined ? { body, latencyMs: 0, upstream: 'cache', attempts: 0, source: 'cache', isError: false } : { ...from, body }
}

/** `{ method }` per method name, built once: the pool's retry and hedging policy reads it on every call. */
const methodOptions = new Map<string, SendOptions>()
const methodOnly = (method: string): SendOptions => {
  let o = methodOptions.get(method)
  if (o === undefined) {
    o = Object.freeze({ method })
    // Only served method names reach here (the method policy refuses the others), so the map stays small.
    methodOptions.set(method, o)
  }
  return o
}

/** Send options for a read at or after block `n` (undefined: any upstream). */
const atLeast = (method: string, n: number | undefined): SendOptions => (n === undefined ? methodOnly(method) : { method, minBlock: n })
