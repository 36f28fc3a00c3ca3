import { afterEach, expect, it } from 'vitest'
import type { OpenedDatabase } from '../../db/database.ts'
import { describeEachDatabase } from '../../../test/support/databases.ts'
import { PRUNE_CHUNK } from '../../db/prune.ts'
import { pruneRequests } from './prune.ts'
import { startRequestRetention } from './retention.ts'
import { queryRequests } from './queries.ts'
import { createRequestRecorder, type RequestSource } from './recorder.ts'
import { requestWriterFor } from './writers.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')
const HOUR = 3_600_000
const source = (keyId: string, over: Partial<RequestSource> = {}): RequestSource => ({
  entry: { id: keyId, accountId: `acc-${keyId}` },
  network: { name: 'net' },
  client: { remoteAddress: '10.0.0.7' },
  ...over,
})

describeEachDatabase('request explorer', (open) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  async function setup(bufferRows = 1000, initialRows?: number) {
    opened = await open()
    let now = T0
    const failures: unknown[] = []
    const recorder = createRequestRecorder(requestWriterFor(opened), {
      flushMs: 60_000,
      bufferRows,
      ...(initialRows === undefined ? {} : { initialRows }),
      clock: () => now,
      onError: (err) => failures.push(err),
    })
    return { recorder, db: opened.db, failures, at: (t: number) => (now = t) }
  }

  it('writes every pushed call with its fields; the query pages newest first and filters', async () => {
    const { recorder, db, at } = await setup()
    at(T0 + 25)
    recorder.push(source('k1', { origin: 'https://a.example' }), 'eth_call', undefined, 80, { upstream: 'node-a' }, T0)
    at(T0 + 1000)
    recorder.push(source('k1'), 'eth_chainId', undefined, 0, { upstream: 'cache', source: 'cache' }, T0 + 1000)
    at(T0 + 2000)
    recorder.push(source('k1'), 'eth_getLogs', 'rpc:-32005', 80, { upstream: 'node-b' }, T0 + 1990)
    recorder.refused({ id: 'k1', accountId: 'acc-k1' }, 'net', 'batch', 'http:403', 5)
    recorder.push(source('k2'), 'eth_call', undefined, 80, { upstream: 'node-a', source: 'dedup' }, T0 + 2000)
    expect(recorder.health()).toEqual({ bufferedRows: 5, droppedCalls: 0 })
    await recorder.flush()
    expect(recorder.health()).toEqual({ bufferedRows: 0, droppedCalls: 0 })
    const page = await queryRequests(db, { keyId: 'k1' })
    expect(page.more).toBe(false)
    expect(page.rows.map((r) => [r.method, r.status, r.served, r.client, r.latencyMs, r.credits])).toEqual([
      ['batch', 'http:403', null, null, 0, 5],
      ['eth_getLogs', 'rpc:-32005', 'node-b', '10.0.0.7', 10, 80],
      ['eth_chainId', 'ok', 'cache', '10.0.0.7', 0, 0],
      ['eth_call', 'ok', 'node-a', 'https://a.example', 25, 80],
    ])
    expect(page.rows[3]).toMatchObject({ time: T0 + 25, keyId: 'k1', accountId: 'acc-k1', network: 'net' })
    expect((await queryRequests(db, { keyId: 'k2' })).rows.map((r) => r.served)).toEqual(['dedup'])
    expect((await queryRequests(db, { keyId: 'k1', errorsOnly: true })).rows.map((r) => r.status)).toEqual([
      'http:403',
      'rpc:-32005',
    ])
    expect((await queryRequests(db, { keyId: 'k1', status: '403' })).rows).toHaveLength(1)
    expect((await queryRequests(db, { keyId: 'k1', method: 'eth_chainId' })).rows).toHaveLength(1)
    const first = await queryRequests(db, { keyId: 'k1', limit: 3 })
    expect([first.rows.length, first.more]).toEqual([3, true])
    const second = await queryRequests(db, { keyId: 'k1', limit: 3, offset: 3 })
    expect([second.rows.map((r) => r.method), second.more]).toEqual([['eth_call'], false])
    expect(recorder.takeWrittenKeys()).toEqual(new Set(['k1', 'k2']))
    expect(recorder.takeWrittenKeys()).toEqual(new Set())
  })

  it('caps client-chosen strings (method, status, client) at 64 characters, and only those', async () => {
    const { recorder, db } = await setup()
    const long = `m${'x'.repeat(199)}`
    const key = `k${'y'.repeat(99)}`
    recorder.push(
      source(key, { origin: `https://${'o'.repeat(200)}` }),
      long,
      `rpc:${'9'.repeat(100)}`,
      1,
      {
        upstream: long,
      },
      T0,
    )
    recorder.push(source(key), 'eth_call', undefined, 1, { upstream: 'node-a' }, T0)
    await recorder.flush()
    const rows = (await queryRequests(db, { keyId: key })).rows
    expect(rows.map((r) => [r.method.length, r.status.length, r.client?.length, r.served?.length])).toEqual([
      [8, 2, 8, 6],
      [64, 64, 64, 200],
    ])
    expect(rows[1]!.method).toBe(long.slice(0, 64))
    expect(rows[1]!.keyId).toBe(key)
  })

  it('a full buffer drops the oldest records and counts them; calls never wait', async () => {
    const { recorder, db } = await setup(100)
    for (let i = 0; i < 150; i++) recorder.push(source('k1'), `m${i}`, undefined, 1, undefined, T0)
    expect(recorder.health()).toEqual({ bufferedRows: 100, droppedCalls: 50 })
    await recorder.flush()
    const rows = (await queryRequests(db, { keyId: 'k1', limit: 1000 })).rows
    expect(rows).toHaveLength(100)
    expect(new Set(rows.map((r) => r.method))).toEqual(new Set(Array.from({ length: 100 }, (_, i) => `m${i + 50}`)))
  })

  it('the ring grows while full, keeps the order across its wrap, and drops only past bufferRows', async () => {
    const { recorder, db, at } = await setup(40, 16)
    const push = (from: number, n: number) => {
      for (let i = from; i < from + n; i++) {
        at(T0 + i)
        recorder.push(source('k1'), `m${i}`, undefined, 1, undefined, T0)
      }
    }
    push(0, 10)
    await recorder.flush() // the next records start mid-ring: the first growth moves a wrapped run
    push(10, 30)
    expect(recorder.health()).toEqual({ bufferedRows: 30, droppedCalls: 0 })
    push(40, 25) // past 40: the oldest go
    expect(recorder.health()).toEqual({ bufferedRows: 40, droppedCalls: 15 })
    await recorder.flush()
    const rows = (await queryRequests(db, { keyId: 'k1', limit: 1000 })).rows
    const kept = Array.from({ length: 40 }, (_, i) => `m${i + 25}`)
    expect(rows.map((r) => r.method)).toEqual([...kept.reverse(), ...Array.from({ length: 10 }, (_, i) => `m${9 - i}`)])
    // Every column moved with its record: time and latency were m<i>'s.
    expect(rows.map((r) => [r.time - T0, r.latencyMs])).toEqual(rows.map((r) => [1, 1].map(() => +r.method.slice(1))))
  })

  it('a large batch is written whole, in slices', async () => {
    const { recorder, db } = await setup(5000)
    for (let i = 0; i < 1234; i++) recorder.push(source('k1'), `m${i}`, undefined, 1, undefined, T0)
    await recorder.flush()
    expect(recorder.health()).toEqual({ bufferedRows: 0, droppedCalls: 0 })
    const rows = (await queryRequests(db, { keyId: 'k1', limit: 1000 })).rows
    expect(rows).toHaveLength(1000)
    const count = await db
      .selectFrom('request_log')
      .select((eb) => eb.fn.countAll().as('n'))
      .executeTakeFirstOrThrow()
    expect(Number(count.n)).toBe(1234)
  })

  it("prune: rows past the retention, and beyond each key's newest N, in bounded runs", async () => {
    const { recorder, db, at } = await setup(10_000)
    // k1: 30 old rows (25 h ago) and 40 recent; k2: 5 recent.
    for (let i = 0; i < 30; i++) {
      at(T0 - 25 * HOUR + i)
      recorder.push(source('k1'), 'old', undefined, 1, undefined, T0 - 25 * HOUR)
    }
    for (let i = 0; i < 40; i++) {
      at(T0 + i)
      recorder.push(source('k1'), `new${i}`, undefined, 1, undefined, T0)
    }
    for (let i = 0; i < 5; i++) recorder.push(source('k2'), 'k2', undefined, 1, undefined, T0)
    await recorder.flush()
    const count = async (keyId: string) => (await queryRequests(db, { keyId, limit: 1000 })).rows
    // A run bounded at 20 rows: stops with work left.
    const keys = recorder.takeWrittenKeys()
    const opts = { nowMs: T0 + 100, retentionHours: 24, maxRowsPerKey: 25 }
    const first = await pruneRequests(db, { ...opts, maxRows: 20, keys })
    expect([first.deleted, first.more]).toEqual([20, true])
    const second = await pruneRequests(db, { ...opts, maxRows: 1000, keys: first.keysLeft })
    // The 10 old rows left, then k1's 15 oldest recent ones (40 > 25).
    expect([second.deleted, second.more]).toEqual([25, false])
    const k1 = await count('k1')
    expect(k1).toHaveLength(25)
    expect(k1.map((r) => r.method)).toEqual(Array.from({ length: 25 }, (_, i) => `new${39 - i}`))
    expect(await count('k2')).toHaveLength(5)
    expect(await pruneRequests(db, { ...opts, maxRows: 1000, keys: ['k1', 'k2'] })).toMatchObject({
      deleted: 0,
      more: false,
    })
  })

  it('prune by age reads the oldest rows by insertion order, a chunk at a time; a late old row waits its turn', async () => {
    const { recorder, db, at } = await setup(10_000)
    const write = async (method: string, time: number, n: number) => {
      at(time)
      for (let i = 0; i < n; i++) recorder.push(source('k1'), method, undefined, 1, undefined, time)
      await recorder.flush()
    }
    const count = async (method: string) =>
      Number(
        (
          await db
            .selectFrom('request_log')
            .select((eb) => eb.fn.countAll().as('n'))
            .where('method', '=', method)
            .executeTakeFirstOrThrow()
        ).n,
      )
    await write('old', T0 - 30 * HOUR, 10)
    await write('new', T0, PRUNE_CHUNK)
    await write('late', T0 - 26 * HOUR, 5) // written after newer rows (held back by a slow database)
    const opts = { nowMs: T0, retentionHours: 24, maxRowsPerKey: 100_000, maxRows: 100_000, keys: [] }
    // The first chunk by id holds the 10 old rows and the first new ones: the old go, the run ends there.
    expect(await pruneRequests(db, opts)).toMatchObject({ deleted: 10, more: false })
    expect([await count('old'), await count('new'), await count('late')]).toEqual([0, PRUNE_CHUNK, 5])
    // A chunk of recent rows ahead of it: the late rows stay for now (a run never reads the whole table).
    expect(await pruneRequests(db, opts)).toMatchObject({ deleted: 0, more: false })
    expect(await pruneRequests(db, { ...opts, nowMs: T0 + 25 * HOUR })).toMatchObject({ deleted: PRUNE_CHUNK + 5 })
    expect(await count('late')).toBe(0)
  })

  it('the retention timer prunes what the recorder wrote, a bounded run at a time, until done', async () => {
    const { recorder, db, at } = await setup(10_000)
    for (let i = 0; i < 30; i++) {
      at(T0 - 2 * HOUR + i)
      recorder.push(source('k1'), 'old', undefined, 1, undefined, T0 - 2 * HOUR)
    }
    for (let i = 0; i < 20; i++) {
      at(T0 + i)
      recorder.push(source('k2'), 'new', undefined, 1, undefined, T0)
    }
    await recorder.flush()
    const errors: unknown[] = []
    const retention = startRequestRetention(db, recorder, {
      retentionHours: 1,
      maxRowsPerKey: 5,
      maxRows: 100,
      everyMs: 20,
      clock: () => T0 + 100,
      onError: (err) => errors.push(err),
    })
    const total = async () =>
      Number(
        (
          await db
            .selectFrom('request_log')
            .select((eb) => eb.fn.countAll().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      )
    for (let i = 0; i < 100 && (await total()) > 5; i++) await new Promise((r) => setTimeout(r, 20))
    await retention.stop()
    expect(errors).toEqual([])
    expect((await queryRequests(db, { keyId: 'k1' })).rows).toEqual([])
    expect((await queryRequests(db, { keyId: 'k2' })).rows).toHaveLength(5)
  })
})
