/**
 * JSON-RPC 2.0 envelopes: parse a request body into calls, validate each, and serialize answers. No I/O.
 */
import { ChaingateError, errors } from '../errors/index.ts'

export type RpcId = string | number | null

/** A call that passed envelope validation. */
export interface RpcCall {
  id: RpcId
  /** False for a JSON-RPC notification (no `id`): it gets no answer. */
  hasId: boolean
  method: string
  params: unknown[] | Record<string, unknown> | undefined
}

/** One entry of a parsed body: a valid call, or the error answering an invalid one. */
export type ParsedEntry = { ok: true; call: RpcCall } | { ok: false; id: RpcId; error: ChaingateError }

export type ParsedBody =
  | { kind: 'single'; entry: ParsedEntry }
  | { kind: 'batch'; entries: ParsedEntry[] }
  | { kind: 'invalid'; error: ChaingateError }

export function parseBody(body: Buffer | string | undefined, maxBatchSize: number): ParsedBody {
  if (body === undefined || body.length === 0) return { kind: 'invalid', error: errors.parse() }
  let value: unknown
  try {
    value = JSON.parse(typeof body === 'string' ? body : body.toString('utf8'))
  } catch {
    return { kind: 'invalid', error: errors.parse() }
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return { kind: 'invalid', error: errors.emptyBatch() }
    if (value.length > maxBatchSize) return { kind: 'invalid', error: errors.batchTooLarge(maxBatchSize) }
    return { kind: 'batch', entries: value.map(validateCall) }
  }
  if (value === null || typeof value !== 'object')
    return { kind: 'invalid', error: errors.invalidRequest('the body must be a JSON object or a batch array') }
  return { kind: 'single', entry: validateCall(value) }
}

export function validateCall(value: unknown): ParsedEntry {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    return { ok: false, id: null, error: errors.invalidRequest('each call must be a JSON object') }
  const v = value as Record<string, unknown>
  const hasId = 'id' in v
  const id = v.id
  if (hasId && !(id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))))
    return { ok: false, id: null, error: errors.invalidRequest('"id" must be a string, a number or null') }
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
 * Whether an upstream answer is a JSON-RPC error, without parsing it (answers can be megabytes). A node writes the
 * top-level `result`/`error` member before any nested one, so the first of the two decides; it is near the start,
 * so only the head is searched unless it holds neither.
 */
export function isErrorAnswer(answer: string | Buffer): boolean {
  const head = answer.length <= HEAD ? answer : typeof answer === 'string' ? answer.slice(0, HEAD) : answer.subarray(0, HEAD)
  let e = head.indexOf('"error"')
  let r = head.indexOf('"result"')
  if (e === -1 && r === -1 && head !== answer) {
    e = answer.indexOf('"error"')
    r = answer.indexOf('"result"')
  }
  return e !== -1 && (r === -1 || e < r)
}
const HEAD = 512

/** Extracts the numeric `error.code` of an error answer, for the usage ledger's breakdown. */
export function errorCodeOf(answer: string | Buffer): number | undefined {
  const text = typeof answer === 'string' ? answer : answer.subarray(0, 4096).toString()
  const m = /"error"\s*:\s*\{[^{}]*?"code"\s*:\s*(-?\d+)/.exec(text)
  return m ? Number(m[1]) : undefined
}
