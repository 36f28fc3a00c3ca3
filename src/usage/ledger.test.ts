import { afterEach, expect, it } from 'vitest'
import { sql } from 'kysely'
import type { OpenedDatabase } from '../db/database.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import { createUsageLedger, loadTodayUsage, type UsageWriter } from './ledger.ts'
import { usageWriterFor } from './writers.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')
const HOUR = 3_600_000
const rec = (over: Record<string, unknown> = {}) => ({
  accountId: 'acc',
  keyId: 'k1',
  network: 'net-a',
  method: 'eth_call',
  calls: 1,
  credits: 80,
  errors: 0,
  ...over,
})

describeEachDatabase('usage ledger', (open) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  async function setup(opts: { writer?: (real: UsageWriter) => UsageWriter; maxBufferedRows?: number } = {}) {
    opened = await open()
    const db = opened.db
    const failures: unknown[] = []
    const real = usageWriterFor(opened)
    const ledger = createUsageLedger(
      opts.writer ? opts.writer(real) : real,
      60_000,
      (err) => failures.push(err),
      undefined,
      opts.maxBufferedRows,
    )
    const usage = () =>
      db
        .selectFrom('usage_hourly')
        .select(['hour', 'account_id', 'key_id', 'network', 'method', 'calls', 'credits', 'errors'])
        .orderBy('hour')
        .orderBy('key_id')
        .orderBy('network')
        .orderBy('method')
        .execute()
    const errs = () =>
      db
        .selectFrom('usage_errors')
        .select(['hour', 'key_id', 'network', 'error', 'count'])
        .orderBy('hour')
        .orderBy('error')
        .execute()
    return { ledger, usage, errs, failures, db }
  }

  it('adds up calls per hour, key, network and method, and writes them on flush', async () => {
    const { ledger, usage, errs } = await setup()
    ledger.record(rec(), T0)
    ledger.record(rec(), T0 + 1000)
    ledger.record(rec({ method: 'eth_chainId', credits: 0, errors: 1, errorKind: 'http:503' }), T0)
    ledger.record(rec({ network: 'net-b' }), T0)
    ledger.record(rec({ keyId: 'k2' }), T0)
    ledger.record(rec(), T0 + HOUR)
    expect(await usage()).toEqual([])
    await ledger.flush()
    const h0 = Math.floor(T0 / HOUR) * 3600
    expect(await usage()).toEqual([
      {
        hour: h0,
        account_id: 'acc',
        key_id: 'k1',
        network: 'net-a',
        method: 'eth_call',
        calls: 2,
        credits: 160,
        errors: 0,
      },
      {
        hour: h0,
        account_id: 'acc',
        key_id: 'k1',
        network: 'net-a',
        method: 'eth_chainId',
        calls: 1,
        credits: 0,
        errors: 1,
      },
      {
        hour: h0,
        account_id: 'acc',
        key_id: 'k1',
        network: 'net-b',
        method: 'eth_call',
        calls: 1,
        credits: 80,
        errors: 0,
      },
      {
        hour: h0,
        account_id: 'acc',
        key_id: 'k2',
        network: 'net-a',
        method: 'eth_call',
        calls: 1,
        credits: 80,
        errors: 0,
      },
      {
        hour: h0 + 3600,
        account_id: 'acc',
        key_id: 'k1',
        network: 'net-a',
        method: 'eth_call',
        calls: 1,
        credits: 80,
        errors: 0,
      },
    ])
    expect(await errs()).toEqual([{ hour: h0, key_id: 'k1', network: 'net-a', error: 'http:503', count: 1 }])
    // A second flush adds to the stored rows.
    ledger.record(rec(), T0)
    ledger.record(rec({ errorKind: 'http:503', errors: 1 }), T0)
    await ledger.flush()
    expect((await usage())[0]).toMatchObject({ calls: 4, credits: 320, errors: 1 })
    expect(await errs()).toEqual([{ hour: h0, key_id: 'k1', network: 'net-a', error: 'http:503', count: 2 }])
    const today = await loadTodayUsage(opened!.db, T0)
    expect(today.accounts.get('acc')).toBe(560) // 400 + 160, both hours are today
    expect(today.keys.get('k2')).toBe(80)
  })

  it('security: stores methods it does not serve as "other" and caps every label', async () => {
    const { ledger, usage, errs } = await setup()
    const huge = `eth_${'x'.repeat(1 << 20)}`
    for (let i = 0; i < 10; i++)
      ledger.record(rec({ method: `${huge}${i}`, credits: 5, errors: 1, errorKind: `rpc:${'9'.repeat(1000)}${i}` }), T0)
    ledger.record(rec({ method: 'eth_whatever', network: 'n'.repeat(500) }), T0)
    ledger.record(rec({ method: '(invalid)' }), T0)
    await ledger.flush()
    const rows = (await usage()) as { network: string; method: string; calls: number }[]
    expect(rows.map((r) => [r.network.length, r.method, r.calls])).toEqual([
      [5, '(invalid)', 1],
      [5, 'other', 10],
      [64, 'other', 1],
    ])
    const e = (await errs()) as { error: string; count: number }[]
    expect(e).toHaveLength(1)
    expect(e[0]!.error).toHaveLength(64)
    expect(e[0]!.count).toBe(10)
  })

  it('calls in a row to one label, as the same or other strings (other, a capped name), add to one row', async () => {
    const { ledger, usage } = await setup()
    const long = 'n'.repeat(100)
    for (const method of ['eth_foo', 'other', 'eth_foo', 'eth_call', 'eth_call', 'other'])
      ledger.record(rec({ method }), T0)
    for (const network of [long, long, long.slice(0, 64), `${long}x`]) ledger.record(rec({ network }), T0)
    ledger.record(rec({ keyId: 'k2' }), T0)
    ledger.record(rec(), T0)
    await ledger.flush()
    ledger.record(rec(), T0)
    await ledger.flush()
    const rows = (await usage()) as { key_id: string; network: string; method: string; calls: number }[]
    expect(rows.map((r) => [r.key_id, r.network.length, r.method, r.calls])).toEqual([
      ['k1', 5, 'eth_call', 4],
      ['k1', 5, 'other', 4],
      ['k1', 64, 'eth_call', 4],
      ['k2', 5, 'eth_call', 1],
    ])
  })

  it('keeps the numbers when a write fails and writes them with the next flush', async () => {
    // The error table is missing for a moment, so the whole transaction fails.
    const { ledger, usage, failures, db } = await setup()
    ledger.record(rec(), T0)
    ledger.record(rec({ errorKind: 'rpc:-32000', errors: 1 }), T0)
    await sql`alter table usage_errors rename to usage_errors_away`.execute(db)
    await ledger.flush()
    expect(failures).toHaveLength(1)
    expect(await usage()).toEqual([]) // the transaction rolled back
    await sql`alter table usage_errors_away rename to usage_errors`.execute(db)
    ledger.record(rec(), T0)
    await ledger.flush()
    expect(await usage()).toEqual([expect.objectContaining({ calls: 3, credits: 240, errors: 1 })])
  })

  it('holds at most maxBufferedRows distinct rows while writes fail, counts the dropped calls, and writes the held ones when the database is back', async () => {
    let down = true
    const { ledger, usage, failures } = await setup({
      maxBufferedRows: 3,
      writer: (real) => ({
        write: (u, e) => {
          if (down) throw new Error('database unreachable')
          return real.write(u, e)
        },
      }),
    })
    for (const method of ['eth_call', 'eth_chainId', 'eth_blockNumber']) ledger.record(rec({ method }), T0)
    await ledger.flush()
    expect(failures).toHaveLength(1)
    expect(ledger.health!()).toMatchObject({
      ok: false,
      bufferedRows: 3,
      droppedCalls: 0,
      lastError: 'database unreachable',
    })
    ledger.record(rec({ method: 'eth_call' }), T0) // an existing row still adds up
    ledger.record(rec({ method: 'eth_getBalance' }), T0) // a fourth row does not fit
    ledger.record(rec({ method: 'eth_gasPrice' }), T0)
    expect(ledger.health!()).toMatchObject({ bufferedRows: 3, droppedCalls: 2 })
    await ledger.flush()
    expect(failures).toHaveLength(1) // an outage is reported once, not on every flush
    expect(ledger.health!()).toMatchObject({ bufferedRows: 3, droppedCalls: 2 }) // the held rows came back once each
    const failuresBefore = failures.length
    await ledger.stop() // still down: stopping says what it could not write
    expect(failures).toHaveLength(failuresBefore + 1)
    expect(String(failures.at(-1))).toMatch(/stopping with 3 usage rows not written/)
    down = false
    await ledger.flush()
    expect(ledger.health!()).toMatchObject({ ok: true, bufferedRows: 0, droppedCalls: 2 })
    expect(ledger.health!().lastError).toBeUndefined()
    expect((await usage()).map((r) => [r.method, r.calls])).toEqual([
      ['eth_blockNumber', 1],
      ['eth_call', 2],
      ['eth_chainId', 1],
    ])
  })

  it('writes one batch at a time: a flush during a slow write waits, then writes what came meanwhile', async () => {
    let release!: () => void
    const gate = new Promise<void>((r) => (release = r))
    let writes = 0
    const { ledger, usage } = await setup({
      writer: (real) => ({
        write: async (u, e) => {
          if (++writes === 1) await gate
          await real.write(u, e)
        },
      }),
    })
    ledger.record(rec(), T0)
    const first = ledger.flush()
    ledger.record(rec({ credits: 20 }), T0)
    const second = ledger.flush()
    await new Promise((r) => setTimeout(r, 20))
    expect(writes).toBe(1) // the second waits for the first
    release()
    await Promise.all([first, second])
    expect(writes).toBe(2)
    expect(await usage()).toEqual([expect.objectContaining({ calls: 2, credits: 100 })])
  })

  it('counts the rows of a write under way as buffered, and within the bound, until it answers', async () => {
    let fail!: (err: Error) => void
    const { ledger, failures } = await setup({
      maxBufferedRows: 3,
      writer: () => ({ write: () => new Promise<void>((_, reject) => (fail = reject)) }),
    })
    for (const method of ['eth_call', 'eth_chainId']) ledger.record(rec({ method }), T0)
    const flushed = ledger.flush()
    // A scrape during a write that has not answered (a hanging connection) still sees the held rows.
    expect(ledger.health!()).toMatchObject({ ok: true, bufferedRows: 2, droppedCalls: 0 })
    ledger.record(rec({ method: 'eth_blockNumber' }), T0) // the third row fits
    ledger.record(rec({ method: 'eth_getBalance' }), T0) // a fourth does not: the two in the write count
    expect(ledger.health!()).toMatchObject({ bufferedRows: 3, droppedCalls: 1 })
    fail(new Error('connection terminated'))
    await flushed
    expect(failures).toHaveLength(1)
    expect(ledger.health!()).toMatchObject({ ok: false, bufferedRows: 3, droppedCalls: 1 })
  })

  it('writes batches larger than one statement holds (2,500 rows) and adds to rows another writer stored meanwhile', async () => {
    const { ledger, usage, db } = await setup()
    for (let i = 0; i < 2500; i++) ledger.record(rec({ keyId: `k${String(i).padStart(4, '0')}` }), T0)
    await ledger.flush()
    // A second ledger on the same database (another replica) writing the same rows adds to them.
    const other = createUsageLedger(usageWriterFor(opened!), 60_000, () => {})
    for (let i = 0; i < 2500; i++) other.record(rec({ keyId: `k${String(i).padStart(4, '0')}`, credits: 1 }), T0)
    await other.flush()
    const rows = await usage()
    expect(rows).toHaveLength(2500)
    expect(rows.every((r) => r.calls === 2 && r.credits === 81)).toBe(true)
    const total = await db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.sum<number>('credits').as('c'))
      .executeTakeFirstOrThrow()
    expect(Number(total.c)).toBe(2500 * 81)
  })

  it('two replicas writing the same rows in opposite orders at the same time both succeed (no deadlock) and add up', async () => {
    opened = await open()
    const a = usageWriterFor(opened)
    const b = usageWriterFor(opened)
    const h0 = Math.floor(T0 / HOUR) * 3600
    const rows = Array.from({ length: 300 }, (_, i) => ({
      hour: h0,
      accountId: 'acc',
      keyId: `k${String(i).padStart(3, '0')}`,
      network: 'net-a',
      method: 'eth_call',
      calls: 1,
      credits: 80,
      errors: 0,
    }))
    const reversed = [...rows].reverse()
    for (let round = 0; round < 8; round++) await Promise.all([a.write(rows, []), b.write(reversed, [])])
    const total = await opened.db
      .selectFrom('usage_hourly')
      .select((eb) => eb.fn.sum<number>('calls').as('calls'))
      .executeTakeFirstOrThrow()
    expect(Number(total.calls)).toBe(300 * 2 * 8)
  })
})
