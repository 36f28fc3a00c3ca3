import { readFileSync } from 'node:fs'
/**
 * `chaingate start --workers N` as real processes (src/app/cluster): refused without Redis, one anvil per embedded
 * chain
 * however many workers, a change made by the CLI enforced by every worker within 1 s (pushed over Redis pub/sub: the
 * poll is a minute apart here), a SIGKILLed worker replaced while the others serve, SIGUSR2 rolling the workers
 * with no failed call under load (each answered call in the request explorer, written by the primary), and SIGTERM
 * leaving no process behind. Then SIGTERM's drain on one process:
 * /healthz 503 while in-flight calls finish, every one answered and in the usage ledger.
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { request } from 'undici'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import {
  chainProcesses,
  cleanupProcesses,
  processesMatching,
  removeDirs,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
} from './helpers/process.ts'
import { describeWithServices, redisUrl } from '../support/services.ts'
import { openSqlite } from '../../src/db/sqlite-driver.ts'

const dirs: string[] = []
const dataDirs: string[] = []
const nodes: FakeNode[] = []
const newDir = () => {
  const d = tempDir('chaingate-workers-')
  dirs.push(d)
  dataDirs.push(join(d, 'data'))
  return d
}
afterAll(async () => {
  await cleanupProcesses(dataDirs)
  await Promise.all(nodes.map((n) => n.close()))
  removeDirs(dirs)
}, 60_000)

let stage = ''
/** One call on a fresh connection, so node:cluster hands it to the next worker (round robin). */
async function call(
  url: string,
  method = 'eth_chainId',
  params: unknown[] = [],
): Promise<{ status: number; body: string }> {
  const res = await request(url, {
    method: 'POST',
    reset: true,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  }).catch((err: Error) => {
    throw new Error(`${stage}: ${method} ${url.replace(/[0-9a-f]{32}$/, '<key>')}: ${err.message}`)
  })
  return { status: res.statusCode, body: await res.body.text() }
}

/** Calls from `clients` loops until `until` resolves; counts answers by outcome. */
async function load(url: string, clients: number, until: Promise<unknown>) {
  let done = false
  void until.finally(() => (done = true))
  const counts = { ok: 0, failed: [] as string[] }
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!done) {
        try {
          const r = await fetch(url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
          })
          const text = await r.text()
          if (r.status === 200 && text.includes('"result"')) counts.ok++
          else counts.failed.push(`${r.status} ${text.slice(0, 80)}`)
        } catch (err) {
          counts.failed.push(String((err as { cause?: { code?: string } }).cause?.code ?? err))
        }
      }
    }),
  )
  return counts
}

const chaingateMains = (dataDir: string) =>
  processesMatching(`--data-dir ${dataDir}`).filter((p) => p.cmdline.includes('chaingate.mjs'))

