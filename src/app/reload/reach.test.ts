/**
 * Reaching every process with a reload, without a cluster: over the real Redis, two listeners stand for two
 * replicas; through the data dir, this test process is the one holding the lock (its SIGHUP handler is
 * ./triggers.ts's, answering through the result file as `chaingate start` does).
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../observability/logger.ts'
import { listenForReloads, type ReloadAck, type ReloadListener } from '../../redis/reload-channel.ts'
import { everywhere, LOCK_FILE, reloadOverRedis, reloadThroughDataDir } from './reach.ts'
import { RELOAD_REQUEST_FILE, reloadOnSighup } from './triggers.ts'

const REDIS = 'redis://127.0.0.1:6379'
const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})
const ack = (id: string, process: string, ok = true): ReloadAck => ({
  id,
  process,
  ok,
  version: ok ? 'v2' : 'v1',
  loadedAt: '2026-01-01T00:00:00.000Z',
  changes: ok ? ['credits changed (credits.methods.eth_call)'] : [],
  ...(ok
    ? {}
    : { error: 'gateway.port: cannot change while chaingate runs (restart to apply it); nothing was reloaded' }),
})
function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-reach-'))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('everywhere', () => {
  it('ok only when every process expected answered, and every one applied it', () => {
    expect(everywhere([ack('i', 'a'), ack('i', 'b')], 2).ok).toBe(true)
    expect(everywhere([ack('i', 'a')], 2).ok).toBe(false)
    expect(everywhere([ack('i', 'a'), ack('i', 'b', false)], 2).ok).toBe(false)
    expect(everywhere([], 0).ok).toBe(false)
  })
})

describe('reload over Redis', () => {
  /** A replica listening under `prefix`; `ok` false answers as a process that refused the reload. */
  async function replica(prefix: string, name: string, ok = true) {
    const seen: string[] = []
    const l: ReloadListener = listenForReloads({
      url: REDIS,
      keyPrefix: prefix,
      reload: async (id) => {
        seen.push(id)
        return ack(id, name, ok)
      },
      onError: () => undefined,
    })
    cleanups.push(() => l.close())
    await l.ready
    return seen
  }
  const prefix = () => `test-reach-${randomBytes(4).toString('hex')}:`

  it('reaches every replica listening under the key prefix, and none of another', async () => {
    const p = prefix()
    const [a, b, other] = [await replica(p, 'a'), await replica(p, 'b'), await replica(prefix(), 'other')]
    const r = await reloadOverRedis({ url: REDIS, keyPrefix: p }, 'req-1', () => expect.fail('Redis is up'))
    expect(r?.ok).toBe(true)
    expect(r?.expected).toBe(2)
    expect(r?.processes.map((x) => x.process).sort()).toEqual(['a', 'b'])
    expect(r?.processes.every((x) => x.id === 'req-1' && typeof x.afterMs === 'number')).toBe(true)
    expect([a, b, other]).toEqual([['req-1'], ['req-1'], []])
  })

  it('one replica that refused makes the whole outcome not ok, with its error', async () => {
    const p = prefix()
    await replica(p, 'a')
    await replica(p, 'b', false)
    const r = await reloadOverRedis({ url: REDIS, keyPrefix: p }, 'req-2', () => expect.fail('Redis is up'))
    expect(r?.ok).toBe(false)
    expect(r?.processes.find((x) => x.process === 'b')?.error).toMatch(/^gateway\.port: /)
  })

  it('nobody listening, or Redis unreachable: undefined, so the caller falls back to the data dir', async () => {
    const unreachable: string[] = []
    expect(await reloadOverRedis({ url: REDIS, keyPrefix: prefix() }, 'req-3', (m) => unreachable.push(m))).toBe(
      undefined,
    )
    expect(unreachable).toEqual([])
    expect(
      await reloadOverRedis({ url: 'redis://127.0.0.1:1', keyPrefix: prefix() }, 'req-4', (m) => unreachable.push(m)),
    ).toBeUndefined()
    expect(unreachable).toHaveLength(1)
    expect(unreachable[0]).toMatch(/ECONNREFUSED|connect/i)
  })
})

describe('reload through the data dir', () => {
  it('SIGHUP to the process holding the lock; its outcomes come back through the result file', async () => {
    const dir = dataDir()
    writeFileSync(join(dir, LOCK_FILE), String(process.pid))
    const before = new Set(process.listeners('SIGHUP'))
    const ids: string[] = []
    reloadOnSighup(
      dir,
      async (id) => {
        ids.push(id)
        return [ack(id, 'primary'), ack(id, 'worker 1')]
      },
      createLogger('silent'),
    )
    for (const l of process.listeners('SIGHUP'))
      if (!before.has(l)) cleanups.push(() => process.removeListener('SIGHUP', l))
    const r = await reloadThroughDataDir(dir, 'req-5')
    expect(typeof r).not.toBe('string')
    const outcome = r as Exclude<typeof r, string>
    expect(outcome.ok).toBe(true)
    expect(outcome.expected).toBe(2)
    expect(outcome.processes.map((p) => [p.process, p.id])).toEqual([
      ['primary', 'req-5'],
      ['worker 1', 'req-5'],
    ])
    expect(ids).toEqual(['req-5'])
    expect(readFileSync(join(dir, RELOAD_REQUEST_FILE), 'utf8')).toBe('req-5\n')
  })

  it('no lock, a lock naming another program, a lock whose process is gone: nothing is signalled, the line says why', async () => {
    const dir = dataDir()
    expect(await reloadThroughDataDir(dir, 'x')).toBe(
      `no chaingate runs on the data dir ${dir} (no chaingate.lock); nothing was reloaded`,
    )

    // A pid reused by another program (a stale lock): never signalled (SIGHUP would end `sleep`).
    const sleeper = spawn('sleep', ['30'], { stdio: 'ignore' })
    cleanups.push(() => sleeper.kill('SIGKILL'))
    await new Promise((r) => sleeper.once('spawn', r))
    writeFileSync(join(dir, LOCK_FILE), String(sleeper.pid))
    expect(await reloadThroughDataDir(dir, 'x')).toBe(
      `pid ${sleeper.pid} in ${join(dir, LOCK_FILE)} is not chaingate (a stale lock?); nothing was reloaded`,
    )
    expect(sleeper.exitCode).toBeNull()
    expect(sleeper.signalCode).toBeNull()

    // A process that has exited.
    const gone = spawn('true', [], { stdio: 'ignore' })
    await new Promise((r) => gone.once('exit', r))
    writeFileSync(join(dir, LOCK_FILE), String(gone.pid))
    expect(await reloadThroughDataDir(dir, 'x')).toBe(
      `no chaingate runs on the data dir ${dir} (pid ${gone.pid} is gone); nothing was reloaded`,
    )
  })
})
