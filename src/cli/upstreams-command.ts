/**
 * `chaingate upstreams [--json]`: each network's nodes as the running server sees them — state, head, lag, error
 * rate, latency — read from its /healthz (the operations listener when `gateway.operations.listen` is set, with
 * the operations token when one is configured). The state lives in the server process, so the server must run.
 */
import { request } from 'undici'
import type { Config } from '../config/schema.ts'
import type { CliContext } from './context.ts'
import { printLine } from './printable.ts'

interface UpstreamRow {
  upstream: string
  state: string
  cause?: string
  reason?: string
  role?: string
  labels?: string[]
  head?: number
  finalized?: number
  lagBlocks?: number
  errorRate?: number
  answers?: number
  p50Ms?: number
  p99Ms?: number
}

/** Where the running server answers /healthz, by the config. */
export function healthUrl(config: Config): string {
  const listen = config.gateway.operations.listen ?? { host: config.gateway.host, port: config.gateway.port }
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}/healthz`
}

const cell = (v: unknown) => (v === undefined ? '-' : String(v))

export function formatUpstreams(upstreams: Record<string, UpstreamRow[]>): string {
  const rows = [['network', 'upstream', 'role', 'state', 'head', 'lag', 'errors', 'p50 ms', 'p99 ms', 'labels']]
  for (const [network, list] of Object.entries(upstreams))
    for (const u of list)
      rows.push([
        network,
        u.upstream,
        cell(u.role),
        u.cause ? `${u.state} (${u.cause})` : u.state,
        cell(u.head),
        cell(u.lagBlocks),
        u.errorRate === undefined ? '-' : `${(u.errorRate * 100).toFixed(1)} %`,
        cell(u.p50Ms),
        cell(u.p99Ms),
        (u.labels ?? []).join(',') || '-',
      ])
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  const lines = rows.map((r) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd(),
  )
  const reasons = Object.entries(upstreams).flatMap(([network, list]) =>
    list.filter((u) => u.reason).map((u) => `  ${network} ${u.upstream}: ${u.reason}`),
  )
  return [...lines, ...(reasons.length ? ['', ...reasons] : [])].join('\n')
}

export async function upstreamsCommand(ctx: CliContext): Promise<number> {
  const url = healthUrl(ctx.config)
  const token = ctx.config.gateway.operations.token
  let health: { upstreams?: Record<string, UpstreamRow[]> }
  try {
    const res = await request(url, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      headersTimeout: 5000,
      bodyTimeout: 5000,
    })
    if (res.statusCode === 401) {
      await res.body.dump()
      printLine(process.stderr, `${url} refused the operations token: check gateway.operations.token in the config`)
      return 1
    }
    health = (await res.body.json()) as typeof health
  } catch (err) {
    process.stderr.write(
      `no chaingate server answers at ${url} (${(err as Error).message}); start it with chaingate start\n`,
    )
    return 1
  }
  const upstreams = health.upstreams ?? {}
  ctx.out(ctx.json ? JSON.stringify(upstreams, null, 2) : formatUpstreams(upstreams))
  return 0
}
