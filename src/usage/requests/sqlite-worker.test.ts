/**
 * The request explorer on a SQLite file is written by a worker thread with its own connection: what the recorder
 * hands it is stored exactly (nulls, repeated and distinct strings, a batch larger than one statement), and a stop
 * (what SIGTERM runs) writes every buffered record before the thread ends. Its inserts bind a slice's repeated strings
 * once: the rows, their order and their values' types are those of the plain inserts (the in-memory writer's).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { deserialize, serialize } from 'node:v8'
import { sql } from 'kysely'
import { afterEach, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../db/database.ts'
import { queryRequests } from './queries.ts'
import { emptyBatch, type RequestBatch } from './batch.ts'
import { createRequestRecorder } from './recorder.ts'
import { threadFlags } from './sqlite-worker.ts'
import { createSqliteRequestWriter, requestWriterFor } from './writers.ts'

let opened: OpenedDatabase | undefined
let dir: string | undefined
afterEach(async () => {
  await opened?.close()
  if (dir) rmSync(dir, { recursive: true, force: true })
  opened = dir = undefined
})

it('a stop writes every buffered record through the worker thread, exactly, then ends the thread', async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reqlog-'))
  opened = await openDatabase(join(dir, 'chaingate.db'))
  const writer = requestWriterFor(opened)
  expect(opened.file).toBe(join(dir, 'chaingate.db'))
  let now = 1_700_000_000_000
  const recorder = createRequestRecorder(writer, {
    flushMs: 60_000,
    bufferRows: 1000,
    clock: () => now,
    onError: () => {},
  })
  recorder.start()
  const N = 257 // two 100-row statements and 57 single rows
  for (let i = 0; i < N; i++) {
    now += 1
    const entry = { id: `k${i % 3}`, accountId: 'acc' }
    const ctx = { entry, network: { name: 'net' }, client: i % 2 ? { remoteAddress: `10.0.0.${i}` } : undefined }
    recorder.push(
      ctx,
      i % 5 ? 'eth_call' : 'eth_chainId',
      i % 7 ? undefined : 'rpc:-32000',
      i,
      i % 4 ? { upstream: 'a' } : undefined,
      now - 3,
    )
  }
  await recorder.stop()
  expect(recorder.health()).toEqual({ bufferedRows: 0, droppedCalls: 0 })
  const rows = (await queryRequests(opened.db, { keyId: 'k1', limit: 1000 })).rows.reverse()
  expect(rows).toHaveLength(86)
  rows.forEach((r, n) => {
    const i = 1 + 3 * n
    expect(r).toMatchObject({
      time: 1_700_000_000_000 + i + 1,
      keyId: 'k1',
      accountId: 'acc',
      network: 'net',
      method: i % 5 ? 'eth_call' : 'eth_chainId',
      status: i % 7 ? 'ok' : 'rpc:-32000',
      latencyMs: 3,
      credits: i,
      served: i % 4 ? 'a' : null,
      client: i % 2 ? `10.0.0.${i}` : null,
    })
  })
  const all = await opened.db
    .selectFrom('request_log')
    .select((e) => e.fn.countAll().as('n'))
    .executeTakeFirst()
  expect(Number(all!.n)).toBe(N)
  // The thread is gone: a later write fails (and is counted as lost by the recorder), it does not hang.
  expect(() => writer.write(emptyBatch())).toThrow(/writer thread exited/)
})

/** Every column of every row, in insertion order, with each value's SQLite type. */
const stored = async (d: OpenedDatabase) =>
  (
    await sql<Record<string, unknown>>`select id, time, typeof(time) as t_time, key_id, account_id, network, method,
      status, latency_ms, typeof(latency_ms) as t_latency, credits, typeof(credits) as t_credits, served,
      typeof(served) as t_served, client, typeof(client) as t_client from request_log order by id`.execute(d.db)
  ).rows

