/**
 * What fastify answers on the gateway listener besides the operator and dashboard routes: its error handler (a body
 * too large, a bad request, an internal error, as JSON-RPC errors) and, near the RPC paths, the CORS preflight, 405
 * and the documented 404 (docs/errors.md). POST on the RPC paths never reaches fastify (./rpc-route.ts takes it).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { errors } from '../../errors/index.ts'
import { serializeError, toErrorObject } from '../../jsonrpc/envelope.ts'
import type { Logger } from '../../observability/logger.ts'
import { matchRpcPath } from '../../shared/rpc-paths.ts'
import { BODIES, JSON_TYPE, TEXT } from './infura-bodies.ts'
import { CORS, preflight } from './cors-preflight.ts'

export function registerFastifyRoutes(app: FastifyInstance, deps: { maxBodyBytes: number; logger: Logger }): void {
  app.setErrorHandler((err: { code?: string; statusCode?: number }, _req, reply) => {
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') {
      const e = errors.bodyTooLarge(deps.maxBodyBytes)
      return reply
        .code(413)
        .type(JSON_TYPE)
        .headers(CORS)
        .send(serializeError(null, toErrorObject(e)))
    }
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500
    if (status === 500) deps.logger.error({ err }, 'unhandled error in HTTP handler')
    return reply
      .code(status)
      .type(JSON_TYPE)
      .send(
        serializeError(null, {
          code: status === 500 ? -32603 : -32600,
          message: status === 500 ? 'Internal error' : 'Bad request',
        }),
      )
  })

  const notAllowed = async (_req: FastifyRequest, reply: FastifyReply) =>
    reply.code(405).headers(CORS).header('allow', 'POST, OPTIONS').type(TEXT).send(BODIES.METHOD_NOT_ALLOWED)

  // POST on these paths never reaches fastify: the bare node:http route (rpc-route.ts) takes it first.
  for (const path of ['/v3', '/v3/*', '/networks/:network/v3', '/networks/:network/v3/*']) {
    app.options(path, preflight)
    app.route({ method: ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'], url: path, handler: notAllowed })
  }
  // Everything else that no route takes (a POST to a WebSocket path, dot segments, other verbs): the documented
  // text and the credits header, like every answer near an RPC path (docs/errors.md).
  app.setNotFoundHandler(async (req, reply) => {
    if (matchRpcPath(req.url, 'http')) return notAllowed(req, reply)
    return reply.code(404).headers(CORS).type(TEXT).send(BODIES.NOT_AN_ENDPOINT)
  })
}
