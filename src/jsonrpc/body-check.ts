/**
 * What JSON.parse accepts but nodes refuse, found in one pass over a request's text: nesting deeper than
 * MAX_CALL_DEPTH, strings with an unpaired UTF-16 surrogate (`"\ud800"`), and a call's `id` that is a number
 * with a fraction or exponent (`1.0`, `1e3`) or given twice. A node answers such a call with `id: null` (anvil:
 * -32600 "Invalid request"), so the gateway refuses it itself, as the client's input error, with the client's id.
 *
 * On the per-request path: the text has already been parsed (so it is valid JSON and every string ends), the scan
 * allocates nothing unless it finds a problem, and it never calls JSON.parse again.
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

/**
 * Problems per call: index 0 for a single call, the batch index for a batch; undefined (the usual case) when
 * there are none. `batch` says whether the text's top level is an array.
 */
export function checkText(s: string, batch: boolean): (TextProblem | undefined)[] | undefined {
  const callDepth = batch ? 2 : 1
  const maxDepth = MAX_CALL_DEPTH + callDepth - 1
  const n = s.length
  let problems: (TextProblem | undefined)[] | undefined
  let depth = 0
  let entry = 0
  let callIsObject = false
  let expectKey = false
  let idNext = false
  let idSeen = false
  let deepReported = -1

  const report = (why: string, idUsable: boolean) => {
    problems ??= []
    const was = problems[entry]
    if (was === undefined) problems[entry] = { why, idUsable }
    else if (!idUsable && was.idUsable) problems[entry] = { why, idUsable }
  }

  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c === QUOTE) {
      const start = i
      // A bad character in the id's own string leaves no id to answer with.
      const inId = idNext && depth === callDepth
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
          report(SURROGATE, !inId)
        } else if (d >= 0xd800 && d <= 0xdfff) {
          // Only in text given as a string (WebSocket): the same rule for raw code units.
          const low = s.charCodeAt(i + 1)
          if (d <= 0xdbff && low >= 0xdc00 && low <= 0xdfff) i++
          else report(SURROGATE, !inId)
        }
      }
      if (expectKey && depth === callDepth) {
        expectKey = false
        // The key `"id"` as written (an escaped spelling of it is rare enough to be left to the parsed check).
        if (i - start === 3 && s.charCodeAt(start + 1) === 0x69 && s.charCodeAt(start + 2) === 0x64) {
          if (idSeen) report('"id" is given twice', false)
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
          report(`nested deeper than ${MAX_CALL_DEPTH} levels`, true)
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
            // A number id: digits only (an optional minus, not "-0"); the parsed value's range is checked after.
            const first = j
            let integer = true
            for (; j < n; j++) {
              d = s.charCodeAt(j)
              if (d === 0x2e || d === 0x65 || d === 0x45) integer = false
              else if (!(d === 0x2d || d === 0x2b || (d >= 0x30 && d <= 0x39))) break
            }
            if (!integer || (j - first === 2 && s.charCodeAt(first) === 0x2d && s.charCodeAt(first + 1) === 0x30))
              report('"id" must be a string, an integer of at most 2^53-1 (no fraction or exponent), or null', false)
            i = j - 1
            idNext = false
          }
        }
        break
    }
  }
  return problems
}

/** The value of 4 hex digits at `i`, or -1. */
function hex4(s: string, i: number): number {
  let v = 0
  for (let k = 0; k < 4; k++) {
    const c = s.charCodeAt(i + k)
    const h = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1
    if (h < 0) return -1
    v = v * 16 + h
  }
  return v
}
