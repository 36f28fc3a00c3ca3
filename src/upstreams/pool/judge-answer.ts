/**
 * Whether a node's answer is a JSON-RPC answer to the request at all (`judgeAnswer`): one walk over its top-level
 * members (src/jsonrpc/scan.ts), never a parse of the result. A node that answers with something else (a proxy's
 * HTML page, a body cut short, another call's id) is failing, not answering (docs/upstreams.md).
 */
import type { RpcId } from '../../jsonrpc/types.ts'
import { afterValue, isSpace, MemberWalk, skipSpace } from '../../jsonrpc/scan.ts'

/** A JSON-RPC answer to the request: a result, or an error object (`code`, `message`); else why it is not one. */
export type AnswerVerdict = 'result' | 'error' | { fault: string }

/** Answers larger than this whose result comes last (after `id`) are checked at both ends, not byte by byte. */
const WALK_ALL_BYTES = 64 * 1024

/** Where a JSON object's top-level id is written: its bytes [idStart, idEnd); -1 when there is none. */
interface IdSpan {
  idStart: number
  idEnd: number
}

interface Members extends IdSpan {
  /** A result member; `null` as its value. */
  result: boolean
  nullResult: boolean
  /** An error member other than `null`: its value's bytes; -1 when there is none. */
  errStart: number
  errEnd: number
  /** Why the bytes are not one JSON object (unbalanced, cut short, trailing bytes). */
  broken: string | undefined
}

const isNull = (b: Buffer, v: number, end: number) => end - v === 4 && b[v] === 0x6e

/** Walks one JSON object's top-level members in b[start, end); a long trailing `result` is checked at its ends only. */
function members(b: Buffer, start: number, end: number, shortcut: boolean): Members {
  const o: Members = {
    idStart: -1,
    idEnd: -1,
    result: false,
    nullResult: false,
    errStart: -1,
    errEnd: -1,
    broken: undefined,
  }
  const walk = new MemberWalk(b, start, end)
  while (walk.next()) {
    const v = walk.valueStart
    const result = walk.keyIs('result')
    if (result && shortcut && o.idStart >= 0 && endsWithCloserOf(b, v, end)) return ((o.result = true), o)
    const i = walk.skipValue()
    if (i < 0) break
    if (result) {
      o.result = true
      o.nullResult = isNull(b, v, i)
    } else if (walk.keyIs('id')) {
      o.idStart = v
      o.idEnd = i
    } else if (walk.keyIs('error') && !isNull(b, v, i)) {
      o.errStart = v
      o.errEnd = i
    }
  }
  o.broken = walk.fault
  return o
}

/** The object ends right after a value opened at `v` ({…}, […] or "…"): `}` last, the value's closer before it. */
function endsWithCloserOf(b: Buffer, v: number, end: number): boolean {
  let j = end - 1
  while (j > v && isSpace(b[j])) j--
  if (b[j] !== 0x7d) return false
  j--
  while (j > v && isSpace(b[j])) j--
  const open = b[v]
  return (
    j > v &&
    ((open === 0x7b && b[j] === 0x7d) ||
      (open === 0x5b && b[j] === 0x5d) ||
      (open === 0x22 && b[j] === 0x22 && b[j - 1] !== 0x5c))
  )
}

/** The same id, written the same or not ("\u0061" and "a"): bytes first, a parse only when they differ. */
function sameId(a: Buffer, { idStart: aStart, idEnd: aEnd }: IdSpan, b: Buffer, { idStart, idEnd }: IdSpan): boolean {
  if (aEnd - aStart === idEnd - idStart && a.compare(b, idStart, idEnd, aStart, aEnd) === 0) return true
  return canonicalId(a.toString('utf8', aStart, aEnd)) === canonicalId(b.toString('utf8', idStart, idEnd))
}

function canonicalId(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}

/** Why an error member is not an object with an integer `code` and a string `message` (JSON-RPC 2.0, section 5.1). */
function errorFault(b: Buffer, from: number, to: number): string | undefined {
  let e: unknown
  try {
    e = JSON.parse(b.toString('utf8', from, to))
  } catch {
    return 'an error that is not JSON'
  }
  if (e === null || typeof e !== 'object' || Array.isArray(e)) return 'an error that is not an object'
  const { code, message } = e as { code?: unknown; message?: unknown }
  if (!Number.isInteger(code)) return 'an error without an integer code'
  if (typeof message !== 'string') return 'an error without a message'
  return undefined
}

/**
 * One answer object's verdict, against the id it must carry (`req`'s bytes at `call`'s id; none given: the caller
 * found the answer's id to be the call's, judgeAnswer's `id`). Tolerated: `"error": null` beside a result, and
 * `"result": null` beside an error (some servers write both members).
 */
