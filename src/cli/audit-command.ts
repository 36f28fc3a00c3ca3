/**
 * `chaingate audit [--limit N] [--json]`: the admin audit, newest first — every admin API call and every account
 * or key change made with the CLI (src/audit/repository.ts; docs/admin-api.md, "Audit").
 */
import type { CliContext } from './context.ts'
import { UsageError } from './usage-error.ts'

export async function auditCommand(values: Record<string, unknown>, ctx: CliContext): Promise<number> {
  const limit = values.limit === undefined ? 50 : Number(values.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    throw new UsageError('--limit must be a whole number from 1 to 1000')
  const [{ openDatabase, databaseTarget }, { listAudit }] = await Promise.all([
    import('../db/database.ts'),
    import('../audit/repository.ts'),
  ])
  const database = await openDatabase(databaseTarget(ctx.config))
  try {
    const entries = await listAudit(database.db, { limit })
    if (ctx.json) ctx.out(JSON.stringify(entries, null, 2))
    else
      for (const e of entries)
        ctx.out(
          [new Date(e.at).toISOString(), e.actor.padEnd(11), String(e.status), e.action, e.target ?? '-', e.summary]
            .join('  ')
            .trimEnd(),
        )
    return 0
  } finally {
    await database.close()
  }
}
