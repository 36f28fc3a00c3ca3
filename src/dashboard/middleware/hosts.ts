/**
 * Refuses dashboard requests for a Host name that is not allowed (DNS rebinding; the policy and why:
 * src/shared/host-names.ts, docs/dashboard.md).
 */
import type { FastifyInstance } from 'fastify'
import { hostnameOf, hostPolicy } from '../../shared/host-names.ts'
import type { Dash } from '../context.ts'
import { isGatewayPath } from '../routes/not-found.ts'

/** Refuses dashboard requests for a Host name that is not allowed: 403 with a plain explanation. */
export function registerHostCheck(app: FastifyInstance, dash: Dash): void {
  const { gateway, networks } = dash.deps.config
  const allowed = hostPolicy({
    listenHost: gateway.host,
    allowedHosts: gateway.allowedHosts,
    networks,
    publicBaseUrl: dash.cfg.publicBaseUrl,
  })
  if (!allowed) return
  app.addHook('onRequest', async (req, reply) => {
    // RPC-like paths that reach the dashboard's 404 route go on to the gateway's answer (keys guard those).
    if (isGatewayPath(req.url)) return
    const hostname = hostnameOf(req.host)
    if (hostname !== undefined && allowed(hostname)) return
    dash.logger.warn(
      { host: String(req.host).slice(0, 100), ip: req.ip },
      'dashboard request refused: host name not allowed',
    )
    return reply
      .code(403)
      .type('text/plain; charset=utf-8')
      .send(
        `Blocked request: this dashboard does not answer to the host name ${JSON.stringify(
          String(req.host ?? '').slice(0, 100),
        )}. ` +
          'Open it at an address of this gateway, or add the name to gateway.allowedHosts in the config ' +
          '(docs/dashboard.md).\n',
      )
  })
}
