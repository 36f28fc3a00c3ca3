/**
 * The request explorer's column list (src/db/request-log-columns.ts) agrees with the table the migrations make, on
 * every engine: the same columns in the same order, nullable where the list says null is a value, integers where it
 * says numbers. A call whose every field differs from a fresh row's, and a refusal, are stored and read back whole by
 * each writer (the SQLite file's through its worker thread), so the recorder takes every column and the INSERTs and the
 * query name them all.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, expect, it } from 'vitest'
import { describeEachDatabase } from '../../../test/support/databases.ts'
import { type OpenedDatabase, openDatabase } from '../../db/database.ts'
import { REQUEST_COLUMN_NAMES, REQUEST_COLUMNS, type RequestRow } from '../../db/request-log-columns.ts'
import { queryRequests } from './queries.ts'
import { createRequestRecorder } from './recorder.ts'
import { requestWriterFor } from './writers.ts'

const T0 = Date.parse('2026-03-01T10:15:00Z')

/** Records one call with every field set (none '', 0 or null) through `opened`'s writer, and reads it back. */
async function roundTrip(opened: OpenedDatabase) {
  const recorder = createRequestRecorder(requestWriterFor(opened), {
    flushMs: 60_000,
    bufferRows: 10,
    clock: () => T0 + 42,
    onError: (err) => {
      throw err
    },
  })
  recorder.push(
    { entry: { id: 'key-1', accountId: 'acc-1' }, network: { name: 'net-1' }, origin: 'https://a.example' },
    'eth_call',
    'rpc:-32000',
    80,
    { upstream: 'node-a' },
    T0,
  )
  recorder.refused({ id: 'key-2', accountId: 'acc-2' }, 'net-2', 'eth_getLogs', 'http:429', 5)
  await recorder.stop()
  expect(recorder.health()).toEqual({ bufferedRows: 0, droppedCalls: 0 })
  const expected: RequestRow = {
    time: T0 + 42,
    keyId: 'key-1',
    accountId: 'acc-1',
    network: 'net-1',
    method: 'eth_call',
    status: 'rpc:-32000',
    latencyMs: 42,
    credits: 80,
    served: 'node-a',
    client: 'https://a.example',
  }
  expect(Object.keys(expected)).toEqual(REQUEST_COLUMNS.map((c) => c.field))
  expect((await queryRequests(opened.db, { keyId: 'key-1' })).rows).toEqual([expected])
  // A refusal: taken before the call ran, so no latency, no node and no client.
  expect((await queryRequests(opened.db, { keyId: 'key-2' })).rows).toEqual([
    {
      time: T0 + 42,
      keyId: 'key-2',
      accountId: 'acc-2',
      network: 'net-2',
      method: 'eth_getLogs',
      status: 'http:429',
      latencyMs: 0,
      credits: 5,
      served: null,
      client: null,
    } satisfies RequestRow,
  ])
  const stored = (await sql<Record<string, unknown>>`select * from request_log`.execute(opened.db)).rows
  expect(stored).toHaveLength(2)
  expect(Object.keys(stored[0]!)).toEqual(['id', ...REQUEST_COLUMN_NAMES])
}

describeEachDatabase('request_log and the column list', (open, dialect) => {
  let opened: OpenedDatabase | undefined
  afterEach(async () => {
    await opened?.close()
    opened = undefined
  })

  it("the migrated table has the list's columns, in its order, with its types and nullability", async () => {
    opened = await open()
    const tables = await opened.db.introspection.getTables()
    const table = tables.find((t) => t.name === 'request_log')
    expect(table).toBeDefined()
    const columns = table!.columns.map((c) => ({
      name: c.name,
      int: /int/i.test(c.dataType),
      text: /text/i.test(c.dataType),
      nullable: c.isNullable,
    }))
    expect(columns).toEqual([
      { name: 'id', int: true, text: false, nullable: dialect === 'sqlite' }, // SQLite: the rowid's alias
      ...REQUEST_COLUMNS.map((c) => ({
        name: c.name,
        int: c.type === 'int',
        text: c.type !== 'int',
        nullable: c.type === 'text?',
      })),
    ])
  })

  it('a call is stored and read back whole, every column', async () => {
    opened = await open()
    await roundTrip(opened)
  })
})

let dir: string | undefined
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

it('a SQLite file: the worker thread stores a call whole, every column', async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-reqlog-'))
  const opened = await openDatabase(join(dir, 'chaingate.db'))
  try {
    expect(opened.file).toBeDefined()
    await roundTrip(opened)
  } finally {
    await opened.close()
  }
})
