/** The endpoint URLs a key page shows, built by the one owner of the RPC paths (src/shared/rpc-paths.ts). */
import type { FastifyRequest } from 'fastify'
import type { ApiKey } from '../keys/repository.ts'
import { resolvesCached } from '../networks/name-resolution.ts'
import { rpcUrl } from '../shared/rpc-paths.ts'
import type { Dash } from './context.ts'
import type { EndpointUrls } from './pages/key.ts'

export async function endpointsOf(dash: Dash, req: FastifyRequest, key: ApiKey): Promise<EndpointUrls[]> {
  const base = new URL(dash.cfg.publicBaseUrl ?? `${req.protocol}://${req.host}`)
  // The path form first where this machine does not resolve the network's host name (Node does not resolve
  // *.localhost here; src/networks/name-resolution.ts).
  const hostResolves = await Promise.all(
    dash.deps.config.networks.map((n) => resolvesCached(n.hosts?.[0] ?? `${n.name}.localhost`)),
  )
  return dash.deps.config.networks.map((n, i) => {
    const url = (transport: 'http' | 'ws', form: 'host' | 'path') =>
      rpcUrl({ base, network: n.name, key: key.key, transport, form, host: n.hosts?.[0] })
    return {
      network: n.name,
      enabled: key.networks.includes(n.name),
      pathFirst: !hostResolves[i],
      hostForm: url('http', 'host'),
      pathForm: url('http', 'path'),
      wsHostForm: url('ws', 'host'),
      wsPathForm: url('ws', 'path'),
    }
  })
}
