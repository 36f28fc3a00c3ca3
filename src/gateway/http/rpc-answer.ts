/**
 * An outcome of the pipeline as an HTTP answer (status, content type, extra headers, body), for the hot route
 * (./rpc-route.ts): the error registry gives a code's status, ./infura-bodies.ts the words of a refusal.
 */
import type { Outcome } from '../pipeline/types.ts'
import { ERROR_REGISTRY } from '../../errors/registry.ts'
import { JSON_TYPE, isLimitCode, limitAnswers, refusal } from './infura-bodies.ts'

/** Status, content type and extra headers of an answer; constants for the common cases (no object per call). */
export interface Head {
  status: number
  contentType: string
  headers: Record<string, string> | undefined
}
export const OK: Head = { status: 200, contentType: JSON_TYPE, headers: undefined }
export const NO_CONTENT: Head = { status: 204, contentType: JSON_TYPE, headers: undefined }

/** An outcome's HTTP form: the registry gives the status of its code, infura-bodies.ts the words of a refusal. */
export function httpAnswer(out: Outcome): { head: Head; body: string | Buffer | undefined } {
  const code = out.code
  if (code === undefined) return { head: out.body === undefined ? NO_CONTENT : OK, body: out.body }
  const status = ERROR_REGISTRY[code].httpStatus
  if (out.body !== undefined) return { head: { status, contentType: JSON_TYPE, headers: undefined }, body: out.body }
  if (out.ids !== undefined && isLimitCode(code))
    return {
      head: { status, contentType: JSON_TYPE, headers: undefined },
      body: limitAnswers(code, out.ids, out.batch),
    }
  const r = refusal(code, out.detail)
  return { head: { status: r.status, contentType: r.contentType, headers: r.headers }, body: r.body }
}
