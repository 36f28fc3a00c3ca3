/**
 * A node's single-call answer, cut where a client's own id goes: the gateway serves one answer to several clients
 * (cache hits, deduplicated calls) without parsing or re-serializing the result, only splicing the id.
 */
import { Buffer } from 'node:buffer' // not the global: a getter in Node 20
import { MemberWalk, skipSpace } from '../../jsonrpc/scan.ts'
import type { RpcId } from '../../jsonrpc/types.ts'

export interface AnswerSpans {
  /** The top-level `id` value's bytes [idStart, idEnd); -1 when there is none. */
  idStart: number
  idEnd: number
  /** The top-level `result` value's bytes; -1 when the answer is not a result (an error, or not an object). */
  resultStart: number
  resultEnd: number
}

/** Walks the top-level members once (strings and nested values skipped); undefined for anything but an object. */
export function answerSpans(b: Buffer): AnswerSpans | undefined {
  const s: AnswerSpans = { idStart: -1, idEnd: -1, resultStart: -1, resultEnd: -1 }
  const walk = new MemberWalk(b, 0, b.length)
  while (walk.next()) {
    const id = walk.keyIs('id')
    if (!id && !walk.keyIs('result')) continue
    if (walk.skipValue() < 0) return undefined
    if (id) {
      s.idStart = walk.valueStart
      s.idEnd = walk.valueEnd
    } else {
      s.resultStart = walk.valueStart
      s.resultEnd = walk.valueEnd
    }
  }
  return walk.fault === undefined ? s : undefined
}

/** `answer` with its id replaced by `id` (the same bytes when it has no top-level id). */
export function withId(answer: Buffer, spans: AnswerSpans, id: RpcId): Buffer {
  if (spans.idStart < 0) return answer
  const idText = Buffer.from(JSON.stringify(id))
  return Buffer.concat([answer.subarray(0, spans.idStart), idText, answer.subarray(spans.idEnd)])
}

const PREFIX = Buffer.from('{"jsonrpc":"2.0","id":')
const MIDDLE = Buffer.from(',"result":')
const SUFFIX = Buffer.from('}')

/** Results up to this size are copied byte by byte: cheaper than a native copy call for a few bytes. */
const SMALL = 256

/** `from` into `to` at `at`, byte by byte; the index after it. */
const copyIn = (to: Buffer, at: number, from: Buffer): number => {
  const n = from.length
  for (let i = 0; i < n; i++) to[at + i] = from[i]!
  return at + n
}

/**
 * A result answer built from stored result bytes: the only allocation is the answer itself, and a non-negative
 * integer id (the usual one) is written digit by digit, without a string (a cache hit is on every request's path).
 */
export function resultAnswer(id: RpcId, result: Buffer): Buffer {
  let digits = 0
  if (typeof id === 'number' && Number.isSafeInteger(id) && id >= 0)
    for (let x = id, d = 1; ; x = Math.floor(x / 10), d++)
      if (x < 10) {
        digits = d
        break
      }
  const idText = digits > 0 ? undefined : JSON.stringify(id)
  const idBytes = idText === undefined ? digits : Buffer.byteLength(idText)
  const n = result.length
  const out = Buffer.allocUnsafe(PREFIX.length + idBytes + MIDDLE.length + n + SUFFIX.length)
  let at = copyIn(out, 0, PREFIX)
  if (idText !== undefined) at += out.write(idText, at)
  else {
    at += digits
    let i = at
    for (let x = id as number; i > at - digits; x = Math.floor(x / 10)) out[--i] = 0x30 + (x % 10)
  }
  at = copyIn(out, at, MIDDLE)
  at = n <= SMALL ? copyIn(out, at, result) : at + result.copy(out, at)
  out[at] = 0x7d // }
  return out
}

/** null, [] or {} — what a node answers for data it does not have (yet). */
export function isEmptyResult(b: Buffer, start: number, end: number): boolean {
  const c = b[start]
  if (c === 0x6e /* n */) return true
  if (c !== 0x5b && c !== 0x7b) return false
  return skipSpace(b, start + 1) === end - 1
}
