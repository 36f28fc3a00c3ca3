/**
 * Step 4, forward: the node (or a local method in its place) answers. A single call is sent as the client's own
 * bytes and its answer comes back as the node's bytes, untouched (no parse, no re-serialization: the hot path,
 * docs/benchmarks.md). Several calls go as one batch with the gateway's own ids (clients may repeat ids) and are
 * mapped back.
 */
import type { MaybePromise } from '../../../shared/types.ts'
import { ChaingateError, errors } from '../../../errors/index.ts'
import { serializeError, serializeResult, toErrorObject } from '../../../jsonrpc/envelope.ts'
import type { RpcCall } from '../../../jsonrpc/types.ts'
import { RANGE_SCAN_METHOD } from '../../../methods/catalog.ts'
import type { Metrics } from '../../../observability/metrics.ts'
import type { UpstreamAnswer } from '../../../upstreams/pool/pool.ts'
import type { CallLayers } from '../../layers/layers.ts'
import type { CallContext } from '../types.ts'
import { MAX_DEV_CALLS, inDevSlot, isDevMethod, releaseDevSlots, takeDevSlots } from '../dev-calls.ts'

/** Why a call the node should have answered got no answer: free (5xx). */
export const unavailable = (err: unknown, network: string): ChaingateError =>
  err instanceof ChaingateError ? err : new ChaingateError('UPSTREAM_UNAVAILABLE', `network ${network} is unavailable`)

/**
 * Whether a call went unanswered because of the node (counted as `unavailable`), not the request (a too-large body).
 */
export const nodeDown = (e: ChaingateError) => e.code.startsWith('UPSTREAM_')

/** Upstream requests a failed call made, when the pool says (src/upstreams/pool/pool.ts); else unknown: 0. */
export const attemptsOf = (err: unknown): number => {
  const n = (err as { attempts?: unknown } | null)?.attempts
  return typeof n === 'number' ? n : 0
}

/**
 * One call: the node's answer (an UpstreamAnswer, whose `body` the caller passes on as is; `source` set when the
 * cache or an identical call in flight answered: src/gateway/layers/layers.ts) or a local method's answer text.
 * Not an async function, so the caller awaits the pool's (or the layers') own promise, and an answer the
 * in-process cache holds comes back as it is, without a promise. Rejects when nobody answered; the caller turns
 * that into `unavailable`.
 */
export function forwardOne(
  ctx: CallContext,
  call: RpcCall,
  raw: Buffer | string,
  layers?: ReadonlyMap<string, CallLayers>,
): MaybePromise<UpstreamAnswer | string | undefined> {
  const local = ctx.local?.get(call.method)
  if (local !== undefined) return local(call)
  // A key's devnet calls run a few at a time (src/gateway/pipeline/dev-calls.ts).
  if (isDevMethod(call.method)) return inDevSlot(ctx.entry.id, () => sendOne(ctx, call, raw, layers))
  return sendOne(ctx, call, raw, layers)
}

function sendOne(
  ctx: CallContext,
  call: RpcCall,
  raw: Buffer | string,
  layers?: ReadonlyMap<string, CallLayers>,
): MaybePromise<UpstreamAnswer | undefined> {
  const l = layers?.get(ctx.network.name)
  // Traced: the pool's attempts become children of this call's span (ctx goes with the send as its CallOrigin).
  ctx.span?.event('forward')
  return l === undefined
    ? ctx.pool.send(raw, { method: call.method, owner: ctx.entry.id }, undefined, undefined, ctx)
    : l.send(call, raw, ctx.entry.id, ctx)
}

/** Calls of a batch sent together, their indexes in the batch (`at`), and the slots filled at those indexes. */
export interface BatchPart {
  calls: readonly RpcCall[]
  at: readonly number[]
  answers: (string | undefined)[]
  failures: (ChaingateError | undefined)[]
}

/**
 * Several calls to the node as one batch: fills `answers` (undefined for notifications) and `failures` (the
 * error when the node was not reached) at the given indexes; returns the node's answer (for upstream usage).
 */
export async function forwardMany(
  ctx: CallContext,
  metrics: Metrics,
  part: BatchPart,
  layers?: ReadonlyMap<string, CallLayers>,
): Promise<UpstreamAnswer | undefined> {
  const { calls, at, answers, failures } = part
  // A key's devnet calls run a few at a time: the batch's all get slots, or they are answered TOO_MANY_DEV_CALLS.
  const dev = calls.reduce((n, c) => (isDevMethod(c.method) ? n + 1 : n), 0)
  if (dev > 0 && !takeDevSlots(ctx.entry.id, dev)) {
    const refused = errors.tooManyDevCalls(MAX_DEV_CALLS)
    const keep: number[] = []
    calls.forEach((c, j) => {
      if (!isDevMethod(c.method)) return void keep.push(j)
      failures[at[j]!] = refused
      answers[at[j]!] = c.hasId ? serializeError(c.id, toErrorObject(refused)) : undefined
    })
    if (keep.length === 0) return undefined
    const rest = { calls: keep.map((j) => calls[j]!), at: keep.map((j) => at[j]!), answers, failures }
    return forwardMany(ctx, metrics, rest, layers)
  }
  try {
    return await withLayers(ctx, metrics, part, layers)
  } finally {
    if (dev > 0) releaseDevSlots(ctx.entry.id, dev)
  }
}