it('stores what the plain inserts store, row for row, whatever repeats within a slice', async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reqlog-'))
  opened = await openDatabase(join(dir, 'chaingate.db'))
  const plain = await openDatabase(':memory:')
  try {
    let now = 1_700_000_000_000
    const recorders = [requestWriterFor(opened), createSqliteRequestWriter(plain.sqlite!)].map((w) =>
      createRequestRecorder(w, { flushMs: 60_000, bufferRows: 10_000, clock: () => now, onError: () => {} }),
    )
    // Runs of rows alike in every column, in some, in none; nulls that repeat; slices of 100, 10 and 1 rows.
    const patterns: ((i: number) => number)[] = [() => 0, (i) => i % 2, (i) => (i < 150 ? 0 : i), (i) => i]
    for (const [p, pattern] of patterns.entries()) {
      const n = [1234, 257, 300, 123][p]!
      for (let i = 0; i < n; i++) {
        now += i % 3
        const v = pattern(i)
        const ctx = {
          entry: { id: `k${v % 3}`, accountId: v % 4 ? 'acc' : 'acc-2' },
          network: { name: v % 5 ? 'net' : 'net-2' },
          origin: v % 6 ? undefined : 'https://a.example',
          client: v % 7 ? { remoteAddress: `10.0.0.${v % 9}` } : undefined,
        }
        const served =
          v % 8 ? { upstream: `node-${v % 2}` } : v % 16 ? { upstream: 'n', source: 'cache' as const } : undefined
        for (const r of recorders)
          r.push(
            ctx,
            v % 10 ? 'eth_call' : 'eth_chainId',
            v % 11 ? undefined : 'rpc:-32000',
            v % 12,
            served,
            now - (v % 13),
          )
      }
      for (const r of recorders) await r.flush()
    }
    for (const r of recorders) await r.stop()
    const rows = await stored(opened)
    expect(rows).toHaveLength(1234 + 257 + 300 + 123)
    expect(rows).toEqual(await stored(plain))
  } finally {
    await plain.close()
  }
})

it('writes a batch relayed over IPC, whose arrays are views on one shared buffer, and leaves that buffer intact', async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reqlog-'))
  opened = await openDatabase(join(dir, 'chaingate.db'))
  const batches: RequestBatch[] = []
  const capture = createRequestRecorder(
    { write: (b) => void batches.push(b) },
    { flushMs: 60_000, bufferRows: 100, clock: () => 1_700_000_000_000, onError: () => {} },
  )
  for (let i = 0; i < 40; i++)
    capture.push(
      { entry: { id: 'k1', accountId: 'acc' }, network: { name: 'net' } },
      'eth_call',
      undefined,
      i,
      undefined,
      1_700_000_000_000,
    )
  await capture.flush()
  // node:cluster's `advanced` serialization is v8.serialize: typed arrays come back as views on the message's buffer.
  const relayed = deserialize(serialize(batches[0])) as RequestBatch
  const views = [relayed.refs, relayed.nums]
  // Each is a view on a buffer shared with the rest of the message (or, when unaligned, with Node's Buffer pool).
  for (const v of views) expect(v.byteLength).toBeLessThan(v.buffer.byteLength)
  const before = views.map((v) => Array.from(v))
  const writer = requestWriterFor(opened)
  await writer.write(relayed)
  for (const v of views) expect(v.buffer.byteLength).toBeGreaterThan(0) // not detached by the transfer
  expect(views.map((v) => Array.from(v))).toEqual(before)
  const rows = (await queryRequests(opened.db, { keyId: 'k1', limit: 100 })).rows
  expect(rows.map((r) => r.credits).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i))
  await writer.close?.()
})

it("the writer thread keeps only node:sqlite's and the warning flags of its process (a worker refuses V8's, a file -e's)", () => {
  expect(
    threadFlags([
      '--expose-gc',
      '--allow-natives-syntax',
      '--input-type=module',
      '--import',
      'tsx',
      '--experimental-sqlite',
      '--no-warnings',
      '--disable-warning',
      'ExperimentalWarning',
      '--disable-warning=DeprecationWarning',
    ]),
  ).toEqual([
    '--experimental-sqlite',
    '--no-warnings',
    '--disable-warning',
    'ExperimentalWarning',
    '--disable-warning=DeprecationWarning',
  ])
})
