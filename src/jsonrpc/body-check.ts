/**
 * What JSON.parse accepts but nodes refuse, found in one pass over a request's text: nesting deeper than
 * MAX_CALL_DEPTH, strings with an unpaired UTF-16 surrogate (`"\ud800"`), and a call's `id` that is a number
 * with a fraction or exponent (`1.0`, `1e3`) or given twice. A node answers such a call with `id: null` (anvil:
 * -32600 "Invalid request"), so the gateway refuses it itself, as the client's input error, with the client's id.
 *
 * On the per-request path: the text has already been parsed (so it is valid JSON and every string ends), nothing
 * is allocated unless a problem is found, and JSON.parse is never called again. A single call first gets a few
 * native substring searches that prove most bodies clean (no `\u` escape, few brackets, one `"id"` key written
 * as an integer); only the others, and batches, are scanned character by character.
 */

/**
 * Deepest nesting of objects and arrays in one call, the call object itself being level 1. Node limits are
 * higher (anvil refuses 128 levels of a whole body; the gateway adds one level when it batches calls for the
 * node), and no Ethereum method's params come near it.
 */
export const MAX_CALL_DEPTH = 64

export interface TextProblem {
  why: string
  /** False when the call's own id is what is wrong: the answer then carries `id: null`. */
  idUsable: boolean
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const LOWER_U = 0x75
const SURROGATE = 'a string holds an unpaired UTF-16 surrogate (\\ud800-\\udfff)'
const BAD_ID = '"id" must be a string, an integer of at most 2^53-1 (no fraction or exponent), or null'

/**
 * Problems per call: index 0 for a single call, the batch index for a batch; undefined (the usual case) when
 * there are none. `batch` says whether the text's top level is an array; `fromString` whether the text came as a
 * string (WebSocket) rather than UTF-8 bytes checked with isUtf8 (which can hold no surrogate); `id` is a single
 * call's parsed id.
 */
export function checkText(
  s: string,
  batch: boolean,
  fromString: boolean,
  id: unknown,
): (TextProblem | undefined)[] | undefined {
  if (!batch && provenClean(s, fromString, id)) return undefined
  // Without escapes and raw surrogates, strings need no look inside: skipped with a native search.
  const plain = s.indexOf('\\u') === -1 && (!fromString || (s as unknown as WellFormed).isWellFormed())
  return scan(s, batch, plain)
}

/** String.prototype.isWellFormed (ES2024, Node 20+): false when the string holds a lone surrogate. */
type WellFormed = { isWellFormed(): boolean }

/** Cheap proof that a single call's text has none of the problems; false means "scan it". */
function provenClean(s: string, fromString: boolean, id: unknown): boolean {
  if (s.indexOf('\\u') !== -1 || (fromString && !(s as unknown as WellFormed).isWellFormed())) return false
  // Nesting depth is at most the number of opening brackets.
  if (!fewerOpenings(s, '[', '{', MAX_CALL_DEPTH)) return false
  // Without escapes, the call's id key can only be written `"id"`: one occurrence is that key.
  const at = s.indexOf('"id"')
  if (at === -1) return true
  if (s.indexOf('"id"', at + 4) !== -1) return false
  if (typeof id !== 'number') return true
  let j = at + 4
  let c = s.charCodeAt(j)
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x3a) c = s.charCodeAt(++j)
  // The id as written: digits, maybe a minus; a fraction or exponent sends it to the scan.
  if (c === 0x2d) c = s.charCodeAt(++j)
  while (c >= 0x30 && c <= 0x39) c = s.charCodeAt(++j)
  return c !== 0x2e && c !== 0x65 && c !== 0x45
}

/** Whether `s` holds at most `limit` of the two characters together (counted with native searches). */
function fewerOpenings(s: string, a: string, b: string, limit: number): boolean {
  let count = 0
  for (let k = s.indexOf(a); k !== -1; k = s.indexOf(a, k + 1)) if (++count > limit) return false
  for (let k = s.indexOf(b); k !== -1; k = s.indexOf(b, k + 1)) if (++count > limit) return false
  return true
}

