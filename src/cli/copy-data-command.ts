/**
 * `chaingate migrate --copy-from <sqlite file>`: the embedded database's records into the configured one
 * (src/db/copy-data.ts).
 */
import { resolve } from 'node:path'
import { CopyRefusedError, copySqliteData } from '../db/copy-data.ts'
import { describeTarget, type DatabaseTarget } from '../db/database.ts'
import type { CliContext } from './context.ts'
import { printLine } from './printable.ts'

export async function copyDataCommand(file: string, target: DatabaseTarget, ctx: CliContext): Promise<number> {
  const from = resolve(file)
  try {
    const { tables } = await copySqliteData(from, target)
    if (ctx.json) ctx.out(JSON.stringify({ from, database: describeTarget(target), tables }, null, 2))
    else {
      ctx.out(`copied ${from} into ${describeTarget(target)}:`)
      for (const t of tables) ctx.out(`  ${t.table.padEnd(24)} ${String(t.rows).padStart(10)} rows`)
    }
    return 0
  } catch (err) {
    if (!(err instanceof CopyRefusedError)) throw err
    printLine(process.stderr, `error: nothing copied: ${err.message}`)
    return 1
  }
}
