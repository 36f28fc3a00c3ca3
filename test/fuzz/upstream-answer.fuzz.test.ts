/**
 * Fuzz suite, the upstream-answer checks (src/upstreams/pool/classify.ts, src/upstreams/pool/retry-policy.ts): for
 * random
 * bytes, random JSON and random batch shapes, `judgeAnswer` never throws and always gives a defined verdict; on
 * JSON it agrees with a plain reference that parses everything (docs/upstreams.md, "What a node's answer must
 * be"); every strict prefix of a good answer (a body cut short) is a fault. The refusal and retry readers never
 * throw either. Under an HTTP error status (4xx/5xx), an answer is relayed only when it is a JSON-RPC answer to the
 * call whose errors (one at least) are all the client's (src/upstreams/pool/error-status.ts). Seeded and bounded
 * (FUZZ_SEED / FUZZ_RUNS to explore).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { judgeAnswer, refusalOfAnswer, retryAfterMs, type AnswerVerdict } from '../../src/upstreams/pool/classify.ts'
import { notClientsOwn } from '../../src/upstreams/pool/error-status.ts'
import { isAlreadySent, weakAnswer } from '../../src/upstreams/pool/retry-policy.ts'
import { FUZZ } from './arbitraries.ts'

type Json = unknown
const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v)
const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b)

/** The reference: parse it all, then the rules as docs/upstreams.md states them. */
function oneAnswer(a: Json, id: Json): 'result' | 'error' | 'fault' {
  if (!isObject(a)) return 'fault'
  const error = a.error === null ? undefined : a.error
  const hasResult = 'result' in a
  if (hasResult && error !== undefined && a.result !== null) return 'fault'
  if (!hasResult && error === undefined) return 'fault'
  if (!('id' in a)) return 'fault'
  if (!same(a.id, id) && !(error !== undefined && a.id === null)) return 'fault'
  if (error === undefined) return 'result'
  return isObject(error) && Number.isInteger(error.code) && typeof error.message === 'string' ? 'error' : 'fault'
}

function reference(request: Json, answer: string): 'result' | 'error' | 'fault' {
  const calls = Array.isArray(request) ? request : [request]
  const ids = calls.filter((c) => isObject(c) && 'id' in c).map((c) => (c as { id: Json }).id)
  if (ids.length === 0) return 'result'
  let a: Json
  try {
    a = JSON.parse(answer)
  } catch {
    return 'fault'
  }
  if (!Array.isArray(request)) return oneAnswer(a, ids[0])
  if (!Array.isArray(a)) return 'fault'
  const left = new Set(ids.map((i) => JSON.stringify(i)))
  for (const e of a) {
    if (!isObject(e) || !('id' in e)) return 'fault'
    if (oneAnswer(e, e.id) === 'fault' || !left.delete(JSON.stringify(e.id))) return 'fault'
  }
  return left.size === 0 ? 'result' : 'fault'
}

const kind = (v: AnswerVerdict) => (typeof v === 'object' ? 'fault' : v)

const ids = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.constant(null))
const call = fc
  .record({ id: ids, method: fc.constantFrom('eth_getBalance', 'eth_call'), note: fc.boolean() })
  .map(({ id, method, note }) =>
    note ? { jsonrpc: '2.0', method, params: [] } : { jsonrpc: '2.0', id, method, params: [] },
  )
const errorObject = fc.oneof(
  fc.record({ code: fc.integer({ min: -33000, max: 5000 }), message: fc.string({ maxLength: 12 }) }),
  fc.record({ code: fc.integer(), message: fc.string(), data: fc.jsonValue({ maxDepth: 2 }) }),
  fc.constantFrom<Json>(
    {},
    { code: -32000 },
    { message: 'x' },
    { code: 1.5, message: 'x' },
    { code: '1', message: 'x' },
    'boom',
    7,
    null,
    [],
  ),
)
/** An answer object for a call with `id`: mostly right, often wrong in one way. */
const answerFor = (id: Json) =>
  fc
    .record(
      {
        jsonrpc: fc.constant('2.0'),
        id: fc.oneof(
          { weight: 6, arbitrary: fc.constant(id) },
          { weight: 1, arbitrary: fc.constant(null) },
          { weight: 1, arbitrary: ids },
          { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) },
        ),
        result: fc.jsonValue({ maxDepth: 3 }),
        error: errorObject,
        extra: fc.jsonValue({ maxDepth: 1 }),
      },
      { requiredKeys: [] },
    )
    .chain((a) =>
      fc
        .shuffledSubarray(Object.keys(a), { minLength: Object.keys(a).length })
        .map((order) => Object.fromEntries(order.map((k) => [k, (a as Record<string, Json>)[k]]))),
    )
