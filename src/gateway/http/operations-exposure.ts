/**
 * Who may read the operator endpoints when no token guards them. On a loopback listener they answer only the
 * Host names the dashboard answers to (src/shared/host-names.ts): a web page that points its own DNS name
 * at 127.0.0.1 (DNS rebinding) gets 403 instead of node states and per-method counts. Without a token, /healthz
 * does not name an embedded chain's URL: that chain has no auth and ten unlocked accounts (docs/config.md#gateway,
 * `operations`).
 */
import type { Config } from '../../config/schema.ts'
import { hostnameOf, hostPolicy, isLoopbackListener } from '../../shared/host-names.ts'
import type { Health } from '../../upstreams/pool/health.ts'

export interface OperationsExposure {
  /** Whether a request's Host header may read these endpoints. */
  hostAllowed(host: string | undefined): boolean
  /** Networks whose node is an embedded anvil: their URL is shown as `embedded` when no token is set. */
  embeddedNetworks: ReadonlySet<string>
}

/** The policy for a listener on `listenHost` (the gateway's, or the separate operations listener's). */
export function operationsExposure(config: Config, listenHost: string): OperationsExposure {
  const allowed = hostPolicy({
    listenHost,
    allowedHosts: config.gateway.allowedHosts,
    networks: config.networks,
    publicBaseUrl: config.dashboard.publicBaseUrl,
  })
  return {
    hostAllowed(host) {
      if (allowed === null) return true
      const name = hostnameOf(host)
      return name !== undefined && allowed(name)
    },
    embeddedNetworks: new Set(config.networks.filter((n) => n.embedded).map((n) => n.name)),
  }
}

/** The health answer with embedded chains' URLs replaced by `embedded`. */
export function withoutEmbeddedUrls(health: Health, embedded: ReadonlySet<string>): Health {
  if (embedded.size === 0) return health
  const upstreams = { ...health.upstreams }
  for (const name of embedded)
    if (upstreams[name]) upstreams[name] = upstreams[name].map((u) => ({ ...u, upstream: 'embedded' }))
  return { ...health, upstreams }
}

/** The start-up warning for a public bind that leaves these endpoints open, or undefined. */
export function openOperationsWarning(config: Config): string | undefined {
  const ops = config.gateway.operations
  if (isLoopbackListener(config.gateway.host) || ops.token !== null || ops.listen !== null) return undefined
  return (
    `/healthz and /metrics are open to anyone who reaches ${config.gateway.host}:${config.gateway.port} ` +
    '(node states, heads, per-method counts): set gateway.operations.token or gateway.operations.listen ' +
    '(docs/config.md#gateway, the gateway.operations settings)'
  )
}