function verdictOf(b: Buffer, o: Members, req?: Buffer, call?: IdSpan): AnswerVerdict {
  if (o.broken !== undefined) return { fault: o.broken }
  const error = o.errStart >= 0
  if (o.result && error && !o.nullResult) return { fault: 'both a result and an error' }
  if (!o.result && !error) return { fault: 'neither a result nor an error' }
  if (o.idStart < 0) return { fault: 'no id' }
  // An error with a null id is a node that could not read the call's id (JSON-RPC 2.0, section 5): its answer to it.
  if (req !== undefined && call !== undefined && !sameId(b, o, req, call) && !(error && isNull(b, o.idStart, o.idEnd)))
    return {
      fault:
        `id ${b.toString('utf8', o.idStart, Math.min(o.idEnd, o.idStart + 40))} ` +
        `for a call with id ${req.toString('utf8', call.idStart, Math.min(call.idEnd, call.idStart + 40))}`,
    }
  if (!error) return 'result'
  const f = errorFault(b, o.errStart, o.errEnd)
  return f === undefined ? 'error' : { fault: f }
}

/**
 * Whether `answer` is a JSON-RPC answer to `request` (a single call or a batch, as sent): one JSON object with the
 * call's id (or `null` on an error: the node could not read the call) and either a result or an error object with
 * an integer code and a string message; for a batch, an array with one such answer per call that has an id, in any
 * order, none missing, unknown or twice. A notification (no id) expects nothing: any answer, an empty one
 * included, is fine. Never throws; a single call's answer costs one walk of both bodies' top-level members.
 *
 * `id`, when given: `request` is a single call with this id, as parsing the request gave it (the pool's one-node
 * path knows it). An answer whose id is written as that value is then judged without walking the request again
 * (a walk costs ~20 instructions per byte, the whole request: docs/benchmarks.md); any other answer the walk's way.
 */
export function judgeAnswer(request: string | Buffer, answer: Buffer, id?: RpcId): AnswerVerdict {
  if (id === undefined) return judgeWalking(request, answer, undefined)
  const o = answerMembers(answer)
  if (o.broken === undefined && o.idStart >= 0 && idWrittenAs(answer, o.idStart, o.idEnd, id))
    return verdictOf(answer, o)
  return judgeWalking(request, answer, o)
}

const answerMembers = (answer: Buffer) => members(answer, 0, answer.length, answer.length > WALK_ALL_BYTES)

/** judgeAnswer by a walk of the request's members; `o`: the answer's, when already walked. */
function judgeWalking(request: string | Buffer, answer: Buffer, o: Members | undefined): AnswerVerdict {
  const req = typeof request === 'string' ? Buffer.from(request) : request
  const r = skipSpace(req, 0)
  if (req[r] === 0x5b) return judgeBatch(req, r, answer)
  const call = members(req, r, req.length, false)
  if (call.idStart < 0) return 'result'
  return verdictOf(answer, o ?? answerMembers(answer), req, call)
}

/** The start of a node's usual answer, then its id first (`"id":`…`,"result":`) or its result first (Agave's). */
const PLAIN_HEAD = Buffer.from('{"jsonrpc":"2.0",')
const ID_KEY = Buffer.from('"id":')
const PLAIN_RESULT = Buffer.from(',"result":')
const RESULT_KEY = Buffer.from('"result":')
const PLAIN_ID = Buffer.from(',"id":')

/**
 * Whether `answer` is `{"jsonrpc":"2.0","id":<id>,"result":<value>}` or `{"jsonrpc":"2.0","result":<value>,"id":<id>}`
 * written without whitespace (as nodes answer: EVM clients write the id first, Solana's Agave the result), its id
 * written as idWrittenAs takes `id` and its value well formed as far as the walk checks one: then it is a result for
 * the call (judgeAnswer says 'result', isErrorAnswer false), known from one pass over its bytes. False tells
 * nothing: judgeAnswer decides. Answers over WALK_ALL_BYTES are left to it (it checks their ends only).
 */
export function isPlainResult(b: Buffer, id: RpcId): boolean {
  const end = b.length
  if (end > WALK_ALL_BYTES) return false
  if (!bytesAt(b, 0, PLAIN_HEAD)) return false
  const key = PLAIN_HEAD.length
  let close: number
  if (bytesAt(b, key, ID_KEY)) {
    const idStart = key + ID_KEY.length
    const idEnd = afterValue(b, idStart)
    if (idEnd < 0 || !idWrittenAs(b, idStart, idEnd, id) || !bytesAt(b, idEnd, PLAIN_RESULT)) return false
    const v = idEnd + PLAIN_RESULT.length
    const after = afterValue(b, v)
    if (after <= v) return false
    close = skipSpace(b, after)
  } else if (bytesAt(b, key, RESULT_KEY)) {
    const v = key + RESULT_KEY.length
    const after = afterValue(b, v)
    if (after <= v || !bytesAt(b, after, PLAIN_ID)) return false
    const idStart = after + PLAIN_ID.length
    const idEnd = afterValue(b, idStart)
    if (idEnd <= idStart || !idWrittenAs(b, idStart, idEnd, id)) return false
    close = skipSpace(b, idEnd)
  } else return false
  return b[close] === 0x7d && skipSpace(b, close + 1) === end
}