const spacing = fc.constantFrom<number | undefined>(undefined, 1, 2)

describe('fuzz: upstream answers', () => {
  it('single calls: the verdict agrees with the reference for random JSON answers, written compact or spaced', () => {
    fc.assert(
      fc.property(
        call.chain((c) =>
          fc.tuple(
            fc.constant(c),
            fc.oneof(
              { weight: 4, arbitrary: answerFor((c as { id?: Json }).id ?? null) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
            ),
            spacing,
          ),
        ),
        ([c, a, space]) => {
          const text = JSON.stringify(a, null, space)
          const v = judgeAnswer(JSON.stringify(c), Buffer.from(text))
          expect(kind(v), text).toBe(reference(c, text))
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
  })

  it('batches: entries missing, extra, twice, reordered or not an array — the verdict agrees with the reference', () => {
    const batch = fc.array(call, { minLength: 1, maxLength: 5 })
    fc.assert(
      fc.property(
        batch.chain((calls) => {
          const withId = calls.filter((c) => 'id' in c) as { id: Json }[]
          const entries = fc.tuple(
            ...withId.map((c) => fc.tuple(answerFor(c.id), fc.constantFrom(0, 1, 1, 1, 1, 2))),
            fc.array(answerFor(null), { maxLength: 1 }),
          )
          return fc.tuple(fc.constant(calls), entries, fc.boolean(), fc.nat({ max: 5 }), spacing)
        }),
        ([calls, [...parts], asObject, rotate, space]) => {
          const extra = parts.pop() as Json[]
          const list = (parts as [Json, number][])
            .flatMap(([a, times]) => Array.from({ length: times }, () => a))
            .concat(extra)
          const shuffled = list.map((_, i) => list[(i + rotate) % list.length])
          const text = JSON.stringify(asObject ? (shuffled[0] ?? {}) : shuffled, null, space)
          const v = judgeAnswer(JSON.stringify(calls), Buffer.from(text))
          expect(kind(v), text).toBe(reference(calls, text))
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })

  it('every strict prefix of a good answer (a body cut short) is a fault, single or batch', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.jsonValue({ maxDepth: 3 }),
        fc.boolean(),
        spacing,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (id, result, batch, space, at) => {
          const req = batch ? [{ jsonrpc: '2.0', id, method: 'm' }] : { jsonrpc: '2.0', id, method: 'm' }
          const one = { jsonrpc: '2.0', id, result }
          const text = JSON.stringify(batch ? [one] : one, null, space)
          const cut = text.slice(0, Math.floor(at * text.length)).trimEnd()
          if (cut.length === text.length) return
          expect(kind(judgeAnswer(JSON.stringify(req), Buffer.from(cut))), cut).toBe('fault')
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
  })

  it('random bytes (and random text from JSON pieces): never throws, always a defined verdict; the other readers never throw', () => {
    const pieces = fc
      .array(
        fc.constantFrom(
          '{',
          '}',
          '[',
          ']',
          '"',
          '\\',
          ':',
          ',',
          '"id"',
          '"result"',
          '"error"',
          'null',
          '1',
          ' ',
          '"code"',
          '"message"',
          'x',
        ),
        { maxLength: 40 },
      )
      .map((p) => p.join(''))
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 200 }).map((u) => Buffer.from(u)),
      pieces.map((s) => Buffer.from(s)),
    )
    const request = fc.oneof(
      bytes,
      fc
        .constantFrom(
          '{"jsonrpc":"2.0","id":1,"method":"m"}',
          '[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","method":"n"}]',
        )
        .map((s) => Buffer.from(s)),
    )
    fc.assert(
      fc.property(request, bytes, fc.string({ maxLength: 40 }), (req, answer, header) => {
        const v = judgeAnswer(req, answer)
        expect(
          v === 'result' ||
            v === 'error' ||
            (typeof v === 'object' && typeof v.fault === 'string' && v.fault.length > 0),
        ).toBe(true)
        expect(() => refusalOfAnswer(answer)).not.toThrow()
        expect(() => weakAnswer('eth_getBlockByNumber', answer)).not.toThrow()
        expect(() => isAlreadySent(answer, true)).not.toThrow()
        const own = notClientsOwn(answer)
        expect(own === undefined || (typeof own === 'string' && own.length > 0)).toBe(true)
        const ms = retryAfterMs(header, Date.now())
        expect(ms === undefined || (Number.isFinite(ms) && ms >= 0)).toBe(true)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(5000) },
    )
  })

  it('long answers (the checked-at-both-ends path) agree with the reference when whole', () => {
    fc.assert(
      fc.property(
        fc.array(fc.jsonValue({ maxDepth: 2 }), { minLength: 1, maxLength: 20 }),
        fc.integer(),
        fc.boolean(),
        (items, id, wrongId) => {
          const result = Array.from({ length: 4000 }, (_, i) => items[i % items.length])
          const text = JSON.stringify({ jsonrpc: '2.0', id: wrongId ? id + 1 : id, result })
          if (text.length <= 64 * 1024) return
          const req = JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_getLogs' })
          expect(kind(judgeAnswer(req, Buffer.from(text)))).toBe(reference(JSON.parse(req), text))
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(30) },
    )
  })

  it("under an HTTP error status: relayed exactly when a JSON-RPC answer to the call holds errors, all of them the client's", () => {
    /** Errors whose kind is known: the client's own (relayed) or the node's (a node failure). */
    const OWN: [number, string][] = [
      [3, 'execution reverted'],
      [-32000, 'execution reverted: no'],
      [-32602, 'invalid params'],
      [-32600, 'invalid request'],
      [-32601, 'method not found'],
      [-32000, 'nonce too low'],
      [-32000, 'insufficient funds for transfer'],
      [-32005, 'query returned more than 10000 results'],
      [-32000, 'already known'],
    ]
    const NODE: [number, string][] = [
      [-32603, 'internal error'],
      [-32000, 'header not found'],
      [-32000, 'missing trie node abc'],
      [-32700, 'Parse error'],
      [-32000, 'timeout'],
      [-32000, 'unknown block'],
      [-32603, 'upstream connect error'],
    ]
    const entry = fc.oneof(
      fc.constantFrom(...OWN).map(([code, message]) => ({ own: true, error: { code, message } as Json })),
      fc.constantFrom(...NODE).map(([code, message]) => ({ own: false, error: { code, message } as Json })),
      fc.jsonValue({ maxDepth: 2 }).map((result) => ({ own: undefined, result })),
    )
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 0, max: 99 }), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.array(entry, { minLength: 4, maxLength: 4 }),
        fc.boolean(),
        spacing,
        (callIds, batch, kinds, wrongId, space) => {
          const used = batch ? callIds : callIds.slice(0, 1)
          const calls = used.map((id) => ({ jsonrpc: '2.0', id, method: 'eth_call', params: [] }))
          const answers = used.map((id, i) => {
            const { own: _own, ...member } = kinds[i]!
            return { jsonrpc: '2.0', id: wrongId && i === 0 ? id + 100 : id, ...member }
          })
          const request = JSON.stringify(batch ? calls : calls[0])
          const text = JSON.stringify(batch ? answers.reverse() : answers[0], null, space)
          const v = judgeAnswer(request, Buffer.from(text))
          const relayed = typeof v !== 'object' && notClientsOwn(Buffer.from(text)) === undefined
          const errors = kinds.slice(0, used.length).filter((k) => k.own !== undefined)
          expect(relayed, text).toBe(!wrongId && errors.length > 0 && errors.every((k) => k.own === true))
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })
})
