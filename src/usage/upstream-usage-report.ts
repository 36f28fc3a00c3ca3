/**
 * Reading upstream usage (docs/upstream-usage.md): the rows ./upstream-usage.ts writes, totalled per network and
 * upstream (and method) over a time range, for the CLI, the admin API and the dashboard.
 */
import type { Db } from '../db/database.ts'

export type UpstreamUsageDimension = 'upstream' | 'method'

export interface UpstreamUsageTotal {
  network: string
  upstream: string
  /** Set when grouped by method too. */
  method?: string
  calls: number
  /** Upstream requests made (retries and hedges included). */
  attempts: number
  cacheHits: number
  dedupHits: number
  /** Upstream requests the gateway did not make: answers from the cache or shared with an identical call. */
  saved: number
  credits: number
  failures: number
}

export interface UpstreamUsageReport {
  /** Unix seconds, inclusive start and exclusive end. */
  from: number
  to: number
  rows: UpstreamUsageTotal[]
  total: Omit<UpstreamUsageTotal, 'network' | 'upstream' | 'method'>
}

/** Totals per network and upstream (and method with `byMethod`) over [fromSec, toSec), largest cost first. */
export async function queryUpstreamUsage(
  db: Db,
  opts: { fromSec: number; toSec: number; network?: string | undefined; byMethod?: boolean },
): Promise<UpstreamUsageReport> {
  let q = db
    .selectFrom('usage_upstream_hourly')
    .select(['network', 'upstream', 'method', 'calls', 'attempts', 'cache_hits', 'dedup_hits', 'credits', 'failures'])
    .where('hour', '>=', opts.fromSec)
    .where('hour', '<', opts.toSec)
  if (opts.network !== undefined) q = q.where('network', '=', opts.network)
  const raw = await q.execute()
  const groups = new Map<string, UpstreamUsageTotal>()
  const total = { calls: 0, attempts: 0, cacheHits: 0, dedupHits: 0, saved: 0, credits: 0, failures: 0 }
  for (const r of raw) {
    // PostgreSQL returns bigint columns as strings.
    const v = {
      calls: Number(r.calls),
      attempts: Number(r.attempts),
      cacheHits: Number(r.cache_hits),
      dedupHits: Number(r.dedup_hits),
      credits: Number(r.credits),
      failures: Number(r.failures),
    }
    const id = opts.byMethod ? `${r.network}\n${r.upstream}\n${r.method}` : `${r.network}\n${r.upstream}`
    let g = groups.get(id)
    if (g === undefined) {
      g = {
        network: r.network,
        upstream: r.upstream,
        ...(opts.byMethod ? { method: r.method } : {}),
        calls: 0,
        attempts: 0,
        cacheHits: 0,
        dedupHits: 0,
        saved: 0,
        credits: 0,
        failures: 0,
      }
      groups.set(id, g)
    }
    for (const t of [g, total]) {
      t.calls += v.calls
      t.attempts += v.attempts
      t.cacheHits += v.cacheHits
      t.dedupHits += v.dedupHits
      t.saved += v.cacheHits + v.dedupHits
      t.credits += v.credits
      t.failures += v.failures
    }
  }
  const rows = [...groups.values()].sort(
    (a, b) =>
      b.attempts - a.attempts ||
      b.calls - a.calls ||
      a.network.localeCompare(b.network) ||
      a.upstream.localeCompare(b.upstream),
  )
  return { from: opts.fromSec, to: opts.toSec, rows, total }
}

/** One UTC day (YYYY-MM-DD) as [from, to) in unix seconds. */
export function dayRange(day: string): { fromSec: number; toSec: number } {
  const fromSec = Date.parse(`${day}T00:00:00Z`) / 1000
  return { fromSec, toSec: fromSec + 86_400 }
}
