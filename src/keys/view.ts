/**
 * How the CLI and the admin API show a key: with its endpoint URLs per network (built by src/shared/rpc-paths.ts);
 * `keyView` is the JSON both give (`chaingate key show --json`, `GET /admin/v1/keys/:id`).
 */
import type { ApiKey } from './repository.ts'
import type { Config } from '../config/schema.ts'
import { rpcUrl } from '../shared/rpc-paths.ts'

export function endpointUrls(k: ApiKey, config: Config) {
  const h = config.gateway.host
  // The address clients use when the operator named one (the dashboard's key pages show the same), else the bind.
  const base = config.dashboard.publicBaseUrl ?? `http://${h.includes(':') ? `[${h}]` : h}:${config.gateway.port}`
  return Object.fromEntries(
    k.networks.map((n) => {
      // A network no longer in the config (removed by a reload) keeps its row: shown with its default host.
      const host = config.networks.find((x) => x.name === n)?.hosts?.[0]
      const url = (transport: 'http' | 'ws', form: 'host' | 'path') =>
        rpcUrl({ base, network: n, key: k.key, transport, form, host })
      return [n, { http: url('http', 'path'), ws: url('ws', 'path'), host: url('http', 'host') }]
    }),
  )
}

export const keyView = (k: ApiKey, config: Config) => ({ ...k, endpoints: endpointUrls(k, config) })

export function formatKey(k: ApiKey, config: Config) {
  const lines = [
    `key ${k.id} "${k.name}"${k.revokedAt ? ' (REVOKED)' : ''}`,
    `  api key:   ${k.key}`,
    `  networks:  ${k.networks.join(', ') || '(none)'}`,
    `  limits:    ${k.creditsPerSecond ?? 'plan'} credits/s, ${k.creditsPerDay ?? 'plan'} credits/day`,
  ]
  for (const [n, e] of Object.entries(endpointUrls(k, config))) lines.push(`  ${n}: ${e.http}`)
  return lines.join('\n')
}
