/**
 * The admin API's one style of answer for a refusal: the status of the error taxonomy (src/errors) and
 * `{"error": {"code", "message", "field"?}}` with a code of docs/errors.md. A value the domain refuses (`VALIDATION`)
 * or the route schema refuses becomes 422 `INVALID_INPUT` naming the field; a missing token 401 with
 * `WWW-Authenticate: Bearer`, a wrong one 403, too many wrong ones from an address 429 with Retry-After.
 */
import type { FastifyReply } from 'fastify'
import { ChaingateError, errors, isChaingateError } from '../errors/index.ts'
import type { AdminLogger } from './context.ts'

interface FastifyValidation {
  instancePath?: string
  params?: { missingProperty?: string; additionalProperty?: string }
  message?: string
}

type RequestError = Error & {
  statusCode?: number
  code?: string
  validation?: FastifyValidation[]
  validationContext?: string
}

/** The field a schema refusal is about: `networks/0` → `networks`, a missing property → its name. */
function fieldOf(v: FastifyValidation | undefined, context: string | undefined): string {
  const missing = v?.params?.missingProperty ?? v?.params?.additionalProperty
  const path = (v?.instancePath ?? '').split('/').filter(Boolean)[0]
  return missing ?? path ?? context ?? 'body'
}

/** The taxonomy error for anything a route or hook threw. */
export function asChaingateError(err: RequestError): ChaingateError {
  if (isChaingateError(err)) {
    if (err.code !== 'VALIDATION') return err
    const field = (err.data as { field?: string } | undefined)?.field ?? 'body'
    // Domain messages often name the field already (`webhookUrl: not a URL`); invalidInput adds it once.
    const why = err.message.startsWith(`${field}: `) ? err.message.slice(field.length + 2) : err.message
    return errors.invalidInput(field, why)
  }
  if (err.validation) {
    const v = err.validation[0]
    return errors.invalidInput(fieldOf(v, err.validationContext), v?.message ?? 'invalid')
  }
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return errors.invalidInput('content-type', 'send the body as application/json')
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return errors.bodyTooLarge(0)
  if (err.statusCode === 400) return errors.invalidInput('body', 'the body is not valid JSON')
  return new ChaingateError('INTERNAL', 'internal error', { httpStatus: 500, cause: err })
}

export function sendRefusal(reply: FastifyReply, err: RequestError, logger: AdminLogger): FastifyReply {
  const e = asChaingateError(err)
  if (e.httpStatus >= 500)
    logger.error({ err: { message: err.message, stack: err.stack }, url: reply.request.url.split('?')[0] }, 'admin')
  if (e.code === 'UNAUTHORIZED') reply.header('www-authenticate', 'Bearer')
  const retryAfter = (e.data as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds
  if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter))
  const { field, processes } = (e.data ?? {}) as { field?: string; processes?: unknown[] }
  const message = e.code === 'BODY_TOO_LARGE' ? 'request body too large' : e.message
  return reply
    .code(e.httpStatus)
    .type('application/json; charset=utf-8')
    .send({ error: { code: e.code, message, ...(field ? { field } : {}), ...(processes ? { processes } : {}) } })
}
