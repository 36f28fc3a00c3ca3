/**
 * The pipeline's general path: a batch, or a single call that is not a plain valid one (run-single.ts runs that
 * common case). Every call is priced and the whole is reserved up front; calls answered locally, from the cache or
 * by a filter's own node are set apart; the rest go to the node as one batch; then each call is settled.
 */
import { NO_UPSTREAM } from '../../usage/upstream-usage.ts'
import type { ChaingateError } from '../../errors/index.ts'
import { errorCodeOf, isErrorAnswer, serializeError, serializeResult, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { ParsedEntry, RpcCall } from '../../jsonrpc/types.ts'
import type { UpstreamAnswer } from '../../upstreams/pool/pool.ts'
import type { ServedBy } from '../../usage/requests/recorder.ts'
import { forwardAlone, sentAlone } from './filter-calls.ts'
import type { RunSingleDeps } from './run-single.ts'
import { attemptsOf, forwardLocal, forwardMany, nodeDown } from './steps/forward.ts'
import { decision, overBudget, priceOf } from './steps/price.ts'
import { outcome, type CallContext, type Outcome } from './types.ts'

const FROM_CACHE: ServedBy = { upstream: 'cache', source: 'cache' }

/** Who answered each call of a batch, for the request explorer (undefined: the gateway itself, or no node). */
function servedBy(
  n: number,
  sent: {
    forwardAt: readonly number[]
    batchAnswer: UpstreamAnswer | undefined
    aloneAt: readonly number[]
    alone: readonly (UpstreamAnswer | undefined)[]
    cachedAt: readonly number[]
  },
): (ServedBy | undefined)[] {
  const { forwardAt, batchAnswer, aloneAt, alone, cachedAt } = sent
  const via: (ServedBy | undefined)[] = new Array(n).fill(undefined)
  if (batchAnswer !== undefined) for (const i of forwardAt) via[i] = batchAnswer
  for (const i of aloneAt) via[i] = alone[i]
  for (const i of cachedAt) via[i] = FROM_CACHE
  return via
}

/** The same parts as the single path's. */
export type RunEntriesDeps = RunSingleDeps

export function createRunEntries(
  deps: RunEntriesDeps,
): (ctx: CallContext, entries: ParsedEntry[], batch: boolean) => Promise<Outcome> {
  const { costs, metrics, clock, settle, admit, limited, delivered, requests } = deps

  return async (ctx: CallContext, entries: ParsedEntry[], batch: boolean): Promise<Outcome> => {
    const { entry, network } = ctx
    const now = clock.now()
    const method = batch ? 'batch' : entries[0]!.ok ? entries[0]!.call.method : '(invalid)'
    // Price every call up front and reserve it all.
    const decisions = entries.map((e) => (e.ok ? decision(ctx, e.call) : undefined))
    let reserved = batch ? costs.batchEnvelope : 0
    const prices = entries.map((e, i) => {
      const d = decisions[i]
      const price = !e.ok || d!.kind === 'error' ? costs.inputError : priceOf(costs, ctx, e.call, d!)
      reserved += price
      return price
    })
    const admitted = overBudget(ctx, reserved, entries) ?? admit.request(ctx, reserved, now)
    const code = admitted === null || typeof admitted === 'string' ? admitted : await admitted
    if (code !== null) return limited(ctx, { code, entries, batch, method, now })

    const answers: (string | undefined)[] = new Array(entries.length).fill(undefined)
    const failures: (ChaingateError | undefined)[] = new Array(entries.length).fill(undefined)
    const forwardAt: number[] = []
    /** Calls answered from the cache (charged like the others). */
    const cachedAt: number[] = []
    /** Filter calls, each sent on its own to its filter's node (filter-calls.ts). */
    const aloneAt: number[] = []
    const alone: (UpstreamAnswer | undefined)[] = []
    const layers = deps.layers?.get(network.name)
    const pending: Promise<void>[] = []
    entries.forEach((e, i) => {
      if (!e.ok) answers[i] = serializeError(e.id, toErrorObject(e.error))
      else if (decisions[i]!.kind === 'forward') {
        if (ctx.local?.has(e.call.method)) pending.push(forwardLocal(ctx, e.call, i, answers, failures))
        else if (sentAlone(ctx, e.call)) aloneAt.push(i)
        else {
          // Finalized and by-hash answers the cache holds need not go with the batch (docs/caching.md).
          const hit = layers?.batchHit(e.call)
          if (hit === undefined) forwardAt.push(i)
          else {
            answers[i] = e.call.hasId ? hit.toString() : undefined
            cachedAt.push(i)
          }
        }
      } else {
        const d = decisions[i]!
        answers[i] = !e.call.hasId
          ? undefined
          : d.kind === 'result'
            ? serializeResult(e.call.id, d.result)
            : serializeError(e.call.id, toErrorObject((d as { error: ChaingateError }).error))
      }
    })
    if (aloneAt.length > 0)
      pending.push(
        forwardAlone(ctx, metrics, {
          calls: aloneAt.map((i) => (entries[i] as { call: RpcCall }).call),
          at: aloneAt,
          answers,
          failures,
          served: alone,
        }),
      )
    let batchAnswer: UpstreamAnswer | undefined
    if (forwardAt.length > 0)
      pending.push(
        forwardMany(
          ctx,
          metrics,
          { calls: forwardAt.map((i) => (entries[i] as { call: RpcCall }).call), at: forwardAt, answers, failures },
          deps.layers,
        ).then((a) => {
          batchAnswer = a
        }),
      )
    await Promise.all(pending)

    const present = answers.filter((a): a is string => a !== undefined)
    const body = present.length === 0 ? undefined : batch ? `[${present.join(',')}]` : present[0]!
    const ok = delivered(ctx, body)
    let total = batch && ok ? costs.batchEnvelope : 0
    const t = clock.now()
    const via = requests && servedBy(entries.length, { forwardAt, batchAnswer, aloneAt, alone, cachedAt })
    entries.forEach((e, i) => {
      const failure = failures[i]
      const credits = ok && failure === undefined ? prices[i]! : 0
      total += credits
      const answer = answers[i]
      const failed = !e.ok || failure !== undefined || (answer !== undefined && isErrorAnswer(answer))
      const errorKind = !ok
        ? `${ctx.transport}:undelivered`
        : !failed
          ? undefined
          : failure !== undefined
            ? `http:${failure.httpStatus}`
            : `rpc:${answer === undefined ? 'unknown' : (errorCodeOf(answer) ?? 'unknown')}`
      const result = !ok
        ? 'undelivered'
        : !failed
          ? 'ok'
          : failure !== undefined && nodeDown(failure)
            ? 'unavailable'
            : 'error'
      settle.call({
        entry,
        network: network.name,
        method: e.ok ? e.call.method : '(invalid)',
        credits,
        outcome: result,
        errorKind,
        now: t,
      })
      if (requests !== undefined)
        requests.push(ctx, e.ok ? e.call.method : '(invalid)', errorKind, credits, via![i], now)
    })
    // Sent as one body: each call in it cost the batch's upstream requests (providers bill per call).
    for (const i of forwardAt) {
      const m = (entries[i] as { call: RpcCall }).call.method
      if (batchAnswer !== undefined)
        settle.upstream({
          network: network.name,
          method: m,
          upstream: batchAnswer.upstream,
          attempts: batchAnswer.attempts,
          source: batchAnswer.source,
          credits: ok && failures[i] === undefined ? prices[i]! : 0,
          failed: false,
          now: t,
        })
      else
        settle.upstream({
          network: network.name,
          method: m,
          upstream: NO_UPSTREAM,
          attempts: attemptsOf(failures[i]),
          source: undefined,
          credits: 0,
          failed: true,
          now: t,
        })
    }
    for (const i of aloneAt) {
      const a = alone[i]
      const m = (entries[i] as { call: RpcCall }).call.method
      settle.upstream({
        network: network.name,
        method: m,
        upstream: a?.upstream ?? NO_UPSTREAM,
        attempts: a?.attempts ?? attemptsOf(failures[i]),
        source: undefined,
        credits: ok && failures[i] === undefined ? prices[i]! : 0,
        failed: a === undefined,
        now: t,
      })
    }
    for (const i of cachedAt) {
      metrics.served(network.name, 'cache')
      settle.upstream({
        network: network.name,
        method: (entries[i] as { call: RpcCall }).call.method,
        upstream: 'cache',
        attempts: 0,
        source: 'cache',
        credits: ok ? prices[i]! : 0,
        failed: false,
        now: t,
      })
    }
    if (batch && ok && costs.batchEnvelope > 0) settle.envelope(entry, network.name, costs.batchEnvelope, t)
    settle.finish(entry, network.name, reserved, total, t)
    // A single call's status: 400 for an invalid envelope, 503/504 when the node was not reached.
    const first = entries[0]!
    const single = batch ? undefined : !first.ok ? first.error.code : failures[0]?.code
    return outcome({
      code: single,
      body,
      ids: undefined,
      batch,
      detail: undefined,
      credits: total,
      keyId: entry.id,
      method,
      calls: entries.length,
    })
  }
}