describeWithServices(['redis'], 'chaingate start --workers N', () => {
  it('refuses --workers 2 without redis.url, naming the config key, before starting anything', async () => {
    const dir = newDir()
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0 },
      networks: [{ name: 'devnet-a', chainId: 31337, embedded: { port: 0 } }],
      wallet: { enabled: false },
      redis: { url: null },
    })
    const r = await runCli(['start', '--config', file, '--data-dir', join(dir, 'data'), '--workers', '2'], {
      timeoutMs: 60_000,
    })
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('--workers 2 needs Redis')
    expect(r.stderr).toContain('redis.url')
    expect(r.stderr).toContain('CHAINGATE_REDIS_URL')
    expect(chainProcesses(join(dir, 'data'))).toEqual([])
    const bad = await runCli(['start', '--config', file, '--data-dir', join(dir, 'data'), '--workers', 'two'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--workers must be a number')
  }, 120_000)

  it('two workers: one anvil, CLI revocation enforced by every worker within 1 s, a killed worker replaced, SIGUSR2 rolls with no failed call, SIGTERM leaves nothing', async () => {
    const dir = newDir()
    const data = join(dir, 'data')
    const node = await startFakeNode('0x1')
    nodes.push(node)
    const prefix = `test-workers-${randomBytes(4).toString('hex')}:`
    const file = writeConfig(dir, 'chaingate.yaml', {
      // The poll a minute apart: only the push can make the workers see the revocation within a second.
      gateway: { port: 0, settingsPushPollMs: 60_000 },
      networks: [
        { name: 'devnet-a', chainId: 31337, embedded: { port: 0 } },
        { name: 'remote', chainId: 1, upstreams: [{ url: node.url }] },
      ],
      wallet: { enabled: false },
      redis: { url: redisUrl, keyPrefix: prefix },
      log: { requests: false },
    })
    const cg = await startChaingate(['--config', file, '--data-dir', data, '--workers', '2'], { timeoutMs: 120_000 })
    const pids = /workers:\s+2 gateway processes \(pids (\d+), (\d+)\)/.exec(cg.bannerText())
    expect(pids, cg.bannerText()).not.toBeNull()
    const workerPids = [Number(pids![1]), Number(pids![2])]
    // The primary and two workers; the embedded chain runs once (anvil and its guard shell), not per worker.
    expect(
      chaingateMains(data)
        .map((p) => p.pid)
        .sort(),
    ).toEqual([cg.pid, ...workerPids].sort())
    const anvils = chainProcesses(data).filter((p) => !p.cmdline.startsWith('/bin/sh'))
    expect(anvils).toHaveLength(1)
    // The workers run with a smaller young generation (src/app/heap-growth.ts); the primary with V8's default.
    const flagged = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--max-semi-space-size=8')
    expect([cg.pid, ...workerPids].map(flagged)).toEqual([false, true, true])

    const key = cg.banner.devKey
    const base = cg.banner.gatewayUrl
    const devnet = `${base}/networks/devnet-a/v3/${key}`
    stage = 'first calls'
    for (let i = 0; i < 6; i++) expect((await call(devnet)).status).toBe(200)
    stage = 'key create'

    // A key made by the CLI, served by both workers, then revoked by the CLI.
    const created = await runCli([
      'key',
      'create',
      '--config',
      file,
      '--data-dir',
      data,
      '--account',
      'dev@localhost',
      '--name',
      'revoke-me',
      '--json',
    ])
    expect(created.code, created.stderr).toBe(0)
    const other = created.json() as { id: string; key: string }
    const remote = `${base}/networks/remote/v3/${other.key}`
    await waitFor(
      async () => {
        for (let i = 0; i < 4; i++) if ((await call(remote)).status !== 200) return false
        return true
      },
      2000,
      'the new key served by every worker',
    )
    const revoked = runCli(['key', 'revoke', other.id, '--config', file, '--data-dir', data])
    const done = await revoked
    expect(done.code, done.stderr).toBe(0)
    const t0 = Date.now()
    await waitFor(
      async () => {
        // Four fresh connections in a row: both workers refuse the key.
        for (let i = 0; i < 4; i++) if ((await call(remote)).status !== 401) return false
        return true
      },
      5000,
      'every worker refusing the revoked key',
    )
    expect(Date.now() - t0).toBeLessThan(1000)

    // A worker SIGKILLed: the other keeps serving, the primary starts a replacement.
    process.kill(workerPids[0]!, 'SIGKILL')
    stage = 'after SIGKILL'
    for (let i = 0; i < 4; i++) expect((await call(devnet)).status).toBe(200)
    const replaced = await waitFor(
      () => {
        const now = chaingateMains(data)
          .map((p) => p.pid)
          .filter((p) => p !== cg.pid)
        return now.length === 2 && !now.includes(workerPids[0]!) ? now : undefined
      },
      60_000,
      'a replacement worker',
    )
    expect(replaced).toContain(workerPids[1])

    // SIGUSR2 under load: each worker replaced after its successor listens, each drained with connection: close.
    const rolled = (async () => {
      process.kill(cg.pid, 'SIGUSR2')
      await waitFor(
        () => {
          const now = chaingateMains(data)
            .map((p) => p.pid)
            .filter((p) => p !== cg.pid)
          return now.length === 2 && now.every((p) => !replaced.includes(p))
        },
        120_000,
        'both workers replaced by the rolling restart',
        200,
      ).catch((err: Error) => {
        throw new Error(`${err.message}\n${cg.stdout().slice(-4000)}`)
      })
      await sleep(500)
    })()
    const counts = await load(`${base}/networks/remote/v3/${key}`, 6, rolled)
    await rolled
    expect(counts.failed).toEqual([])
    expect(counts.ok).toBeGreaterThan(50)

    const exit = await cg.signal('SIGTERM', 60_000)
    expect(exit.code).toBe(0)
    await waitFor(
      () => chaingateMains(data).length === 0 && chainProcesses(data).length === 0,
      15_000,
      'no worker or chain process left',
    )
    // The workers relayed their request explorer records to the primary, which wrote them (one writer on SQLite):
    // every call answered during the rolling restart is there, written by the old workers as they drained too.
    const db = await openSqlite(join(data, 'chaingate.sqlite')) // node:sqlite where better-sqlite3 is not built
    try {
      const recorded = db
        .prepare(
          "select count(*) as n from request_log where network = 'remote' and method = 'eth_chainId' " +
            "and status = 'ok' and key_id <> ?",
        )
        .get(other.id) as { n: number }
      expect(recorded.n).toBe(counts.ok)
    } finally {
      db.close()
    }
  }, 400_000)

  it('SIGTERM drains one process: /healthz 503 during gateway.drainDelayMs, in-flight calls answered and in the usage ledger, then exit 0', async () => {
    const dir = newDir()
    const data = join(dir, 'data')
    const node = await startFakeNode('0x1')
    nodes.push(node)
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0, drainDelayMs: 1500, usageFlushMs: 60_000 },
      networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
      wallet: { enabled: false },
      log: { requests: false },
    })
    const cg = await startChaingate(['--config', file, '--data-dir', data], { timeoutMs: 90_000 })
    const base = cg.banner.gatewayUrl
    const url = `${base}/networks/remote/v3/${cg.banner.devKey}`
    expect((await request(`${base}/healthz`)).statusCode).toBe(200)
    // Slow answers: the calls are in flight when SIGTERM arrives. The usage flush is a minute apart, so only the
    // final flush at stop can put them in the ledger.
    node.fault({ kind: 'slow', ms: 2500 })
    // Eight different addresses: eight calls the cache and the in-flight dedup cannot answer for the node.
    const address = (i: number) => `0x${String(i + 1).padStart(40, '0')}`
    const inFlight = Array.from({ length: 8 }, (_, i) => call(url, 'eth_getBalance', [address(i), 'latest']))
    await waitFor(
      () => node.requests.filter((r) => r.body?.method === 'eth_getBalance').length === 8,
      10_000,
      'the calls reaching the node',
    )
    const exited = cg.signal('SIGTERM', 60_000)
    await waitFor(
      async () => (await request(`${base}/healthz`)).statusCode === 503,
      1000,
      '/healthz answering 503 draining',
    )
    const answers = await Promise.all(inFlight)
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(200))
    const exit = await exited
    expect(exit.code).toBe(0)
    // The listener is closed now.
    await expect(call(url)).rejects.toThrow()
    const usage = await runCli(['usage', '--config', file, '--data-dir', data, '--json', '--by', 'method'])
    expect(usage.code, usage.stderr).toBe(0)
    const rows = (usage.json() as { rows: { group: string; calls: number }[] }).rows
    expect(rows.find((r) => r.group === 'eth_getBalance')?.calls).toBe(8)
  }, 200_000)

  it('SIGTERM with a call stuck on a node that never answers: the process still exits, after gateway.drainTimeoutMs', async () => {
    const dir = newDir()
    const data = join(dir, 'data')
    const node = await startFakeNode('0x1')
    nodes.push(node)
    const file = writeConfig(dir, 'chaingate.yaml', {
      gateway: { port: 0, drainTimeoutMs: 1500, upstreamTimeoutMs: 120_000 },
      networks: [
        {
          name: 'remote',
          chainId: 1,
          upstreams: [{ url: node.url, timeoutMs: 120_000 }],
          upstreamPolicy: { totalTimeoutMs: 120_000 },
        },
      ],
      wallet: { enabled: false },
      log: { requests: false },
    })
    const cg = await startChaingate(['--config', file, '--data-dir', data], { timeoutMs: 90_000 })
    const url = `${cg.banner.gatewayUrl}/networks/remote/v3/${cg.banner.devKey}`
    node.fault({ kind: 'hang' })
    const stuck = call(url, 'eth_getBalance', ['0x00000000000000000000000000000000000000aa', 'latest']).catch(
      (err: Error) => err,
    )
    await waitFor(
      () => node.requests.some((r) => r.body?.method === 'eth_getBalance'),
      10_000,
      'the call reaching the node',
    )
    const t0 = Date.now()
    const exit = await cg.signal('SIGTERM', 60_000)
    const tookMs = Date.now() - t0
    expect(exit.code).toBe(0)
    expect(tookMs).toBeGreaterThanOrEqual(1400)
    // The stuck call's connection was cut rather than left open: the client sees an error, not an answer.
    expect(await stuck).toBeInstanceOf(Error)
  }, 200_000)
})
