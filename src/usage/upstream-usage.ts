/**
 * Upstream usage: what each upstream cost beside what clients were charged (docs/upstream-usage.md). Per UTC hour,
 * network, upstream and method: client calls served, upstream requests made for them (retries and hedges
 * included; a batch sent as one body counts once per call in it, as providers bill per call), answers from the
 * cache and from an identical call already in flight (upstream requests saved), client credits, and calls no
 * upstream answered (`upstream` = `(none)`).
 *
 * Like the usage ledger (ledger.ts): the hot path only adds to nested Maps keyed by the strings it is given
 * (no composed key, no object per call once a row exists); a timer writes them every `flushMs` through kysely (one
 * multi-row upsert per chunk, the same SQL on SQLite and PostgreSQL), and `stop` writes what is left. Rows that
 * could not be written are kept for the next flush, at most `maxBufferedRows` of them (database.usageBufferRows,
 * as for the usage ledger); calls beyond are dropped and counted (`droppedCalls`). The reports read them through
 * ./upstream-usage-report.ts.
 */
import type { Db } from '../db/database.ts'
import { capLabel, methodLabel } from '../methods/labels.ts'
import { DEFAULT_SERVED } from '../methods/served.ts'

/** The upstream label of a call no upstream answered. */
export const NO_UPSTREAM = '(none)'

export interface UpstreamUsageRow {
  hour: number
  network: string
  upstream: string
  method: string
  calls: number
  attempts: number
  cacheHits: number
  dedupHits: number
  credits: number
  failures: number
}

/**
 * One forwarded call's upstream side. `upstream`: the answering node's redacted label (`cache` for the cache,
 * NO_UPSTREAM when none answered); `attempts`: upstream requests made for it (retries, hedges); `source`: set when
 * the cache or an identical call in flight answered; `failed`: no node answered; `now`: unix ms.
 */
export interface UpstreamCall {
  network: string
  upstream: string
  method: string
  attempts: number
  source: 'cache' | 'dedup' | undefined
  credits: number
  failed: boolean
  now: number
}

export interface UpstreamUsage {
  /** One forwarded call (UpstreamCall). */
  record(call: UpstreamCall): void
  flush(): Promise<void>
  /** Calls not recorded because the database could not be written and the buffer was full. */
  readonly droppedCalls: number
  start(): void
  stop(): Promise<void>
}

const hourOf = (nowMs: number) => Math.floor(nowMs / 3_600_000) * 3600
/** Rows per INSERT: 10 parameters each, under SQLite's oldest limit of 999 bound parameters. */
const CHUNK_ROWS = 90

const NO_COUNTS = { calls: 0, attempts: 0, cacheHits: 0, dedupHits: 0, credits: 0, failures: 0 }

type Tree = Map<number, Map<string, Map<string, Map<string, UpstreamUsageRow>>>>

function leaf(tree: Tree, hour: number, network: string, upstream: string): Map<string, UpstreamUsageRow> {
  let byNetwork = tree.get(hour)
  if (byNetwork === undefined) tree.set(hour, (byNetwork = new Map()))
  let byUpstream = byNetwork.get(network)
  if (byUpstream === undefined) byNetwork.set(network, (byUpstream = new Map()))
  let byMethod = byUpstream.get(upstream)
  if (byMethod === undefined) byUpstream.set(upstream, (byMethod = new Map()))
  return byMethod
}

function* rowsOf(tree: Tree): Generator<UpstreamUsageRow> {
  for (const byNetwork of tree.values())
    for (const byUpstream of byNetwork.values()) for (const byMethod of byUpstream.values()) yield* byMethod.values()
}

