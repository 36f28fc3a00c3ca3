/**
 * The common request body, one plain call — `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}` — read
 * in one pass over its bytes, without JSON.parse of the whole body, the call object's validation and the text
 * checks (envelope.ts parseBody; this is on every request's path: docs/benchmarks.md).
 *
 * Only what is certainly the same as parseBody's answer is read here; anything else returns undefined and goes
 * the general way. Taken: printable ASCII only (no escapes, no byte above 0x7e, no control character in a string),
 * one object whose members are `jsonrpc` ("2.0"), `method` (a non-empty string), `id` (a string, null, or an
 * integer of at most 15 digits written without fraction or exponent) and `params` (an array or object, parsed
 * with JSON.parse on its own bytes, opening at most MAX_CALL_DEPTH - 1 brackets), each at most once. Such a body
 * has none of the problems body-check.ts looks for, and is valid UTF-8.
 *
 * Per call, bytes are read once where it can be: params written as a flat array of plain strings and literals
 * (`["0x…","latest"]`, the common case) are taken from their text without JSON.parse, and a method name seen before
 * is the same string again without a decode (a scan costs ~20 instructions per byte: docs/benchmarks.md).
 */
import { MAX_CALL_DEPTH } from './body-check.ts'
import type { ParsedBody, RpcCall } from './types.ts'
import * as scan from './scan.ts'

const QUOTE = 0x22
// Bound once here: calling the imported bindings directly measured 2.3-2.9 µs per parse in a loop instead of
// 1.5-2.0 (local copies); bound like this, 2.8-3.4 against 2.5-3.6 in the same runs (docs/benchmarks.md).
const { bytesAre, isCanonicalArray, plainContainerEnd, plainStringEnd, skipSpace } = scan

/** Method names decoded before, in slots by a hash of their bytes (at most this many, each this long at most). */
const METHOD_SLOTS = 256
const MAX_KEPT_METHOD = 64
const methods: (string | undefined)[] = new Array<string | undefined>(METHOD_SLOTS).fill(undefined)

/**
 * The method name in b[start, end) (plain): a name decoded before is the same string again (no decode, and a quick
 * key in every Map it meets after, being the same object).
 */
function methodName(b: Buffer, start: number, end: number): string {
  const n = end - start
  if (n > MAX_KEPT_METHOD) return b.toString('latin1', start, end)
  const slot = (n * 31 + b[start + (n >> 1)]! * 7 + b[end - 1]!) & (METHOD_SLOTS - 1)
  const kept = methods[slot]
  if (kept !== undefined && bytesAre(b, start, end, kept)) return kept
  const name = b.toString('latin1', start, end)
  methods[slot] = name
  return name
}

/** Most elements flatArrayEnd reads; a longer array goes the JSON.parse way. */
const MAX_FLAT = 8
/** flatArrayEnd's elements: [start, end) of a string's text, or start -1 and end 0 null, 1 true, 2 false. */
const spans = new Int32Array(2 * MAX_FLAT)
let flatCount = 0

/** The literal (null, true, false) at `i` followed by `,` or `]`: its code in `spans`, or -1. */
function literalAt(b: Buffer, i: number): number {
  const c = b[i]
  let n: number
  if (c === 0x6e && b[i + 1] === 0x75 && b[i + 2] === 0x6c && b[i + 3] === 0x6c) n = 0
  else if (c === 0x74 && b[i + 1] === 0x72 && b[i + 2] === 0x75 && b[i + 3] === 0x65) n = 1
  else if (c === 0x66 && b[i + 1] === 0x61 && b[i + 2] === 0x6c && b[i + 3] === 0x73 && b[i + 4] === 0x65) n = 2
  else return -1
  const after = b[i + (n === 2 ? 5 : 4)]
  return after === 0x2c || after === 0x5d ? n : -1
}

/**
 * `i` at `[`: when the array is flat, one to MAX_FLAT plain strings (as plainStringEnd) and null/true/false with no
 * whitespace, the index after its `]` (its elements in `spans`, `flatCount` of them); else -1. Such an array is
 * JSON written as JSON.stringify writes its value (isCanonicalArray), and its value is read from its text.
 */
function flatArrayEnd(b: Buffer, i: number): number {
  let k = 0
  for (i++; k < MAX_FLAT; k++) {
    const c = b[i]
    if (c === QUOTE) {
      const end = plainStringEnd(b, i)
      if (end < 0) return -1
      spans[2 * k] = i + 1
      spans[2 * k + 1] = end
      i = end + 1
    } else {
      const n = literalAt(b, i)
      if (n < 0) return -1
      spans[2 * k] = -1
      spans[2 * k + 1] = n
      i += n === 2 ? 5 : 4
    }
    if (b[i] === 0x5d) {
      flatCount = k + 1
      return i + 1
    }
    if (b[i] !== 0x2c) return -1
    i++
  }
  return -1
}

