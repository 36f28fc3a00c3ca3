/**
 * How a reload reaches this process: the SIGHUP handler's result file (one at a time, written whole, the request's
 * id or null for a SIGHUP sent by hand), a reload's acknowledgement and its log line.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../observability/logger.ts'
import type { ReloadAck } from '../../redis/reload-channel.ts'
import type { ReloadResult } from './apply.ts'
import {
  logReload,
  processLabel,
  RELOAD_REQUEST_FILE,
  RELOAD_RESULT_FILE,
  reloadOnSighup,
  toAck,
  type ReloadResultFile,
} from './triggers.ts'

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const applied: ReloadResult = {
  ok: true,
  version: 'v2',
  loadedAt: '2026-01-01T00:00:00.000Z',
  changes: ['credits changed (credits.methods.eth_call)'],
}
const refused: ReloadResult = {
  ok: false,
  version: 'v1',
  loadedAt: '2025-12-31T00:00:00.000Z',
  changes: [],
  error: 'gateway.port: cannot change while chaingate runs (restart to apply it); nothing was reloaded',
}

/** A logger whose lines the test reads. */
function capturedLogger() {
  const lines: Record<string, unknown>[] = []
  const out = new Writable({
    write(chunk, _enc, done) {
      lines.push(JSON.parse(chunk.toString()))
      done()
    },
  })
  return { logger: createLogger('info', out), lines }
}

/** Installs the SIGHUP handler on `dir`; removed after the test. */
function onSighup(dir: string, reloadAll: (id: string) => Promise<ReloadAck[]>) {
  const before = new Set(process.listeners('SIGHUP'))
  reloadOnSighup(dir, reloadAll, createLogger('silent'))
  for (const l of process.listeners('SIGHUP'))
    if (!before.has(l)) cleanups.push(() => process.removeListener('SIGHUP', l))
}
async function resultIn(dir: string, check: (f: ReloadResultFile) => boolean): Promise<ReloadResultFile> {
  for (let i = 0; i < 500; i++) {
    try {
      const f = JSON.parse(readFileSync(join(dir, RELOAD_RESULT_FILE), 'utf8')) as ReloadResultFile
      if (check(f)) return f
    } catch {}
    await new Promise((r) => setTimeout(r, 10))
  }
  throw new Error('no result file')
}

describe('reload triggers', () => {
  it("an acknowledgement carries the reload's outcome, its error and warnings only when it has them", () => {
    expect(toAck('id-1', 'host pid 1 (primary)', applied)).toEqual({
      id: 'id-1',
      process: 'host pid 1 (primary)',
      ok: true,
      version: 'v2',
      loadedAt: '2026-01-01T00:00:00.000Z',
      changes: ['credits changed (credits.methods.eth_call)'],
    })
    expect(toAck('id-2', 'p', refused)).toMatchObject({ ok: false, error: refused.error })
    expect(toAck('id-3', 'p', { ...applied, warnings: ['plans: reloading keys: locked'] }).warnings).toEqual([
      'plans: reloading keys: locked',
    ])
    expect(processLabel('worker 2')).toBe(`${hostname()} pid ${process.pid} (worker 2)`)
  })

  it('the log says what changed, or the one line why nothing did', () => {
    const { logger, lines } = capturedLogger()
    logReload(logger, applied)
    logReload(logger, refused)
    expect(lines.map((l) => [l.level, l.msg, l.version])).toEqual([
      [30, 'config reloaded', 'v2'],
      [50, 'config not reloaded: the old config keeps serving', 'v1'],
    ])
    expect(lines[0]!.changes).toEqual(applied.changes)
    expect(lines[1]!.error).toBe(refused.error)
  })

  it('a SIGHUP runs the reload and writes every outcome whole, with the id left by the CLI, or null by hand', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaingate-triggers-'))
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
    let running = 0
    let overlapped = false
    const ids: string[] = []
    onSighup(dir, async (id) => {
      overlapped ||= running > 0
      running++
      ids.push(id)
      await new Promise((r) => setTimeout(r, 20))
      running--
      return [toAck(id, 'primary', applied)]
    })
    process.kill(process.pid, 'SIGHUP')
    const byHand = await resultIn(dir, () => true)
    expect(byHand.id).toBeNull()
    expect(byHand.processes).toEqual([toAck('', 'primary', applied)])

    writeFileSync(join(dir, RELOAD_REQUEST_FILE), 'cli-7\n')
    process.kill(process.pid, 'SIGHUP')
    process.kill(process.pid, 'SIGHUP')
    const fromCli = await resultIn(dir, (f) => f.id === 'cli-7')
    expect(fromCli.processes.map((p) => p.id)).toEqual(['cli-7'])
    await resultIn(dir, () => ids.length === 3)
    expect(ids).toEqual(['', 'cli-7', 'cli-7'])
    expect(overlapped).toBe(false)
    expect(existsSync(join(dir, `${RELOAD_RESULT_FILE}.tmp`))).toBe(false)
  })
})