/** The call layers' part of a batch (eth_getLogs caps, cache invalidation), then the node. */
function withLayers(
  ctx: CallContext,
  metrics: Metrics,
  part: BatchPart,
  layers?: ReadonlyMap<string, CallLayers>,
): Promise<UpstreamAnswer | undefined> {
  const { calls, at, answers, failures } = part
  const network = ctx.network.name
  const l = layers?.get(network)
  if (l !== undefined) {
    // Not cached or shared (a batch goes as one body), but a write in it invalidates what the cache knows.
    l.sawCalls(calls.map((c) => c.method))
    // eth_getLogs range caps hold in a batch too (it is not split): a refused call is left out of the body.
    if (calls.some((c) => c.method === RANGE_SCAN_METHOD)) {
      const keep: number[] = []
      calls.forEach((c, j) => {
        const refused = c.method === RANGE_SCAN_METHOD ? l.batchLogsRefusal(c) : undefined
        if (refused === undefined) return void keep.push(j)
        failures[at[j]!] = refused
        answers[at[j]!] = c.hasId ? serializeError(c.id, toErrorObject(refused)) : undefined
      })
      if (keep.length === 0) return Promise.resolve(undefined)
      if (keep.length < calls.length)
        return sendMany(ctx, metrics, { ...part, calls: keep.map((j) => calls[j]!), at: keep.map((j) => at[j]!) }, l)
    }
  }
  return sendMany(ctx, metrics, part, l)
}

async function sendMany(
  ctx: CallContext,
  metrics: Metrics,
  { calls, at, answers, failures }: BatchPart,
  l: CallLayers | undefined,
): Promise<UpstreamAnswer | undefined> {
  const network = ctx.network.name
  // Built outside the try: a throw here is a bug, not a node failure.
  const body = `[${calls
    .map((c, j) => JSON.stringify({ jsonrpc: '2.0', id: j, method: c.method, params: c.params ?? [] }))
    .join(',')}]`
  const started = performance.now()
  try {
    ctx.span?.event('forward', { calls: calls.length })
    const answer = await ctx.pool.send(body, undefined, undefined, undefined, ctx)
    metrics.upstreamLatency(network, answer.latencyMs / 1000)
    // no content: only notifications were sent
    const parsed = (answer.body.length === 0 ? [] : JSON.parse(answer.body.toString())) as unknown
    const byId = new Map<number, Record<string, unknown>>()
    if (Array.isArray(parsed))
      for (const a of parsed) if (a && typeof a === 'object' && typeof a.id === 'number') byId.set(a.id, a)
    at.forEach((i, j) => {
      const call = calls[j]!
      const a = byId.get(j)
      if (!call.hasId) return
      if (!a)
        answers[i] = serializeError(call.id, {
          code: -32603,
          message: `network ${network}: the node gave no answer for this call`,
        })
      else if ('error' in a) answers[i] = serializeError(call.id, a.error as never)
      else {
        const over = call.method === RANGE_SCAN_METHOD ? l?.batchLogsOverCap(call, a.result) : undefined
        if (over === undefined) answers[i] = serializeResult(call.id, a.result)
        else {
          failures[i] = over
          answers[i] = serializeError(call.id, toErrorObject(over))
        }
      }
    })
    return answer
  } catch (err) {
    const e = unavailable(err, network)
    at.forEach((i, j) => {
      failures[i] = e
      answers[i] = calls[j]!.hasId ? serializeError(calls[j]!.id, toErrorObject(e)) : undefined
    })
    metrics.upstreamLatency(network, (performance.now() - started) / 1000)
    return undefined
  }
}

/** Local methods of a batch, each on its own (they may wait on a node subscription). */
export async function forwardLocal(
  ctx: CallContext,
  call: RpcCall,
  i: number,
  answers: (string | undefined)[],
  failures: (ChaingateError | undefined)[],
): Promise<void> {
  try {
    answers[i] = await ctx.local!.get(call.method)!(call)
  } catch (err) {
    failures[i] = unavailable(err, ctx.network.name)
    answers[i] = call.hasId ? serializeError(call.id, toErrorObject(failures[i]!)) : undefined
  }
}
