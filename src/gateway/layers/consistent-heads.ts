/**
 * Consistent heads (docs/caching.md): the heads the pool announces key unfinalized entries (and a reorg drops them);
 * eth_blockNumber is served for one head and never goes backwards for a key (HeadFloorStore).
 */
import type { MaybePromise } from '../../shared/types.ts'
import type { RpcCall, RpcId } from '../../jsonrpc/envelope.ts'
import { answerSpans, resultAnswer } from './cached-answer.ts'
import type { SharedSend } from './dedup.ts'
import type { CallOrigin } from '../../upstreams/pool/pool.ts'
import type { CacheRule } from './cache-rules.ts'
import { atTip, paramsKey, type LayerAnswer, type LayerState } from './state.ts'

/** Hashes of recent blocks kept to key unfinalized entries (at least the unfinalized window of common chains). */
const RECENT_HASHES = 256

/** Follows the network's heads (recent hashes, a reorg drops unfinalized entries); returns the unsubscribe, if any. */
export function watchHeads(s: LayerState) {
  const { o, recent, unfinalized } = s
  const { store } = o
  const forgetUnfinalized = () => {
    for (const k of unfinalized) store.delete(k)
    unfinalized.clear()
    s.headEntry = undefined
  }
  return o.heads?.onHead?.((h) => {
    s.lastHeadAt = performance.now()
    if (h.reorg) forgetUnfinalized()
    recent.set(h.number, h.hash.toLowerCase())
    if (recent.size > RECENT_HASHES) for (const n of recent.keys()) if (n <= h.number - RECENT_HASHES) recent.delete(n)
  })
}

/** eth_blockNumber: the served tip, never below what this key was told before. Built once per network. */
export function createBlockNumber(
  s: LayerState,
  shared: SharedSend,
): (call: RpcCall, raw: Buffer | string, keyId: string, origin: CallOrigin | undefined) => MaybePromise<LayerAnswer> {
  const { o, prefix, stats } = s
  const { network, heads, floors } = o
  return (call, raw, keyId, origin) => {
    const tip = heads?.latest()
    const e = s.headEntry
    if (
      o.cache &&
      e !== undefined &&
      e.generation === s.generation &&
      e.tip === tip &&
      tip !== undefined &&
      performance.now() < e.until
    ) {
      stats.hits++
      return numberAnswer(call.id, floors.raise(keyId, network, e.value), undefined)
    }
    const sentAt = s.generation
    return shared(`${prefix}eth_blockNumber`, raw, call, atTip(o, 'eth_blockNumber'), origin).then((a) => {
      const spans = answerSpans(a.body)
      if (spans === undefined || spans.resultStart < 0) return a
      const text = a.body.toString('latin1', spans.resultStart + 1, spans.resultEnd - 1)
      const answered = text.startsWith('0x') ? Number.parseInt(text, 16) : Number.NaN
      if (!Number.isSafeInteger(answered)) return a
      // A node behind the served tip is lifted to it (the tip is a block a healthy upstream has). Not with one node:
      // its own answer is the truth, and a devnet may go back in time (evm_revert) below a tip already seen.
      const value = o.multiUpstream && tip !== undefined && tip > answered ? tip : answered
      if (sentAt === s.generation && heads !== undefined)
        s.headEntry = { tip, generation: sentAt, value, until: performance.now() + o.blockNumberTtlMs }
      const served = floors.raise(keyId, network, value)
      return served === answered ? a : numberAnswer(call.id, served, a)
    })
  }
}

/**
 * Solana's getSlot and getBlockHeight on a network of several nodes: never below what this key was told before at
 * the same commitment (nodes a few slots apart would otherwise send it back in time). One node: its own answer.
 */
export function createSlotNumber(
  s: LayerState,
  shared: SharedSend,
): (
  rule: CacheRule & { kind: 'slot' },
  call: RpcCall,
  raw: Buffer | string,
  keyId: string,
  origin: CallOrigin | undefined,
) => MaybePromise<LayerAnswer> {
  const { o, prefix } = s
  const { network, floors } = o
  return (rule, call, raw, keyId, origin) => {
    const sent = shared(paramsKey(prefix, call), raw, call, undefined, origin)
    if (!o.multiUpstream) return sent
    return Promise.resolve(sent).then((a) => {
      const spans = answerSpans(a.body)
      if (spans === undefined || spans.resultStart < 0) return a
      const answered = Number(a.body.toString('latin1', spans.resultStart, spans.resultEnd))
      if (!Number.isSafeInteger(answered) || answered < 0) return a
      const config = Array.isArray(call.params) ? (call.params[rule.config] as { commitment?: unknown } | null) : null
      const commitment = typeof config?.commitment === 'string' ? config.commitment : 'finalized'
      // One floor per method and commitment (a processed slot is ahead of a finalized one by design); `/` never appears
      // in a network name, and NUL separates the Redis floor messages.
      const served = floors.raise(keyId, `${network}/${call.method}/${commitment}`, answered)
      return served === answered ? a : { ...a, body: resultAnswer(call.id, Buffer.from(String(served))) }
    })
  }
}

/** An eth_blockNumber answer with the number the gateway serves (from the cache, or lifted to the tip or floor). */
const numberAnswer = (id: RpcId, value: number, from: LayerAnswer | undefined): LayerAnswer => {
  const body = resultAnswer(id, Buffer.from(`"0x${value.toString(16)}"`))
  return from === undefined
    ? { body, latencyMs: 0, upstream: 'cache', attempts: 0, source: 'cache', isError: false }
    : { ...from, body }
}
