/**
 * In-flight dedup (docs/caching.md): identical concurrent reads of one write generation share one upstream call;
 * each client gets the answer with its own id (the id is spliced into the node's bytes, nothing is re-serialized).
 */
import type { RpcCall } from '../../jsonrpc/types.ts'
import type { CallOrigin, SendOptions } from '../../upstreams/pool/pool.ts'
import { answerSpans, withId, type AnswerSpans } from './cached-answer.ts'
import { methodOnly, type InFlight, type LayerAnswer, type LayerState } from './state.ts'

export type SharedSend = (
  key: string,
  raw: Buffer | string,
  call: RpcCall,
  origin: CallOrigin | undefined,
  opts?: SendOptions,
) => Promise<LayerAnswer>

/** The network's `shared` send: built once per network. */
export function createSharedSend(s: LayerState): SharedSend {
  const { o, stats, inflight } = s
  const { pool } = o

  const spansOf = (f: InFlight, body: Buffer): AnswerSpans | undefined =>
    (f.spans === undefined ? (f.spans = answerSpans(body) ?? null) : f.spans) ?? undefined

  /**
   * Sends, or joins an identical call in flight of the same write generation (whose upstream request is made for
   * the call that led it: its span, its deadline).
   */
  return (key, raw, call, origin, opts) => {
    const id = call.id
    // A notification gets no answer from the node (nothing to share), so it neither leads nor is registered.
    if (!call.hasId) return pool.send(raw, opts ?? methodOnly(call.method), undefined, undefined, origin)
    if (o.dedup) {
      const f = inflight.get(key)
      if (f !== undefined && f.generation === s.generation) {
        stats.deduplicated++
        return f.promise.then((a): LayerAnswer => {
          const spans = spansOf(f, a.body)
          return { ...a, body: spans === undefined ? a.body : withId(a.body, spans, id), attempts: 0, source: 'dedup' }
        })
      }
    }
    if (!o.dedup) return pool.send(raw, opts ?? methodOnly(call.method), undefined, id, origin)
    // The pool calls `done` as the answer comes (no promise reaction of its own), at once for a send that fails
    // before it starts: then the call is not registered at all.
    let f: InFlight | undefined
    let over = false
    const done = () => {
      over = true
      if (f !== undefined) inflight.delete(key, f)
    }
    const promise = pool.send(raw, opts ?? methodOnly(call.method), done, id, origin)
    f = { generation: s.generation, promise, spans: undefined }
    if (!over) inflight.set(key, f)
    return f.promise
  }
}
