/**
 * Consistent heads (docs/caching.md): the heads the pool announces key unfinalized entries (and a reorg drops them);
 * eth_blockNumber is served for one head and never goes backwards for a key (HeadFloorStore).
 */
import type { MaybePromise } from '../../shared/types.ts'
import type { RpcCall, RpcId } from '../../jsonrpc/types.ts'
import { answerSpans, resultAnswer } from './cached-answer.ts'
import type { SharedSend } from './dedup.ts'
import type { CallOrigin } from '../../upstreams/pool/pool.ts'
import type { CacheRule } from './cache-rules.ts'
import { atTip, paramsKey, type LayerAnswer, type LayerState } from './state.ts'

/** Hashes of recent blocks kept to key unfinalized entries (at least the unfinalized window of common chains). */
const RECENT_HASHES = 256

/**
 * Follows the network's heads (recent hashes, a reorg drops unfinalized entries; a replaced chain, `rebased`, runs
 * `replaced`: nothing kept of the old chain is served, the keys' floors included); returns the unsubscribe, if any.
 */
export function watchHeads(s: LayerState, replaced: () => void) {
  const { o, recent, unfinalized } = s
  const { store } = o
  const forgetUnfinalized = () => {
    for (const k of unfinalized) store.delete(k)
    unfinalized.clear()
    s.headEntry = undefined
  }
  return o.heads?.onHead?.((h) => {
    s.lastHeadAt = performance.now()
    if (h.rebased) replaced()
    else if (h.reorg) forgetUnfinalized()
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
    return shared(`${prefix}eth_blockNumber`, raw, call, origin, atTip(o, 'eth_blockNumber')).then((a) => {
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

/** A call layer for the calls of one kind of cache rule. */
type RuleSend<K extends CacheRule['kind']> = (
  rule: CacheRule & { kind: K },
  call: RpcCall,
  raw: Buffer | string,
  keyId: string,
  origin: CallOrigin | undefined,
) => MaybePromise<LayerAnswer>

/**
 * Solana's getSlot and getBlockHeight on a network of several nodes: never below what this key was told before at
 * the same commitment (nodes a few slots apart would otherwise send it back in time). One node: its own answer.
 */
export function createSlotNumber(s: LayerState, shared: SharedSend): RuleSend<'slot'> {
  const { o, prefix } = s
  const { network, floors } = o
  return (rule, call, raw, keyId, origin) => {
    const sent = shared(paramsKey(prefix, call), raw, call, origin)
    if (!o.multiUpstream) return sent
    return Promise.resolve(sent).then((a) => {
      const spans = answerSpans(a.body)
      if (spans === undefined || spans.resultStart < 0) return a
      const answered = Number(a.body.toString('latin1', spans.resultStart, spans.resultEnd))
      if (!Number.isSafeInteger(answered) || answered < 0) return a
      const config = Array.isArray(call.params) ? call.params[rule.config] : undefined
      const served = floors.raise(keyId, slotFloorName(network, call.method, config), answered)
      return served === answered ? a : { ...a, body: resultAnswer(call.id, Buffer.from(String(served))) }
    })
  }
}

/**
 * One floor per kind of number and commitment (a processed slot is ahead of a finalized one by design): getSlot's
 * floor is also the one of the slots reads answer in their context. `/` never appears in a network name, and NUL
 * separates the Redis floor messages.
 */
function slotFloorName(network: string, method: string, config: unknown): string {
  const c = (config as { commitment?: unknown } | null | undefined)?.commitment
  const commitment = typeof c === 'string' ? c : 'finalized'
  return `${network}/${method === 'getBlockHeight' ? method : 'getSlot'}/${commitment}`
}

/**
 * Solana reads answered with a context slot, on a network of several nodes: sent with `minContextSlot` at the key's
 * slot floor (the node's own check: one behind answers -32016, which the pool takes as a reason to ask the next), and
 * the floor raised to the answer's context slot. The body is rewritten only when the floor is above what the call
 * asked for. One node: sent as it came.
 */
export function createContextSlot(s: LayerState, shared: SharedSend): RuleSend<'context'> {
  const { o, prefix } = s
  const { network, floors } = o
  return (rule, call, raw, keyId, origin) => {
    const at = atTip(o, call.method)
    if (!o.multiUpstream || !Array.isArray(call.params) || call.params.length < rule.config)
      return shared(paramsKey(prefix, call), raw, call, origin, at)
    const config = call.params[rule.config] as Record<string, unknown> | null | undefined
    const name = slotFloorName(network, call.method, config)
    const floor = floors.get(keyId, name)
    const asked = config?.minContextSlot
    let sent = call
    let body = raw
    if (floor > 0 && !(typeof asked === 'number' && asked >= floor)) {
      const params = call.params.slice()
      params[rule.config] = { ...config, minContextSlot: floor }
      sent = { ...call, params, paramsText: undefined }
      body = JSON.stringify({ jsonrpc: '2.0', id: call.id, method: call.method, params })
    }
    const key = paramsKey(prefix, sent)
    const started = performance.now()
    const attempt = (): Promise<LayerAnswer> =>
      Promise.resolve(shared(key, body, sent, origin, at)).then((a) => {
        if (a.isError) {
          // Every node is still behind the key's slot (the one ahead was lost): it will get there within a few slots.
          const behind = a.body.includes(MIN_CONTEXT_SLOT_NOT_REACHED)
          if (behind && performance.now() - started < CONTEXT_WAIT_MS) return sleep(CONTEXT_POLL_MS).then(attempt)
          return a
        }
        const slot = contextSlotOf(a.body)
        if (slot !== undefined) floors.raise(keyId, name, slot)
        return a
      })
    return attempt()
  }
}

/** Solana's -32016 (https://solana.com/docs/rpc): the node's context slot is below `minContextSlot`. */
const MIN_CONTEXT_SLOT_NOT_REACHED = '"code":-32016'
/** How long a read waits for a node to reach the key's slot when every node is behind it, and how often it asks. */
const CONTEXT_WAIT_MS = 2_000
const CONTEXT_POLL_MS = 100
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** `result.context.slot` of an answer, read without parsing the (possibly large) value. */
export function contextSlotOf(body: Buffer): number | undefined {
  const context = body.indexOf('"context":')
  if (context < 0) return undefined
  const key = body.indexOf('"slot":', context)
  if (key < 0 || key - context > 200) return undefined
  let i = key + 7
  while (body[i] === 0x20) i++
  let n = 0
  const start = i
  for (; body[i]! >= 0x30 && body[i]! <= 0x39; i++) n = n * 10 + body[i]! - 0x30
  return i > start && Number.isSafeInteger(n) ? n : undefined
}

/** An eth_blockNumber answer with the number the gateway serves (from the cache, or lifted to the tip or floor). */
const numberAnswer = (id: RpcId, value: number, from: LayerAnswer | undefined): LayerAnswer => {
  const body = resultAnswer(id, Buffer.from(`"0x${value.toString(16)}"`))
  return from === undefined
    ? { body, latencyMs: 0, upstream: 'cache', attempts: 0, source: 'cache', isError: false }
    : { ...from, body }
}
