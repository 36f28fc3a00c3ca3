/**
 * JSON-RPC 2.0 envelopes: parse a request body into calls, validate each, and serialize answers. No I/O.
 */
import { isUtf8 } from 'node:buffer'
import { type ChaingateError, errors } from '../errors/index.ts'
import { checkText, type TextProblem } from './body-check.ts'
import { MemberWalk } from './scan.ts'
import { parseSingleCall } from './single-call.ts'
import type { ParsedBody, ParsedEntry, RpcCall, RpcId } from './types.ts'

/**
 * Parses and validates a request body. Besides the envelope rules, the text is checked for what nodes refuse but
 * JSON.parse accepts (body-check.ts: depth, unpaired surrogates, non-integer ids); bytes that are not UTF-8 are
 * not JSON text (RFC 8259 §8.1) and get a parse error, as they would from the node.
 */
export function parseBody(body: Buffer | string | undefined, maxBatchSize: number): ParsedBody {
  if (body === undefined || body.length === 0) return { kind: 'invalid', error: errors.parse() }
  if (typeof body !== 'string') {
    // One plain call (the common body) is read in one pass: single-call.ts, the same answer as below.
    const single = parseSingleCall(body)
    if (single !== undefined) return single
  }
  if (typeof body !== 'string' && !isUtf8(body)) return { kind: 'invalid', error: errors.parse() }
  const text = typeof body === 'string' ? body : body.toString('utf8')
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'invalid', error: errors.parse() }
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'invalid', error: errors.emptyBatch() }
    if (value.length > maxBatchSize) return { kind: 'invalid', error: errors.batchTooLarge(maxBatchSize) }
    const entries = value.map(validateCall)
    const problems = checkText(text, true, typeof body === 'string', undefined)
    if (problems !== undefined)
      for (let i = 0; i < entries.length; i++) {
        const p = problems[i]
        if (p !== undefined) entries[i] = withProblem(entries[i]!, p)
      }
    return { kind: 'batch', entries }
  }
  if (value === null || typeof value !== 'object')
    return { kind: 'invalid', error: errors.invalidRequest('the body must be a JSON object or a batch array') }
  const entry = validateCall(value)
  const problem = checkText(text, false, typeof body === 'string', (value as { id?: unknown }).id)?.[0]
  return { kind: 'single', entry: problem === undefined ? entry : withProblem(entry, problem) }
}

/** A call refused for what the text check found: with its own id unless the id itself is at fault. */
function withProblem(entry: ParsedEntry, problem: TextProblem): ParsedEntry {
  if (!problem.idUsable) return { ok: false, id: null, error: errors.invalidRequest(problem.why) }
  if (!entry.ok) return entry
  return { ok: false, id: entry.call.id, error: errors.invalidRequest(problem.why) }
}

export function validateCall(value: unknown): ParsedEntry {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, id: null, error: errors.invalidRequest('each call must be a JSON object') }
  const v = value as Record<string, unknown>
  const hasId = 'id' in v
  const id = v.id
  // Integers only, and only those a double holds exactly: the answer must carry the very id the client sent
  // (nodes refuse fractions and integers beyond 64 bits with `id: null`).
  if (hasId && !(id === null || typeof id === 'string' || Number.isSafeInteger(id)))
    return {
      ok: false,
      id: null,
      error: errors.invalidRequest(
        '"id" must be a string, an integer of at most 2^53-1 (no fraction or exponent), or null',
      ),
    }
  const rid = (id ?? null) as RpcId
  if (v.jsonrpc !== '2.0') return { ok: false, id: rid, error: errors.invalidRequest('"jsonrpc" must be "2.0"') }
  if (typeof v.method !== 'string' || v.method.length === 0)
    return { ok: false, id: rid, error: errors.invalidRequest('"method" must be a non-empty string') }
  const params = v.params
  if (params !== undefined && (params === null || typeof params !== 'object'))
    return { ok: false, id: rid, error: errors.invalidRequest('"params" must be an array or an object') }
  return { ok: true, call: { id: rid, hasId, method: v.method, params: params as RpcCall['params'] } }
}

export interface RpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export function toErrorObject(error: ChaingateError): RpcErrorObject {
  return error.data === undefined
    ? { code: error.rpcCode, message: error.message }
    : { code: error.rpcCode, message: error.message, data: error.data }
}

export function serializeError(id: RpcId, error: RpcErrorObject): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"error":${JSON.stringify(error)}}`
}

export function serializeResult(id: RpcId, result: unknown): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${JSON.stringify(result ?? null)}}`
}

/**
 * Whether an answer is a JSON-RPC error, without parsing it (answers can be megabytes): walks the top-level
 * object's members until the first `result` or `error` key, skipping the values of the others (`jsonrpc`, `id`),
 * so a string or nested member that happens to say "error" does not count. Anything that is not a JSON object
 * counts as no error (the client gets it as the node sent it).
 */
export function isErrorAnswer(answer: string | Buffer): boolean {
  const b = typeof answer === 'string' ? Buffer.from(answer) : answer
  const walk = new MemberWalk(b, 0, b.length)
  while (walk.next()) {
    if (walk.keyIs('result')) return false
    if (walk.keyIs('error')) return true
  }
  return false
}

/** Extracts the numeric `error.code` of an error answer, for the usage ledger's breakdown. */
export function errorCodeOf(answer: string | Buffer): number | undefined {
  const text = typeof answer === 'string' ? answer : answer.subarray(0, 4096).toString()
  const m = /"error"\s*:\s*\{[^{}]*?"code"\s*:\s*(-?\d+)/.exec(text)
  return m ? Number(m[1]) : undefined
}
