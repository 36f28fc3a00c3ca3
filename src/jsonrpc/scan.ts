/**
 * The one JSON byte scanner: what the per-request path reads of a body or a node's answer without JSON.parse of
 * the whole (answers can be megabytes; docs/benchmarks.md). Primitives over a Buffer, each taking and returning a
 * byte index: skip whitespace, skip a string or any value, read a plain (printable ASCII, unescaped) string or
 * container, compare a key in place, and walk an object's top-level members (`MemberWalk`).
 *
 * The bytes are trusted to be JSON only as far as each primitive says: a malformed input gives -1 (or a walk's
 * `fault`), never an exception, and nothing is allocated except the walk itself.
 */

import { sizeClass } from '../shared/object-shapes.ts'

const QUOTE = 0x22
const BACKSLASH = 0x5c

export const isSpace = (c: number | undefined): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** The index of the first byte at or after `i` that is not JSON whitespace. */
export function skipSpace(b: Buffer, i: number): number {
  let c = b[i]
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = b[++i]
  return i
}

/** `i` at an opening quote: the index after the closing one (escapes skipped), or -1 when it does not end. */
export function afterString(b: Buffer, i: number): number {
  for (i++; i < b.length; i++) {
    const c = b[i]
    if (c === BACKSLASH) i++
    else if (c === QUOTE) return i + 1
  }
  return -1
}

/**
 * `i` at a value's first byte: the index after the value, or -1 when it does not end. Containers are matched by
 * bracket count (strings inside skipped); a number, `true`, `false` or `null` runs up to the next delimiter, so
 * a delimiter at `i` gives `i` itself (no value).
 */
export function afterValue(b: Buffer, i: number): number {
  const c = b[i]
  if (c === QUOTE) return afterString(b, i)
  if (c === 0x7b || c === 0x5b /* { [ */) {
    let depth = 0
    for (; i < b.length; i++) {
      const d = b[i]
      if (d === QUOTE) {
        i = afterString(b, i) - 1
        if (i < 0) return -1
      } else if (d === 0x7b || d === 0x5b) depth++
      else if ((d === 0x7d || d === 0x5d) && --depth === 0) return i + 1
    }
    return -1
  }
  while (i < b.length) {
    const d = b[i]
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) return i
    i++
  }
  return -1
}

/**
 * `i` at an opening quote of a plain string (printable ASCII, no escape): the index of its closing quote, or -1
 * when it is not plain or does not end. A plain string's bytes are its text (latin1 = UTF-8 = the parsed value).
 */
export function plainStringEnd(b: Buffer, i: number): number {
  for (i++; i < b.length; i++) {
    const c = b[i]!
    if (c === QUOTE) return i
    if (c < 0x20 || c > 0x7e || c === BACKSLASH) return -1
  }
  return -1
}

/**
 * `i` at `[` or `{`: the index after the matching bracket when everything inside is plain (strings as in
 * plainStringEnd, no byte outside printable ASCII but whitespace) and it opens at most `maxOpenings` brackets
 * (outside strings, its own included: a bound on its depth), or -1.
 */
export function plainContainerEnd(b: Buffer, i: number, maxOpenings: number): number {
  let depth = 0
  let openings = 0
  for (; i < b.length; i++) {
    const c = b[i]!
    if (c === QUOTE) {
      i = plainStringEnd(b, i)
      if (i < 0) return -1
    } else if (c === 0x5b || c === 0x7b) {
      depth++
      if (++openings > maxOpenings) return -1
    } else if (c === 0x5d || c === 0x7d) {
      if (--depth === 0) return i + 1
    } else if ((c < 0x20 && !isSpace(c)) || c > 0x7e || c === BACKSLASH) return -1
  }
  return -1
}

/** t r u e f a l s n: the letters of JSON's literals. */
const LITERAL = new Uint8Array(128)
for (const c of 'truefalsn') LITERAL[c.charCodeAt(0)] = 1

/**
 * Whether the plain container [start, end) (as plainContainerEnd found it, and valid JSON) is an array written the
 * way JSON.stringify writes its value back: only plain strings, `true`, `false` and `null` in arrays, with no
 * whitespace (no number, whose text may differ; no object, whose keys may repeat).
 */
