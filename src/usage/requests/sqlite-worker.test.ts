/**
 * The request log on a SQLite file is written by a worker thread with its own connection: what the recorder hands it
 * is stored exactly (nulls, repeated and distinct strings, a batch larger than one statement), and a stop (what
 * SIGTERM runs) writes every buffered record before the thread ends.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it } from 'vitest'
import { openDatabase, type OpenedDatabase } from '../../db/database.ts'
import { queryRequests } from './queries.ts'
import { emptyBatch } from './batch.ts'
import { createRequestRecorder } from './recorder.ts'
import { requestWriterFor } from './writers.ts'

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
