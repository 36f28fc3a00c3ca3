import { sql } from 'kysely'
import type { Db } from './database.ts'

/** Tells running servers that accounts or keys changed; they reload within `gateway.settingsPollMs`. */
export async function bumpSettingsVersion(db: Db): Promise<void> {
  await sql`update settings_version set version = version + 1 where id = 1`.execute(db)
  // After the write (callers bump once their change is committed): push it to other replicas
  // (src/redis/settings-push.ts).
  const listeners = bumpListeners.get(db)
  if (listeners) await Promise.all([...listeners].map((l) => l()))
}

const bumpListeners = new WeakMap<Db, Set<() => Promise<void>>>()

/** Runs `listener` after every bump made through `db` (it must not reject); returns the undo. */
export function onSettingsBumped(db: Db, listener: () => Promise<void>): () => void {
  let set = bumpListeners.get(db)
  if (!set) bumpListeners.set(db, (set = new Set()))
  set.add(listener)
  return () => set.delete(listener)
}

export async function readSettingsVersion(db: Db): Promise<number> {
  const row = await db.selectFrom('settings_version').select('version').where('id', '=', 1).executeTakeFirst()
  return row?.version ?? 0
}
