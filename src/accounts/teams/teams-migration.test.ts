/**
 * Migration 0810_teams on a database as the release before it left it (migrations up to 0700, rows written as that
 * release wrote them): every live account becomes a team of one, owner, and its keys, usage, alerts and requests
 * are all reached through the team. On SQLite (a file) and PostgreSQL (a schema).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { createAlertSettingsRepository } from '../../alerts/settings.ts'
import { openDatabase, type DatabaseTarget } from '../../db/database.ts'
import { createKeySnapshot } from '../../keys/snapshot.ts'
import { createKeysRepository } from '../../keys/repository.ts'
import { loadAllKeySecurity } from '../../keys/security/repository.ts'
import { queryRequests } from '../../usage/requests/queries.ts'
import { creditsUsedToday } from '../../usage/queries.ts'
import { createAccountsRepository } from '../repository.ts'
import { createTeamsRepository } from './repository.ts'
import { describeEachDatabase } from '../../../test/support/databases.ts'
import { createPgTestSchema } from '../../../test/support/services.ts'

const PLANS = { free: { creditsPerDay: 1000, creditsPerSecond: 10, maxKeys: 5 } }
const NOW = Date.parse('2026-03-01T10:15:00Z')
const HOUR = Math.floor(NOW / 3_600_000) * 3600

async function targetOf(dialect: string): Promise<{ target: DatabaseTarget; drop(): Promise<void> }> {
  if (dialect === 'postgres') {
    const schema = await createPgTestSchema('teams_mig')
    return { target: { url: schema.url, file: ':memory:', poolSize: 2 }, drop: schema.drop }
  }
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-teams-mig-'))
  return { target: { file: join(dir, 'chaingate.sqlite') }, drop: async () => rmSync(dir, { recursive: true }) }
}

describeEachDatabase('migration 0810_teams', (_open, dialect) => {
  it('existing accounts become teams of one without losing keys, usage, alerts or requests', async () => {
    const { target, drop } = await targetOf(dialect)
    try {
      const old = await openDatabase({ ...target, migrateTo: '0700_usage_alerts' })
      expect(old.migrated.at(-1)).toBe('0700_usage_alerts')
      for (const [id, email, deleted] of [
        ['acc-a', 'a@example.com', null],
        ['acc-b', 'b@example.com', null],
        ['acc-gone', 'deleted:acc-gone', NOW],
      ] as const)
        await sql`insert into accounts (id, email, plan, created_at, role, deleted_at)
          values (${id}, ${email}, 'free', ${NOW}, 'user', ${deleted})`.execute(old.db)
      await sql`insert into api_keys (id, key, account_id, name, created_at)
        values ('key-a', ${'a'.repeat(32)}, 'acc-a', 'a key', ${NOW})`.execute(old.db)
      await sql`insert into api_key_networks (key_id, network) values ('key-a', 'net-a')`.execute(old.db)
      await sql`insert into usage_hourly (hour, account_id, key_id, network, method, calls, credits, errors)
        values (${HOUR}, 'acc-a', 'key-a', 'net-a', 'eth_call', 3, 240, 0)`.execute(old.db)
      await sql`insert into alert_settings (account_id, credit_thresholds, secret, updated_at)
        values ('acc-a', '80,100', 'whsec', ${NOW})`.execute(old.db)
      await sql`insert into request_log (time, key_id, account_id, network, method, status, latency_ms, credits)
        values (${NOW}, 'key-a', 'acc-a', 'net-a', 'eth_call', 'ok', 5, 80)`.execute(old.db)
      await old.close()

      const opened = await openDatabase(target)
      try {
        expect(opened.migrated).toContain('0810_teams')
        const teams = createTeamsRepository(opened.db)
        const [membership, ...others] = await teams.ofAccount('acc-a')
        expect(others).toEqual([])
        expect(membership).toMatchObject({ role: 'owner', team: { name: 'a@example.com', personal: true } })
        const teamId = membership!.team.id
        expect((await teams.members(teamId)).map((m) => [m.email, m.role])).toEqual([['a@example.com', 'owner']])
        const keys = createKeysRepository(opened.db, { networks: ['net-a'], plans: PLANS })
        expect((await keys.list({ accountId: teamId })).map((k) => [k.id, k.networks])).toEqual([['key-a', ['net-a']]])
        expect(await creditsUsedToday(opened.db, teamId, NOW)).toBe(240)
        const alerts = createAlertSettingsRepository(opened.db, { allowedHosts: null })
        expect((await alerts.get(teamId))?.creditThresholds).toEqual([80, 100])
        expect((await queryRequests(opened.db, { keyId: 'key-a', limit: 10, offset: 0 })).rows).toHaveLength(1)
        // The gateway still serves the key on the team's plan.
        const snapshot = createKeySnapshot(opened.db, {
          plans: PLANS,
          pollMs: 60_000,
          loadSecurity: loadAllKeySecurity,
          onError: (err) => {
            throw err
          },
        })
        await snapshot.reload()
        expect(snapshot.get('a'.repeat(32))).toMatchObject({ accountId: teamId })
        snapshot.stop()
        // Every live account has its team; the deleted one none. New sign-ups keep working.
        expect((await teams.list()).map((t) => t.name)).toEqual(['a@example.com', 'b@example.com'])
        const c = await createAccountsRepository(opened.db, PLANS).create({ email: 'c@example.com', plan: 'free' }, NOW)
        expect((await teams.ofAccount(c.id)).map((m) => m.role)).toEqual(['owner'])
      } finally {
        await opened.close()
      }
    } finally {
      await drop()
    }
  })
})
