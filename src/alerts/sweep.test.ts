/**
 * The sweep's rules with a clock of its own, on a real database: the refusal rate is the growth of today's refused
 * count (usage_errors 402/429, as the ledger writes it) over the last minute, other errors do not count; credit
 * thresholds compare today's ledger or this process's counter, whichever is larger; a new UTC day fires again.
 */
import { afterEach, expect, it } from 'vitest'
import { createAccountsRepository } from '../accounts/repository.ts'
import type { OpenedDatabase } from '../db/database.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import { createAlertLog } from './log.ts'
import { createAlertSettingsRepository } from './settings.ts'
import { createSweep } from './sweep.ts'

const PLANS = { small: { creditsPerDay: 1000, creditsPerSecond: 100, maxKeys: null } }
const DAY = 86_400_000
const T0 = Date.parse('2026-03-01T23:57:00Z')

describeEachDatabase('usage alerts: the sweep', (open) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  async function setup() {
    opened = await open()
    const db = opened.db
    const account = await createAccountsRepository(db, PLANS).create({ email: 'a@example.com', plan: 'small' }, 1)
    const settings = createAlertSettingsRepository(db, { allowedHosts: null })
    await settings.set(account.id, { creditThresholds: [50], refusalsPerMinute: 5 }, T0)
    let now = T0
    let local = 0
    const sweep = createSweep({
      db,
      settings,
      log: createAlertLog(db),
      plans: PLANS,
      limits: { usedToday: () => local } as never,
      clock: { now: () => now },
      onClaimed: () => {},
    })
    const hour = (t: number) => Math.floor(t / 3_600_000) * 3600
    /** Adds to today's ledger rows as the usage ledger would. */
    const ledger = async (t: number, row: { error?: string; count?: number; credits?: number }) => {
      if (row.error) {
        const n = row.count ?? 1
        const where = { hour: hour(t), account_id: account.id, key_id: 'k', network: 'n', error: row.error }
        const updated = await db
          .updateTable('usage_errors')
          .set((eb) => ({ count: eb('count', '+', n) }))
          .where('hour', '=', where.hour)
          .where('account_id', '=', where.account_id)
          .where('error', '=', where.error)
          .executeTakeFirst()
        if (Number(updated.numUpdatedRows) === 0)
          await db
            .insertInto('usage_errors')
            .values({ ...where, count: n })
            .execute()
      }
      if (row.credits)
        await db
          .insertInto('usage_hourly')
          .values({
            hour: hour(t),
            account_id: account.id,
            key_id: 'k',
            network: 'n',
            method: `m${Math.random()}`,
            calls: 1,
            credits: row.credits,
            errors: 0,
          })
          .execute()
    }
    const run = async (t: number) => {
      now = t
      return (await sweep.run()).map((p) => `${p.type}:${p.threshold}:${p.refusedLastMinute}`)
    }
    return { ledger, run, setLocal: (n: number) => (local = n) }
  }

  it('refusals: the growth over the last minute; other errors do not count; once a day', async () => {
    const s = await setup()
    expect(await s.run(T0)).toEqual([])
    await s.ledger(T0, { error: 'http:402', count: 3 })
    await s.ledger(T0, { error: 'http:400', count: 50 })
    expect(await s.run(T0 + 30_000)).toEqual([]) // 3 in the minute
    expect(await s.run(T0 + 95_000)).toEqual([]) // the 3 are older than a minute: 0
    await s.ledger(T0, { error: 'http:429', count: 5 })
    expect(await s.run(T0 + 100_000)).toEqual(['refusals.threshold:5:5'])
    await s.ledger(T0, { error: 'http:429', count: 50 })
    expect(await s.run(T0 + 110_000)).toEqual([]) // fired today already
  })

  it("credits: the ledger or this process's counter, whichever is larger; a new UTC day fires again", async () => {
    const s = await setup()
    await s.ledger(T0, { credits: 400 })
    expect(await s.run(T0)).toEqual([])
    s.setLocal(500) // this process's own calls, not yet in the ledger
    expect(await s.run(T0 + 1000)).toEqual(['credits.threshold:50:0'])
    expect(await s.run(T0 + 2000)).toEqual([])
    // 00:00 UTC: the ledger's today is empty, the counter starts again.
    s.setLocal(0)
    const tomorrow = Math.ceil(T0 / DAY) * DAY + 1000
    expect(await s.run(tomorrow)).toEqual([])
    await s.ledger(tomorrow, { credits: 600 })
    expect(await s.run(tomorrow + 1000)).toEqual(['credits.threshold:50:0'])
  })
})
