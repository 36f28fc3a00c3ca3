/**
 * `chaingate requests --key <key-id or key> [--method M] [--status S] [--errors] [--limit N] [--json]`: a key's
 * recent calls from the request explorer (docs/requests.md), newest first, read with the dashboard's query.
 */
import type { CliContext } from './context.ts'
import { UsageError } from './usage-error.ts'

/** Column widths of the text table (the last column is not padded). */
const WIDTHS = [23, 12, 28, 12, 6, 8, 24, 0]

export async function requestsCommand(values: Record<string, unknown>, ctx: CliContext): Promise<number> {
  const { config, json, out } = ctx
  const ref = values.key as string | undefined
  if (!ref) throw new UsageError('--key is required (a key id or the key itself)')
  const limit = values.limit === undefined ? 50 : Number(values.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new UsageError('--limit must be a number 1-1000')
  const [{ openDatabase, databaseTarget }, { createKeysRepository }, { queryRequests, requestJson }] =
    await Promise.all([
      import('../db/database.ts'),
      import('../keys/repository.ts'),
      import('../usage/requests/queries.ts'),
    ])
  const database = await openDatabase(databaseTarget(config))
  try {
    const keys = createKeysRepository(database.db, {
      networks: config.networks.map((n) => n.name),
      plans: config.plans,
    })
    const key = await keys.resolve(ref)
    if (!key) throw new UsageError(`no key ${ref}`)
    const page = await queryRequests(database.db, {
      keyId: key.id,
      method: values.method as string | undefined,
      status: values.status as string | undefined,
      errorsOnly: Boolean(values.errors),
      limit,
    })
    if (json) {
      out(JSON.stringify({ keyId: key.id, requests: page.rows.map(requestJson), more: page.more }, null, 2))
      return 0
    }
    if (!config.requests.enabled) out('note: the request explorer is off in this config (requests.enabled: false)')
    const line = (cells: string[]) => cells.map((c, i) => (WIDTHS[i] ? c.padEnd(WIDTHS[i]) : c)).join(' ')
    out(line(['time (UTC)', 'network', 'method', 'status', 'ms', 'credits', 'served by', 'client']))
    for (const r of page.rows)
      out(
        line([
          new Date(r.time).toISOString().slice(0, 23).replace('T', ' '),
          r.network,
          r.method,
          r.status,
          String(r.latencyMs),
          String(r.credits),
          r.served ?? '-',
          r.client ?? '-',
        ]),
      )
    const filtered = values.method || values.status || values.errors
    if (page.rows.length === 0) out(`no requests for key ${key.id}${filtered ? ' matching the filters' : ''}`)
    else if (page.more) out(`(the newest ${page.rows.length}; --limit shows more)`)
    return 0
  } finally {
    await database.close()
  }
}
