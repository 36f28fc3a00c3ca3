/** The endpoint URLs a key page shows, built by the one owner of the RPC paths (src/networks/rpc-paths.ts). */
import type { FastifyRequest } from 'fastify'
import type { ApiKey } from '../api-keys/repository.ts'
import { rpcUrl } from '../networks/rpc-paths.ts'
import type { Dash } from './context.ts'
import type { EndpointUrls } from './pages.ts'

export function endpointsOf(dash: Dash, req: FastifyRequest, key: ApiKey): EndpointUrls[] {
  const base = new URL(dash.cfg.publicBaseUrl ?? `${req.protocol}://${req.host}`)
  return dash.deps.config.networks.map((n) => {
    const url = (transport: 'http' | 'ws', form: 'host' | 'path') => rpcUrl({ base, network: n.name, key: key.key, transport, form, host: n.hosts?.[0] })
    return {
      network: n.name,
      enabled: key.networks.includes(n.name),
      hostForm: url('http', 'host'),
      pathForm: url('http', 'path'),
      wsHostForm: url('ws', 'host'),
      wsPathForm: url('ws', 'path'),
    }
  })
}
