/**
 * Approvals against a real SQLite wallet database: a connection's abort signal cancels what still waits, and
 * answered requests leave nothing behind on it (a dapp may ask many times over one connection).
 */
import { getEventListeners } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { type OpenedDatabase, openDatabase } from '../db/database.ts'
import { createApprovals, MAX_PENDING_PER_PAIRING } from './approvals.ts'
import { createConnectionRegistry } from './connections.ts'
import { createWalletRepository } from './repository.ts'

let dir: string
let opened: OpenedDatabase

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'chaingate-approvals-'))
  opened = await openDatabase(join(dir, 'chaingate.sqlite'))
})
afterAll(async () => {
  await opened?.close()
  rmSync(dir, { recursive: true, force: true })
})

const newApprovals = () =>
  createApprovals({
    repository: createWalletRepository(opened.db),
    clock: { now: () => Date.now() },
    logger: pino({ level: 'silent' }),
    timeoutMs: 60_000,
  })
const asker = { origin: 'https://dapp.example', pairing: 'p1' }

test('answered requests leave no listener on the connection signal; an open one is cancelled when it aborts', async () => {
  const approvals = newApprovals()
  const connection = new AbortController()
  for (let i = 0; i < 15; i++) {
    const outcome = approvals.request(asker, 'personal_sign', { i }, connection.signal)
    await expect.poll(() => approvals.pendingIds().length).toBe(1)
    const [id] = approvals.pendingIds()
    expect(await approvals.decide(id!, i % 2 === 0, { i }, 'console')).toBe(true)
    if (i % 2 === 0) expect(await outcome).toEqual({ decision: { i }, by: 'console' })
    else await expect(outcome).rejects.toMatchObject({ code: 4001 })
  }
  expect(getEventListeners(connection.signal, 'abort')).toHaveLength(0)

  const waiting = approvals.request(asker, 'personal_sign', { last: true }, connection.signal)
  await expect.poll(() => approvals.pendingIds().length).toBe(1)
  expect(getEventListeners(connection.signal, 'abort')).toHaveLength(1)
  connection.abort()
  await expect(waiting).rejects.toMatchObject({ code: 4001 })
  expect(approvals.pendingIds()).toEqual([])
})

test('a connection may hold its pairing cap of waiting requests with no listener-leak warning; closing cancels all', async () => {
  const warnings: string[] = []
  const onWarning = (w: Error) => warnings.push(w.name)
  process.on('warning', onWarning)
  try {
    const approvals = newApprovals()
    const conn = createConnectionRegistry().open('https://dapp.example', () => {})
    const who = { origin: conn.origin, pairing: conn.pairing }
    const waiting = Array.from({ length: MAX_PENDING_PER_PAIRING }, (_, i) =>
      approvals.request(who, 'personal_sign', { i }, conn.closed.signal),
    )
    await expect.poll(() => approvals.pendingIds().length).toBe(MAX_PENDING_PER_PAIRING)
    await expect(approvals.request(who, 'personal_sign', {}, conn.closed.signal)).rejects.toMatchObject({
      code: -32005,
    })
    conn.closed.abort()
    for (const w of waiting) await expect(w).rejects.toMatchObject({ code: 4001 })
    await new Promise((r) => setImmediate(r)) // warnings are emitted on a later tick
    expect(warnings).not.toContain('MaxListenersExceededWarning')
  } finally {
    process.off('warning', onWarning)
  }
})