/** `served`: methods stored by name (as in the usage ledger); any other is `other`. */
export function createUpstreamUsage(
  db: Db,
  opts: { flushMs: number; onError: (err: unknown) => void; served?: ReadonlySet<string>; maxBufferedRows?: number },
): UpstreamUsage {
  const served = opts.served ?? DEFAULT_SERVED
  const maxBufferedRows = opts.maxBufferedRows ?? 100_000
  let droppedCalls = 0
  let tree: Tree = new Map()
  let timer: NodeJS.Timeout | undefined
  let writing: Promise<void> = Promise.resolve()
  // The last call's row, while it is in `tree`: calls repeat the same hour, network, upstream and method, whose
  // labels are those strings themselves (a row's labels equal to them are theirs), found then without the lookups.
  let lastTree: Tree | undefined
  let last: UpstreamUsageRow | undefined

  const add = (r: UpstreamUsageRow) => {
    const byMethod = leaf(tree, r.hour, r.network, r.upstream)
    const cur = byMethod.get(r.method)
    if (cur === undefined) byMethod.set(r.method, { ...r })
    else {
      cur.calls += r.calls
      cur.attempts += r.attempts
      cur.cacheHits += r.cacheHits
      cur.dedupHits += r.dedupHits
      cur.credits += r.credits
      cur.failures += r.failures
    }
  }

  const write = async (rows: UpstreamUsageRow[]) => {
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < rows.length; i += CHUNK_ROWS) {
        const values = rows.slice(i, i + CHUNK_ROWS).map((r) => ({
          hour: r.hour,
          network: r.network,
          upstream: r.upstream,
          method: r.method,
          calls: r.calls,
          attempts: r.attempts,
          cache_hits: r.cacheHits,
          dedup_hits: r.dedupHits,
          credits: r.credits,
          failures: r.failures,
        }))
        await trx
          .insertInto('usage_upstream_hourly')
          .values(values)
          .onConflict((oc) =>
            oc.columns(['hour', 'network', 'upstream', 'method']).doUpdateSet((eb) => ({
              calls: eb('usage_upstream_hourly.calls', '+', eb.ref('excluded.calls')),
              attempts: eb('usage_upstream_hourly.attempts', '+', eb.ref('excluded.attempts')),
              cache_hits: eb('usage_upstream_hourly.cache_hits', '+', eb.ref('excluded.cache_hits')),
              dedup_hits: eb('usage_upstream_hourly.dedup_hits', '+', eb.ref('excluded.dedup_hits')),
              credits: eb('usage_upstream_hourly.credits', '+', eb.ref('excluded.credits')),
              failures: eb('usage_upstream_hourly.failures', '+', eb.ref('excluded.failures')),
            })),
          )
          .execute()
      }
    })
  }

  // One write at a time (a slow database must not get overlapping transactions with the same rows).
  const flush = (): Promise<void> => {
    writing = writing.then(async () => {
      if (tree.size === 0) return
      const rows = [...rowsOf(tree)]
      tree = new Map()
      try {
        await write(rows)
      } catch (err) {
        // Kept for the next flush, up to the bound (the older rows first: they were recorded first).
        let kept = 0
        for (const r of rows) {
          if (kept++ < maxBufferedRows) add(r)
          else droppedCalls += r.calls
        }
        opts.onError(err)
      }
    })
    return writing
  }

  return {
    record({ network, upstream, method, attempts, source, credits, failed, now: nowMs }) {
      const hour = hourOf(nowMs)
      let row = last
      if (
        row === undefined ||
        lastTree !== tree ||
        row.hour !== hour ||
        row.network !== network ||
        row.upstream !== upstream ||
        row.method !== method
      ) {
        const n = capLabel(network)
        const u = capLabel(upstream)
        const m = methodLabel(method, served)
        const byMethod = leaf(tree, hour, n, u)
        row = byMethod.get(m)
        if (row === undefined) byMethod.set(m, (row = { hour, network: n, upstream: u, method: m, ...NO_COUNTS }))
        lastTree = tree
        last = row
      }
      row.calls += 1
      row.attempts += attempts
      if (source === 'cache') row.cacheHits += 1
      else if (source === 'dedup') row.dedupHits += 1
      row.credits += credits
      if (failed) row.failures += 1
    },
    flush,
    get droppedCalls() {
      return droppedCalls
    },
    start() {
      timer = setInterval(() => void flush(), opts.flushMs)
      timer.unref()
    },
    async stop() {
      if (timer) clearInterval(timer)
      timer = undefined
      await flush()
    },
  }
}