export function isCanonicalArray(b: Buffer, start: number, end: number): boolean {
  if (b[start] !== 0x5b) return false
  for (let i = start; i < end; i++) {
    const c = b[i]!
    if (c === QUOTE) i = plainStringEnd(b, i)
    else if (c !== 0x5b && c !== 0x5d && c !== 0x2c && LITERAL[c] !== 1) return false
  }
  return true
}

/** Whether the bytes [start, end) are `name` (ASCII), compared in place. */
export function bytesAre(b: Buffer, start: number, end: number, name: string): boolean {
  if (end - start !== name.length) return false
  for (let k = 0; k < name.length; k++) if (b[start + k] !== name.charCodeAt(k)) return false
  return true
}

/** Why the bytes are not one JSON object: the walk's `fault`. */
export type WalkFault = 'an empty body' | 'not a JSON object' | 'cut short' | 'not JSON' | 'bytes after the answer'

/**
 * The top-level members of one JSON object in b[start, end), in order, each value skipped without a parse:
 *
 *   const w = new MemberWalk(b, 0, b.length)
 *   while (w.next()) if (w.keyIs('id')) { w.skipValue(); use(w.valueStart, w.valueEnd) }
 *
 * `next()` stops at each key with `keyStart`/`keyEnd` (between the quotes) and `valueStart` set; the value is
 * skipped by `skipValue()` or by the next `next()`, so a caller can stop at a key without walking its value.
 * When `next()` returns false the walk ended: `fault` is undefined at a clean end (the closing brace, then only
 * whitespace up to `end`), else why it stopped. Keys are not unescaped (compared as written).
 */
export class MemberWalk {
  keyStart = -1
  keyEnd = -1
  valueStart = -1
  /** -1 until the value is skipped. */
  valueEnd = -1
  fault: WalkFault | undefined = undefined
  private readonly b: Buffer
  private readonly end: number
  /** Where the next member (or the closing brace) is looked for; -1 once the walk ended. */
  private at = -1

  constructor(b: Buffer, start: number, end: number) {
    this.b = b
    this.end = end
    let i = skipSpace(b, start)
    if (i >= end || b[i] !== 0x7b) this.fault = i >= end ? 'an empty body' : 'not a JSON object'
    else {
      i = skipSpace(b, i + 1)
      if (b[i] === 0x7d) this.close(i + 1)
      else this.at = i
    }
  }

  /** Moves to the next member's key: false when the walk ended (then see `fault`). */
  next(): boolean {
    const b = this.b
    if (this.valueStart >= 0) {
      if (this.valueEnd < 0 && this.skipValue() < 0) return false
      const i = skipSpace(b, this.valueEnd)
      this.valueStart = -1
      if (b[i] === 0x7d) return this.close(i + 1)
      if (b[i] !== 0x2c) return this.stop(i >= this.end ? 'cut short' : 'not JSON')
      this.at = skipSpace(b, i + 1)
    }
    let i = this.at
    if (i < 0) return false
    if (b[i] !== QUOTE) return this.stop(i >= this.end ? 'cut short' : 'not JSON')
    this.keyStart = i + 1
    i = afterString(b, i)
    if (i < 0 || i > this.end) return this.stop('cut short')
    this.keyEnd = i - 1
    i = skipSpace(b, i)
    if (b[i] !== 0x3a /* : */) return this.stop(i >= this.end ? 'cut short' : 'not JSON')
    this.valueStart = skipSpace(b, i + 1)
    this.valueEnd = -1
    return true
  }

  /** Skips the current member's value: its end (also in `valueEnd`), or -1 when it is cut short (the walk ends). */
  skipValue(): number {
    if (this.valueEnd >= 0) return this.valueEnd
    const v = this.valueStart
    const i = afterValue(this.b, v)
    if (i < 0 || i > this.end || i === v) {
      this.stop('cut short')
      return -1
    }
    this.valueEnd = i
    return i
  }

  /** Whether the current key is `name` as written (ASCII). */
  keyIs(name: string): boolean {
    return bytesAre(this.b, this.keyStart, this.keyEnd, name)
  }

  private close(after: number): false {
    this.at = -1
    this.valueStart = -1
    if (skipSpace(this.b, after) < this.end) this.fault = 'bytes after the answer'
    return false
  }

  private stop(fault: WalkFault): false {
    this.fault = fault
    this.at = -1
    this.valueStart = -1
    return false
  }
}

// Sized by complete objects before the first call parses anything (src/shared/object-shapes.ts): several per call.
sizeClass(() => new MemberWalk(Buffer.from('{"a":1}'), 0, 7))