/** Whether `b` holds the bytes of `part` at `at`. */
function bytesAt(b: Buffer, at: number, part: Buffer): boolean {
  if (at + part.length > b.length) return false
  for (let k = 0; k < part.length; k++) if (b[at + k] !== part[k]) return false
  return true
}

/**
 * Whether b[start, end) is `id` written the plain way: a string of printable ASCII without escapes, an integer of at
 * most 15 digits (its value: `-0` and `0` are one id, as for sameId), or null. Then its JSON text is the same id as
 * the request's, whatever way the request wrote it (sameId would say so); false leaves it to sameId.
 */
function idWrittenAs(b: Buffer, start: number, end: number, id: RpcId): boolean {
  if (typeof id === 'string') {
    if (end - start !== id.length + 2 || b[start] !== 0x22 || b[end - 1] !== 0x22) return false
    for (let k = 0; k < id.length; k++) {
      const c = id.charCodeAt(k)
      if (c < 0x20 || c > 0x7e || c === 0x22 || c === 0x5c || b[start + 1 + k] !== c) return false
    }
    return true
  }
  if (typeof id === 'number') {
    let i = start
    const negative = b[i] === 0x2d
    if (negative) i++
    if (end - i < 1 || end - i > 15 || (b[i] === 0x30 && end - i > 1)) return false
    let n = 0
    for (; i < end; i++) {
      const d = b[i]! - 0x30
      if (d < 0 || d > 9) return false
      n = n * 10 + d
    }
    return (negative ? -n : n) === id
  }
  return id === null && isNull(b, start, end)
}

/** A batch's answer: one answer per call with an id (notifications left out), by id, in any order. */
function judgeBatch(req: Buffer, r: number, answer: Buffer): AnswerVerdict {
  const left = new Map<string, number>()
  let calls = 0
  for (let i = skipSpace(req, r + 1); i < req.length && req[i] !== 0x5d; ) {
    const end = afterValue(req, i)
    if (end < 0) break
    const c = members(req, i, end, false)
    if (c.idStart >= 0) {
      left.set(canonicalId(req.toString('utf8', c.idStart, c.idEnd)), 0)
      calls++
    }
    i = skipSpace(req, end)
    if (req[i] !== 0x2c) break
    i = skipSpace(req, i + 1)
  }
  if (calls === 0) return 'result'
  let i = skipSpace(answer, 0)
  if (i >= answer.length) return { fault: 'an empty answer to a batch' }
  if (answer[i] !== 0x5b) return { fault: `not an array for a batch${errorText(answer)}` }
  i = skipSpace(answer, i + 1)
  while (answer[i] !== 0x5d) {
    const end = afterValue(answer, i)
    if (end < 0 || i >= answer.length) return { fault: 'cut short' }
    const o = members(answer, i, end, false)
    if (o.broken === undefined && o.idStart >= 0) {
      const id = canonicalId(answer.toString('utf8', o.idStart, o.idEnd))
      if (!left.delete(id)) return { fault: `an answer for id ${id.slice(0, 40)}, not asked or given twice` }
    }
    const v = verdictOf(answer, o, answer, o)
    if (typeof v === 'object') return { fault: `a batch entry with ${v.fault}` }
    i = skipSpace(answer, end)
    if (answer[i] === 0x2c) i = skipSpace(answer, i + 1)
    else if (answer[i] !== 0x5d) return { fault: i >= answer.length ? 'cut short' : 'not JSON' }
  }
  if (skipSpace(answer, i + 1) < answer.length) return { fault: 'bytes after the answer' }
  if (left.size > 0) return { fault: `no answer for ${left.size} of the ${calls} calls` }
  return 'result'
}

/**
 * ` (the node's error: "<message>")` of a single error answered to a batch (a node that does not take batches says so).
 */
function errorText(b: Buffer): string {
  const o = members(b, 0, b.length, false)
  if (o.broken !== undefined || o.errStart < 0) return ''
  try {
    const m = (JSON.parse(b.toString('utf8', o.errStart, o.errEnd)) as { message?: unknown } | null)?.message
    return typeof m === 'string' ? ` (the node's error: ${m.slice(0, 200)})` : ''
  } catch {
    return ''
  }
}
