/** A route's fastify `schema` from zod schemas (./schemas.ts): validation, and its entry in the OpenAPI document. */
import type { FastifySchema } from 'fastify'
import type { z } from 'zod'
import { ErrorAnswer, jsonSchema } from './schemas.ts'

export interface RouteDoc {
  tag: string
  /** The OpenAPI operationId: the method name a generated client gets (unique over the API). */
  operationId?: string
  summary: string
  params?: z.ZodType
  query?: z.ZodType
  body?: z.ZodType
  /** The success answer: a zod schema, or a plain JSON Schema for reports described in docs/admin-api.md. */
  response: z.ZodType | Record<string, unknown>
  /** Status of the success answer (201 for creations). */
  status?: number
}

const isZod = (v: unknown): v is z.ZodType => typeof (v as { safeParse?: unknown }).safeParse === 'function'
const errorAnswer = jsonSchema(ErrorAnswer, 'output')

export function routeSchema(doc: RouteDoc): FastifySchema & { tags: string[]; summary: string } {
  return {
    tags: [doc.tag],
    summary: doc.summary,
    ...(doc.operationId ? { operationId: doc.operationId } : {}),
    ...(doc.params ? { params: jsonSchema(doc.params) } : {}),
    ...(doc.query ? { querystring: jsonSchema(doc.query) } : {}),
    ...(doc.body ? { body: jsonSchema(doc.body) } : {}),
    response: {
      [doc.status ?? 200]: isZod(doc.response) ? jsonSchema(doc.response, 'output') : doc.response,
      '4XX': errorAnswer,
    },
  }
}
