/**
 * HTML 404 for dashboard pages. The gateway's own not-found answer (plain text, docs/errors.md) stays for every
 * path near the RPC endpoints and for every verb but GET/HEAD, so API clients never receive a web page.
 */
import type { FastifyInstance } from 'fastify'
import { matchRpcPath } from '../../shared/rpc-paths.ts'
import { sendPage, type Dash } from '../context.ts'
import { errorPage } from '../pages/settings.ts'

/** Paths that belong to the JSON-RPC side of the listener (also malformed ones such as `/v3x` or `/ws/`). */
export function isGatewayPath(url: string): boolean {
  return (
    matchRpcPath(url, 'http') !== undefined ||
    matchRpcPath(url, 'ws') !== undefined ||
    url.startsWith('/v3') ||
    url.startsWith('/ws/') ||
    url === '/ws' ||
    url.startsWith('/networks/')
  )
}

export function registerNotFoundRoute(app: FastifyInstance, dash: Dash): void {
  // A wildcard GET in the dashboard's context: every other route is more specific, so this only takes what
  // nothing else serves. `callNotFound` hands RPC-like paths to the gateway's handler (the parent context's).
  app.get('/*', async (req, reply) => {
    if (isGatewayPath(req.url)) return reply.callNotFound()
    return sendPage(reply, 404, errorPage(await dash.pageCtx(req, ''), 404))
  })
}
