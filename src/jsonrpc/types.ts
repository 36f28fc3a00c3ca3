/**
 * What a parsed JSON-RPC request is (https://www.jsonrpc.org/specification): the envelope (./envelope.ts) and the
 * single-call fast path (./single-call.ts) both produce it, so it lives apart from both.
 */
import type { ChaingateError } from '../errors/index.ts'

export type RpcId = string | number | null

/** A call that passed envelope validation. */
export interface RpcCall {
  id: RpcId
  /** False for a JSON-RPC notification (no `id`): it gets no answer. */
  hasId: boolean
  method: string
  params: unknown[] | Record<string, unknown> | undefined
  /**
   * `JSON.stringify(params)` when the body held exactly that text (src/jsonrpc/single-call.ts): the cache and dedup
   * key without serializing the parameters again. Undefined: not known.
   */
  paramsText?: string | undefined
}

/** One entry of a parsed body: a valid call, or the error answering an invalid one. */
export type ParsedEntry = { ok: true; call: RpcCall } | { ok: false; id: RpcId; error: ChaingateError }

export type ParsedBody =
  | { kind: 'single'; entry: ParsedEntry }
  | { kind: 'batch'; entries: ParsedEntry[] }
  | { kind: 'invalid'; error: ChaingateError }