/** The value of the flat array `text` (flatArrayEnd's, from byte `at`). */
function flatValue(text: string, at: number): unknown[] {
  const values: unknown[] = []
  for (let k = 0; k < flatCount; k++) {
    const start = spans[2 * k]!
    const end = spans[2 * k + 1]!
    values.push(start >= 0 ? text.slice(start - at, end - at) : end === 0 ? null : end === 1)
  }
  return values
}

/** parseBody's answer for a plain single call, or undefined: then parseBody must read it. */
export function parseSingleCall(b: Buffer): ParsedBody | undefined {
  let i = skipSpace(b, 0)
  if (b[i] !== 0x7b) return undefined
  let jsonrpc = false
  let hasId = false
  let id: RpcCall['id'] = null
  let method: string | undefined
  let params: RpcCall['params']
  let paramsText: string | undefined
  let hasParams = false
  i = skipSpace(b, i + 1)
  for (;;) {
    if (b[i] !== QUOTE) return undefined
    const keyEnd = plainStringEnd(b, i)
    if (keyEnd < 0) return undefined
    const keyStart = i + 1
    i = skipSpace(b, keyEnd + 1)
    if (b[i] !== 0x3a /* : */) return undefined
    i = skipSpace(b, i + 1)
    const c = b[i]
    if (bytesAre(b, keyStart, keyEnd, 'jsonrpc')) {
      if (jsonrpc || c !== QUOTE || b[i + 1] !== 0x32 || b[i + 2] !== 0x2e || b[i + 3] !== 0x30 || b[i + 4] !== QUOTE)
        return undefined
      jsonrpc = true
      i += 5
    } else if (bytesAre(b, keyStart, keyEnd, 'method')) {
      if (method !== undefined || c !== QUOTE) return undefined
      const end = plainStringEnd(b, i)
      if (end <= i + 1) return undefined
      method = methodName(b, i + 1, end)
      i = end + 1
    } else if (bytesAre(b, keyStart, keyEnd, 'id')) {
      if (hasId) return undefined
      hasId = true
      if (c === QUOTE) {
        const end = plainStringEnd(b, i)
        if (end < 0) return undefined
        id = b.toString('latin1', i + 1, end)
        i = end + 1
      } else if (c === 0x6e /* n */) {
        if (b[i + 1] !== 0x75 || b[i + 2] !== 0x6c || b[i + 3] !== 0x6c) return undefined
        id = null
        i += 4
      } else {
        const negative = b[i] === 0x2d /* - */
        if (negative) i++
        const first = i
        let n = 0
        for (let d = b[i]!; d >= 0x30 && d <= 0x39; d = b[++i]!) n = n * 10 + (d - 0x30)
        // JSON integers: no leading zero, and short enough to be exact.
        if (i === first || i - first > 15 || (b[first] === 0x30 && i - first > 1)) return undefined
        id = negative ? -n : n
      }
    } else if (bytesAre(b, keyStart, keyEnd, 'params')) {
      if (hasParams || (c !== 0x5b && c !== 0x7b)) return undefined
      hasParams = true
      const flat = c === 0x5b && b[i + 1] !== 0x5d ? flatArrayEnd(b, i) : -1
      if (flat > 0) {
        paramsText = b.toString('latin1', i, flat)
        params = flatValue(paramsText, i)
        i = flat
      } else {
        // The call's own object is one level: params nest at most MAX_CALL_DEPTH - 1 more (body-check.ts's bound).
        const end = plainContainerEnd(b, i, MAX_CALL_DEPTH - 1)
        if (end < 0) return undefined
        const close = skipSpace(b, i + 1)
        if (c === 0x5b && close === end - 1) params = []
        else
          try {
            const text = b.toString('latin1', i, end)
            params = JSON.parse(text) as RpcCall['params']
            if (isCanonicalArray(b, i, end)) paramsText = text
          } catch {
            return undefined
          }
        i = end
      }
    } else return undefined
    i = skipSpace(b, i)
    if (b[i] === 0x7d /* } */) break
    if (b[i] !== 0x2c /* , */) return undefined
    i = skipSpace(b, i + 1)
  }
  if (!jsonrpc || method === undefined || skipSpace(b, i + 1) !== b.length) return undefined
  return { kind: 'single', entry: { ok: true, call: { id, hasId, method, params, paramsText } } }
}
