import { afterEach, expect, it } from 'vitest'
import type { OpenedDatabase } from '../db/database.ts'
import { describeEachDatabase } from '../../test/support/databases.ts'
import { createUpstreamUsage, NO_UPSTREAM, type UpstreamCall, type UpstreamUsage } from './upstream-usage.ts'
import { dayRange, queryUpstreamUsage } from './upstream-usage-report.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')
const HOUR = 3_600_000
const A = 'https://node-a.example'
const B = 'https://node-b.example'

/** One call for usage.record: an eth_call on `net`, node A, one attempt, 80 credits, at T0, unless `over` says. */
const record = (usage: UpstreamUsage, over: Partial<UpstreamCall> = {}) =>
  usage.record({
    network: 'net',
    upstream: A,
    method: 'eth_call',
    attempts: 1,
    source: undefined,
    credits: 80,
    failed: false,
    now: T0,
    ...over,
  })

describeEachDatabase('upstream usage', (open) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  async function setup() {
    opened = await open()
    const failures: unknown[] = []
    const usage = createUpstreamUsage(opened.db, {
      flushMs: 60_000,
      onError: (err) => failures.push(err),
      served: new Set(['eth_call', 'eth_blockNumber']),
    })
    const rows = async () =>
      (
        await opened!.db
          .selectFrom('usage_upstream_hourly')
          .selectAll()
          .orderBy('hour')
          .orderBy('upstream')
          .orderBy('method')
          .execute()
      ).map((r) => ({
        hour: Number(r.hour),
        network: r.network,
        upstream: r.upstream,
        method: r.method,
        calls: Number(r.calls),
        attempts: Number(r.attempts),
        cache_hits: Number(r.cache_hits),
        dedup_hits: Number(r.dedup_hits),
        credits: Number(r.credits),
        failures: Number(r.failures),
      }))
    return { usage, rows, failures, db: opened.db }
  }

  it('adds up calls, attempts, cache and dedup hits and credits per hour, network, upstream and method', async () => {
    const { usage, rows } = await setup()
    record(usage)
    record(usage, { attempts: 3, now: T0 + 1000 }) // two retries
    record(usage, { attempts: 0, source: 'dedup', now: T0 + 2000 })
    record(usage, { upstream: 'cache', attempts: 0, source: 'cache', now: T0 + 3000 })
    record(usage, { upstream: B, method: 'eth_blockNumber', attempts: 2, now: T0 + HOUR })
    record(usage, { upstream: NO_UPSTREAM, attempts: 3, credits: 0, failed: true, now: T0 + HOUR })
    await usage.flush()
    const h0 = Math.floor(T0 / HOUR) * 3600
    expect(await rows()).toEqual([
      {
        hour: h0,
        network: 'net',
        upstream: 'cache',
        method: 'eth_call',
        calls: 1,
        attempts: 0,
        cache_hits: 1,
        dedup_hits: 0,
        credits: 80,
        failures: 0,
      },
      {
        hour: h0,
        network: 'net',
        upstream: A,
        method: 'eth_call',
        calls: 3,
        attempts: 4,
        cache_hits: 0,
        dedup_hits: 1,
        credits: 240,
        failures: 0,
      },
      {
        hour: h0 + 3600,
        network: 'net',
        upstream: NO_UPSTREAM,
        method: 'eth_call',
        calls: 1,
        attempts: 3,
        cache_hits: 0,
        dedup_hits: 0,
        credits: 0,
        failures: 1,
      },
      {
        hour: h0 + 3600,
        network: 'net',
        upstream: B,
        method: 'eth_blockNumber',
        calls: 1,
        attempts: 2,
        cache_hits: 0,
        dedup_hits: 0,
        credits: 80,
        failures: 0,
      },
    ])
  })

  it('a second flush adds to the stored rows (upsert), and an unserved method name is stored as other', async () => {
    const { usage, rows } = await setup()
    record(usage)
    await usage.flush()
    record(usage, { attempts: 2, now: T0 + 1000 })
    record(usage, { method: 'x'.repeat(10_000), credits: 5, now: T0 + 1000 })
    await usage.flush()
    const r = await rows()
    expect(r.map((x) => [x.method, x.calls, x.attempts, x.credits])).toEqual([
      ['eth_call', 2, 3, 160],
      ['other', 1, 1, 5],
    ])
  })

  it('calls in a row to one label, as the same or other strings (other, a capped name), add to one row', async () => {
    const { usage, rows } = await setup()
    const long = 'n'.repeat(100)
    for (const m of ['eth_foo', 'other', 'eth_foo', 'eth_call', 'eth_call', 'other'])
      record(usage, { method: m, credits: 1 })
    for (const net of [long, long, long.slice(0, 64), `${long}x`])
      record(usage, { network: net, attempts: 2, source: 'dedup', credits: 1 })
    record(usage, { source: 'cache', credits: 1, failed: true, now: T0 + HOUR })
    await usage.flush()
    record(usage, { credits: 1, now: T0 + HOUR })
    await usage.flush()
    const h0 = Math.floor(T0 / HOUR) * 3600
    const got = (await rows()).map((x) => [x.hour, x.network.length, x.method, x.calls, x.attempts, x.dedup_hits])
    expect(got.sort()).toEqual([
      [h0, 3, 'eth_call', 2, 2, 0],
      [h0, 3, 'other', 4, 4, 0],
      [h0, 64, 'eth_call', 4, 8, 4],
      [h0 + 3600, 3, 'eth_call', 2, 2, 0],
    ])
    expect((await rows()).at(-1)).toMatchObject({ cache_hits: 1, failures: 1, credits: 2 })
  })

  it('more distinct rows than one INSERT holds are all written', async () => {
    const { usage, rows } = await setup()
    for (let i = 0; i < 250; i++) record(usage, { upstream: `https://node-${i}.example`, credits: 1 })
    await usage.flush()
    expect((await rows()).length).toBe(250)
  })

  it('stop writes what is left', async () => {
    const { usage, rows } = await setup()
    usage.start()
    record(usage)
    await usage.stop()
    expect((await rows()).map((x) => x.calls)).toEqual([1])
  })

  it('report per upstream over a day: totals, saved upstream requests, largest cost first; by method on request', async () => {
    const { usage } = await setup()
    record(usage)
    record(usage, { method: 'eth_blockNumber', attempts: 0, source: 'dedup' })
    record(usage, { upstream: 'cache', attempts: 0, source: 'cache' })
    record(usage, { upstream: B, attempts: 3 })
    record(usage, { upstream: B, now: T0 + 30 * HOUR }) // the next day
    await usage.flush()
    const report = await queryUpstreamUsage(opened!.db, dayRange('2026-03-01'))
    expect(report.rows.map((r) => [r.upstream, r.calls, r.attempts, r.saved, r.credits])).toEqual([
      [B, 1, 3, 0, 80],
      [A, 2, 1, 1, 160],
      ['cache', 1, 0, 1, 80],
    ])
    expect(report.total).toEqual({
      calls: 4,
      attempts: 4,
      cacheHits: 1,
      dedupHits: 1,
      saved: 2,
      credits: 320,
      failures: 0,
    })
    const byMethod = await queryUpstreamUsage(opened!.db, { ...dayRange('2026-03-01'), byMethod: true })
    expect(
      byMethod.rows
        .filter((r) => r.upstream === A)
        .map((r) => r.method)
        .sort(),
    ).toEqual(['eth_blockNumber', 'eth_call'])
  })

  it('while the database cannot be written at most maxBufferedRows rows are kept; the calls of the others are counted as dropped', async () => {
    opened = await open()
    const failures: unknown[] = []
    const usage = createUpstreamUsage(opened.db, {
      flushMs: 60_000,
      onError: (err) => failures.push(err),
      maxBufferedRows: 3,
    })
    for (let i = 0; i < 5; i++) record(usage, { upstream: `https://node-${i}.example`, credits: 1 })
    record(usage, { upstream: 'https://node-4.example', credits: 1 })
    await opened.db.schema.alterTable('usage_upstream_hourly').renameTo('usage_upstream_moved').execute()
    await usage.flush()
    expect(failures.length).toBe(1)
    expect(usage.droppedCalls).toBe(3) // node-3 (1 call) and node-4 (2 calls)
    await opened.db.schema.alterTable('usage_upstream_moved').renameTo('usage_upstream_hourly').execute()
    await usage.flush()
    const stored = await opened.db
      .selectFrom('usage_upstream_hourly')
      .select(['upstream', 'calls'])
      .orderBy('upstream')
      .execute()
    expect(stored.map((r) => [r.upstream, Number(r.calls)])).toEqual([
      ['https://node-0.example', 1],
      ['https://node-1.example', 1],
      ['https://node-2.example', 1],
    ])
  })

  it('a failed write keeps the rows for the next flush and reports the error', async () => {
    const { usage, rows, failures, db } = await setup()
    record(usage)
    await db.schema.alterTable('usage_upstream_hourly').renameTo('usage_upstream_moved').execute()
    await usage.flush()
    expect(failures.length).toBe(1)
    await db.schema.alterTable('usage_upstream_moved').renameTo('usage_upstream_hourly').execute()
    record(usage)
    await usage.flush()
    expect((await rows()).map((x) => x.calls)).toEqual([2])
  })
})
