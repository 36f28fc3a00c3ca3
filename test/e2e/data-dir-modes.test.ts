/**
 * The data dir holds every API key, email, password hash and wallet session, so only the user running chaingate
 * may read it: the real app started on a fresh data dir creates it 0700, the database files 0600 and the chain
 * state dir 0700, whatever the umask (POSIX only).
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { openDatabase } from '../../src/db/database.ts'
import { startTestServer, call, type TestServer } from './helpers/server.ts'

const mode = (path: string) => statSync(path).mode & 0o777

let root: string | undefined
let server: TestServer | undefined
afterEach(async () => {
  await server?.stop()
  server = undefined
  if (root) rmSync(root, { recursive: true, force: true })
  root = undefined
})

describe.skipIf(process.platform === 'win32')('data dir file modes', () => {
  test('behavior: a fresh data dir is 0700, chaingate.sqlite and its -wal/-shm 0600, chains/ 0700', async () => {
    root = mkdtempSync(join(tmpdir(), 'chaingate-modes-'))
    chmodSync(root, 0o755)
    const dataDir = join(root, 'nested', 'data')
    server = await startTestServer({ dataDir })
    // A charged call makes the ledger write, so the WAL files certainly exist.
    expect((await server.rpc(call('eth_blockNumber'))).status).toBe(200)
    await new Promise((r) => setTimeout(r, 300))
    expect(mode(dataDir).toString(8)).toBe('700')
    for (const f of ['chaingate.sqlite', 'chaingate.sqlite-wal', 'chaingate.sqlite-shm'])
      expect([f, mode(join(dataDir, f)).toString(8)]).toEqual([f, '600'])
    expect(mode(join(dataDir, 'chains')).toString(8)).toBe('700')
  })

  test('behavior: an existing world-readable data dir and database from an older version are tightened on open', async () => {
    root = mkdtempSync(join(tmpdir(), 'chaingate-modes-'))
    const dataDir = join(root, 'data')
    mkdirSync(dataDir)
    chmodSync(dataDir, 0o755)
    const file = join(dataDir, 'chaingate.sqlite')
    writeFileSync(file, '')
    chmodSync(file, 0o644)
    const opened = await openDatabase(file)
    try {
      expect(mode(dataDir).toString(8)).toBe('700')
      expect(mode(file).toString(8)).toBe('600')
    } finally {
      await opened.close()
    }
  })

  test('behavior: a shared (sticky, world-writable) folder such as /tmp is never made private, only the database file', async () => {
    root = mkdtempSync(join(tmpdir(), 'chaingate-modes-'))
    chmodSync(root, 0o1777)
    const file = join(root, 'chaingate.sqlite')
    const opened = await openDatabase(file)
    try {
      expect(mode(root).toString(8)).toBe('777')
      expect(statSync(root).mode & 0o1000).toBe(0o1000)
      expect(mode(file).toString(8)).toBe('600')
    } finally {
      await opened.close()
    }
  })
})
