/**
 * Fuzz suite, the body check itself (src/jsonrpc/body-check.ts): its fast paths and its scan agree with a plain
 * reference — nesting depth and unpaired surrogates measured on the parsed value — for random JSON written in
 * random ways (escaped or raw, spaced or compact, single calls and batches).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_CALL_DEPTH, checkText } from '../../src/jsonrpc/body-check.ts'
import { FUZZ } from './arbitraries.ts'

/** Depth of a parsed value (an object or array is one level more than its deepest member). */
function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0
  let max = 0
  for (const m of Object.values(v as object)) max = Math.max(max, depth(m))
  return max + 1
}

const wellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()

/** Whether any string (key or value) of a parsed value holds a lone surrogate. */
function loneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return !wellFormed(v)
  if (v === null || typeof v !== 'object') return false
  return Object.entries(v as object).some(([k, m]) => !wellFormed(k) || loneSurrogate(m))
}

/** JSON text with every non-ASCII character escaped as \uXXXX (so lone surrogates travel as escapes). */
const escapeAll = (text: string) =>
  text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)

const strings = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 6 }),
  fc.constantFrom('\ud800', 'a\udc00', '\ud83d\ude00', '"\\', '[{'),
)
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    strings,
    fc.integer(),
    fc.constant(null),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(strings, tie('v'), { maxKeys: 3 }),
  ),
})).v
const deepValue = fc.tuple(value, fc.integer({ min: 0, max: 90 })).map(([v, d]) => {
  let out: unknown = v
  for (let i = 0; i < d; i++) out = i % 2 ? [out] : { k: out }
  return out
})
const callOf = (params: unknown, id: unknown) => ({ jsonrpc: '2.0', id, method: 'm', params })
const id = fc.oneof(fc.integer(), fc.string({ unit: 'binary', maxLength: 4 }), fc.constant(null))

function expected(call: unknown) {
  const tooDeep = depth(call) > MAX_CALL_DEPTH
  const lone = loneSurrogate(call)
  return tooDeep || lone
}

describe('fuzz: body check', () => {
  it('agrees with the reference on depth and unpaired surrogates, for single calls and batches', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(deepValue, id), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        fc.constantFrom('json', 'escaped', 'raw'),
        fc.boolean(),
        fc.boolean(),
        (calls, batch, form, spaced, fromString) => {
          const values = calls.map(([p, i]) => callOf(p, i))
          const chosen = batch ? values : [values[0]!]
          let text = JSON.stringify(batch ? chosen : chosen[0], null, spaced ? 1 : undefined)
          if (form === 'escaped') text = escapeAll(text)
          // Raw lone surrogates (JSON.stringify escapes them) can only reach the check in text given as a string.
          if (form === 'raw')
            text = text.replace(/\\u(d[89a-f][0-9a-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
          const asString = form === 'raw' || fromString
          expect(JSON.parse(text)).toEqual(batch ? chosen : chosen[0])
          const problems = checkText(text, batch, asString, (chosen[0] as { id: unknown }).id)
          chosen.forEach((c, i) => expect(problems?.[i] !== undefined, text.slice(0, 300)).toBe(expected(c)))
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })
})
