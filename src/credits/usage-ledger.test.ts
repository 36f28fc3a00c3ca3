import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../db/database.ts'
import { createUsageLedger, loadTodayUsage } from './usage-ledger.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')
const HOUR = 3_600_000
let opened: OpenedDatabase | undefined
afterEach(async () => {
  await opened?.close()
  opened = undefined
})

async function setup() {
  opened = await openDatabase(':memory:')
  const failures: unknown[] = []
  const ledger = createUsageLedger(opened.sqlite, 60_000, (err) => failures.push(err))
  const usage = () =>
    opened!.sqlite.prepare('select hour, account_id, key_id, network, method, calls, credits, errors from usage_hourly order by hour, key_id, network, method').all()
  const errs = () => opened!.sqlite.prepare('select hour, key_id, network, error, count from usage_errors order by hour, error').all()
  return { ledger, usage, errs, failures, sqlite: opened.sqlite }
}
const rec = (over: Record<string, unknown> = {}) => ({ accountId: 'acc', keyId: 'k1', network: 'net-a', method: 'eth_call', calls: 1, credits: 80, errors: 0, ...over })

describe('usage ledger', () => {
  it('adds up calls per hour, key, network and method, and writes them on flush', async () => {
    const { ledger, usage, errs } = await setup()
    ledger.record(rec(), T0)
    ledger.record(rec(), T0 + 1000)
    ledger.record(rec({ method: 'eth_chainId', credits: 0, errors: 1, errorKind: 'http:503' }), T0)
    ledger.record(rec({ network: 'net-b' }), T0)
    ledger.record(rec({ keyId: 'k2' }), T0)
    ledger.record(rec(), T0 + HOUR)
    expect(usage()).toEqual([])
    ledger.flush()
    const h0 = Math.floor(T0 / HOUR) * 3600
    expect(usage()).toEqual([
      { hour: h0, account_id: 'acc', key_id: 'k1', network: 'net-a', method: 'eth_call', calls: 2, credits: 160, errors: 0 },
      { hour: h0, account_id: 'acc', key_id: 'k1', network: 'net-a', method: 'eth_chainId', calls: 1, credits: 0, errors: 1 },
      { hour: h0, account_id: 'acc', key_id: 'k1', network: 'net-b', method: 'eth_call', calls: 1, credits: 80, errors: 0 },
      { hour: h0, account_id: 'acc', key_id: 'k2', network: 'net-a', method: 'eth_call', calls: 1, credits: 80, errors: 0 },
      { hour: h0 + 3600, account_id: 'acc', key_id: 'k1', network: 'net-a', method: 'eth_call', calls: 1, credits: 80, errors: 0 },
    ])
    expect(errs()).toEqual([{ hour: h0, key_id: 'k1', network: 'net-a', error: 'http:503', count: 1 }])
    // A second flush adds to the stored rows.
    ledger.record(rec(), T0)
    ledger.record(rec({ errorKind: 'http:503', errors: 1 }), T0)
    ledger.flush()
    expect(usage()[0]).toMatchObject({ calls: 4, credits: 320, errors: 1 })
    expect(errs()).toEqual([{ hour: h0, key_id: 'k1', network: 'net-a', error: 'http:503', count: 2 }])
    const today = await loadTodayUsage(opened!.db, T0)
    expect(today.accounts.get('acc')).toBe(560) // 400 + 160, both hours are today
    expect(today.keys.get('k2')).toBe(80)
  })

  it('security: stores methods it does not serve as "other" and caps every label', async () => {
    const { ledger, usage, errs } = await setup()
    const huge = 'eth_' + 'x'.repeat(1 << 20)
    for (let i = 0; i < 10; i++) ledger.record(rec({ method: `${huge}${i}`, credits: 5, errors: 1, errorKind: `rpc:${'9'.repeat(1000)}${i}` }), T0)
    ledger.record(rec({ method: 'eth_whatever', network: 'n'.repeat(500) }), T0)
    ledger.record(rec({ method: '(invalid)' }), T0)
    ledger.flush()
    const rows = usage() as { network: string; method: string; calls: number }[]
    expect(rows.map((r) => [r.network.length, r.method, r.calls])).toEqual([
      [5, '(invalid)', 1],
      [5, 'other', 10],
      [64, 'other', 1],
    ])
    const e = errs() as { error: string; count: number }[]
    expect(e).toHaveLength(1)
    expect(e[0]!.error).toHaveLength(64)
    expect(e[0]!.count).toBe(10)
  })

  it('keeps the numbers when a write fails and writes them with the next flush', async () => {
    // The error table is missing for a moment, so the whole transaction fails.
    const { ledger, usage, failures, sqlite } = await setup()
    ledger.record(rec(), T0)
    ledger.record(rec({ errorKind: 'rpc:-32000', errors: 1 }), T0)
    sqlite.exec('alter table usage_errors rename to usage_errors_away')
    ledger.flush()
    expect(failures).toHaveLength(1)
    expect(usage()).toEqual([]) // the transaction rolled back
    sqlite.exec('alter table usage_errors_away rename to usage_errors')
    ledger.record(rec(), T0)
    ledger.flush()
    expect(usage()).toEqual([expect.objectContaining({ calls: 3, credits: 240, errors: 1 })])
  })
})
