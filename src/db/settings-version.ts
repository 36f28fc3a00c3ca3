import { sql } from 'kysely'
import type { Db } from './database.ts'

/** Tells running servers that accounts or keys changed; they reload within `gateway.settingsPollMs`. */
export async function bumpSettingsVersion(db: Db): Promise<void> {
  await sql`update settings_version set version = version + 1 where id = 1`.execute(db)
}

export async function readSettingsVersion(db: Db): Promise<number> {
  const row = await db.selectFrom('settings_version').select('version').where('id', '=', 1).executeTakeFirst()
  return row?.version ?? 0
}