function scan(s: string, batch: boolean, plain: boolean): Problems {
  const callDepth = batch ? 2 : 1
  const maxDepth = MAX_CALL_DEPTH + callDepth - 1
  const n = s.length
  let problems: Problems
  let depth = 0
  let entry = 0
  let callIsObject = false
  let expectKey = false
  let idNext = false
  let idSeen = false
  let deepReported = -1

  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c === QUOTE) {
      const start = i
      // A bad character in the id's own string leaves no id to answer with.
      const inId = idNext && depth === callDepth
      if (plain) {
        i = s.indexOf('"', i + 1)
        while (i > 0 && escapedQuote(s, i)) i = s.indexOf('"', i + 1)
        if (i < 0) return problems // not reached for text JSON.parse accepted
      } else
        for (i++; i < n; i++) {
          const d = s.charCodeAt(i)
          if (d === QUOTE) break
          if (d === BACKSLASH) {
            if (s.charCodeAt(++i) !== LOWER_U) continue
            const u = hex4(s, i + 1)
            i += 4
            if (u < 0xd800 || u > 0xdfff) continue
            // A high surrogate must be followed at once by an escaped low one.
            if (u <= 0xdbff && s.charCodeAt(i + 1) === BACKSLASH && s.charCodeAt(i + 2) === LOWER_U) {
              const low = hex4(s, i + 3)
              if (low >= 0xdc00 && low <= 0xdfff) {
                i += 6
                continue
              }
            }
            problems = report(problems, entry, SURROGATE, !inId)
          } else if (d >= 0xd800 && d <= 0xdfff) {
            // Only in text given as a string (WebSocket): the same rule for raw code units.
            const low = s.charCodeAt(i + 1)
            if (d <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) i++
            else problems = report(problems, entry, SURROGATE, !inId)
          }
        }
      if (expectKey && depth === callDepth) {
        expectKey = false
        // The key `"id"` as written (an escaped spelling of it is rare enough to be left to the parsed check).
        if (i - start === 3 && s.charCodeAt(start + 1) === 0x69 && s.charCodeAt(start + 2) === 0x64) {
          if (idSeen) problems = report(problems, entry, '"id" is given twice', false)
          idSeen = true
          idNext = true
        }
      } else if (idNext && depth === callDepth) idNext = false // the id was a string
      continue
    }
    switch (c) {
      case 0x7b: // {
      case 0x5b: // [
        depth++
        if (depth > maxDepth && deepReported !== entry) {
          deepReported = entry
          problems = report(problems, entry, `nested deeper than ${MAX_CALL_DEPTH} levels`, true)
        }
        if (depth === callDepth) {
          callIsObject = c === 0x7b
          expectKey = callIsObject
          idSeen = false
          idNext = false
        }
        break
      case 0x7d: // }
      case 0x5d: // ]
        depth--
        break
      case 0x2c: // ,
        if (depth === callDepth) {
          expectKey = callIsObject
          idNext = false
        } else if (batch && depth === 1) entry++
        break
      case 0x3a: // :
        if (idNext && depth === callDepth) {
          let j = i + 1
          let d = s.charCodeAt(j)
          while (d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) d = s.charCodeAt(++j)
          if (d === 0x2d || (d >= 0x30 && d <= 0x39)) {
            // A number id: digits only, maybe a minus (nodes take -0 as 0); the parsed value's range is checked apart.
            let integer = true
            for (; j < n; j++) {
              d = s.charCodeAt(j)
              if (d === 0x2e || d === 0x65 || d === 0x45) integer = false
              else if (!(d === 0x2d || d === 0x2b || (d >= 0x30 && d <= 0x39))) break
            }
            if (!integer) problems = report(problems, entry, BAD_ID, false)
            i = j - 1
            idNext = false
          }
        }
        break
    }
  }
  return problems
}

type Problems = (TextProblem | undefined)[] | undefined

/** Whether the quote at `q` is escaped (an odd number of backslashes before it). */
function escapedQuote(s: string, q: number): boolean {
  let k = q - 1
  while (s.charCodeAt(k) === BACKSLASH) k--
  return (q - 1 - k) % 2 === 1
}

/** Notes a problem of call `entry` (kept apart from the scan loop, which then captures nothing). */
function report(problems: Problems, entry: number, why: string, idUsable: boolean): (TextProblem | undefined)[] {
  const out = problems ?? []
  const was = out[entry]
  if (was === undefined || (!idUsable && was.idUsable)) out[entry] = { why, idUsable }
  return out
}

/** The value of 4 hex digits at `i`, or -1. */
function hex4(s: string, i: number): number {
  let v = 0
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k)
    const h =
      c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1
    if (h < 0) return -1
    v = v * 16 + h
  }
  return v
}
