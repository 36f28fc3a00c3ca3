/**
 * Two `chaingate start` processes (replicas) on one PostgreSQL and one Redis, as docs/deploy.md sets them up: a
 * revocation by the CLI enforced by both within 1 s (pushed: their poll is a minute apart), credits exact at the
 * daily balance under concurrent clients on both, Redis restarted mid-run (calls go on, pushes resume), and a
 * replica SIGKILLed under load (the other goes on, usage lost at most its flush interval, nothing charged twice).
 * Behind a real balancer (HAProxy: rolling restart, WebSockets, client addresses): scale-out-balancer.test.ts.
 *
 * Redis here is a private `redis-server` on a free port that the test starts, stops and starts again; the
 * machine's Redis and PostgreSQL are never stopped.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { request } from 'undici'
import { startFakeNode, type FakeNode } from '../support/fake-node.ts'
import {
  cleanupProcesses,
  removeDirs,
  runCli,
  sleep,
  startChaingate,
  tempDir,
  waitFor,
  writeConfig,
  type Chaingate,
} from './helpers/process.ts'
import { createPgTestSchema, describeWithServices, type PgTestSchema } from '../support/services.ts'

const BALANCE = 20_000
const FLUSH_MS = 500

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer()
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

/** A private redis-server (no persistence) the test may stop and start again on the same port. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  )
  await waitFor(
    () => spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.includes('PONG'),
    10_000,
    'the private redis-server',
  )
  return child
}
async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((r) => child.once('exit', r))
  child.kill('SIGTERM')
  await exited
}

async function call(
  url: string,
  params: unknown[] = ['0x0000000000000000000000000000000000000001', 'latest'],
): Promise<{ status: number; credits: number }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getBalance', params }),
    headersTimeout: 20_000,
    bodyTimeout: 20_000,
  })
  await res.body.text()
  return { status: res.statusCode, credits: Number(res.headers['x-credits-charged'] ?? 0) }
}

// redis-server and redis-cli: a private Redis the test can stop and start again.
describeWithServices(['postgres', 'redis', 'redis-server', 'redis-cli'], 'replicas on PostgreSQL + Redis', () => {
  const dir = tempDir('chaingate-replicas-')
  const prefix = `test-replicas-${randomBytes(4).toString('hex')}:`
  let schema: PgTestSchema
  let node: FakeNode
  let redis: ChildProcess
  let redisPort: number
  const ports: number[] = []
  const replicas: (Chaingate | undefined)[] = [undefined, undefined]
  let configFile: string
  const cli = (args: string[]) =>
    runCli([...args, '--config', configFile, '--data-dir', join(dir, 'cli')], { timeoutMs: 60_000 })
  const base = (i: number) => `http://127.0.0.1:${ports[i]}`
  const startReplica = async (i: number) => {
    replicas[i] = await startChaingate(
      ['--config', configFile, '--data-dir', join(dir, `replica-${i}`), '--port', String(ports[i])],
      { timeoutMs: 120_000 },
    )
  }
  const newKey = async (plan: string) => {
    const email = `r-${randomBytes(4).toString('hex')}@example.com`
    const a = await cli(['account', 'create', '--email', email, '--plan', plan, '--json'])
    expect(a.code, a.stderr).toBe(0)
    const k = await cli(['key', 'create', '--account', email, '--name', 'k', '--json'])
    expect(k.code, k.stderr).toBe(0)
    return { email, ...(k.json() as { id: string; key: string }) }
  }
  const ledgerCredits = async (email: string) => {
    const u = await cli(['usage', '--account', email, '--json'])
    expect(u.code, u.stderr).toBe(0)
    return (u.json() as { total: { credits: number } }).total.credits
  }
  const path = (key: string) => `/networks/remote/v3/${key}`

  beforeAll(async () => {
    schema = await createPgTestSchema('replicas')
    node = await startFakeNode('0x1')
    redisPort = await freePort()
    redis = await startRedis(redisPort)
    ports.push(await freePort(), await freePort())
    configFile = writeConfig(dir, 'chaingate.yaml', {
      gateway: { host: '127.0.0.1', drainDelayMs: 1500, settingsPushPollMs: 60_000, usageFlushMs: FLUSH_MS },
      networks: [{ name: 'remote', chainId: 1, upstreams: [{ url: node.url }] }],
      plans: {
        tiny: { creditsPerDay: BALANCE, creditsPerSecond: 1_000_000, maxKeys: null },
        big: { creditsPerDay: 1_000_000_000, creditsPerSecond: 1_000_000_000, maxKeys: null },
      },
      database: { url: schema.url },
      redis: { url: `redis://127.0.0.1:${redisPort}`, keyPrefix: prefix, commandTimeoutMs: 300, leaseSyncMs: 200 },
      wallet: { enabled: false },
      log: { requests: false },
    })
    const migrate = await cli(['migrate'])
    expect(migrate.code, migrate.stderr).toBe(0)
    // One after the other: the first creates the dev account (dev@localhost) both print.
    await startReplica(0)
    await startReplica(1)
  }, 300_000)

  afterAll(async () => {
    await cleanupProcesses()
    if (redis) await stopProcess(redis)
    await node?.close()
    await schema?.drop()
    removeDirs([dir])
  }, 120_000)

  it('a key revoked by the CLI is refused by both replicas within 1 s (pushed over Redis; the poll is a minute apart)', async () => {
    const k = await newKey('big')
    for (const i of [0, 1])
      await waitFor(
        async () => (await call(base(i) + path(k.key))).status === 200,
        10_000,
        `replica ${i} serving the new key`,
      )
    const revoked = await cli(['key', 'revoke', k.id])
    expect(revoked.code, revoked.stderr).toBe(0)
    const t0 = Date.now()
    await waitFor(
      async () =>
        (await call(base(0) + path(k.key))).status === 401 && (await call(base(1) + path(k.key))).status === 401,
      5000,
      'both replicas refusing',
      20,
    )
    expect(Date.now() - t0).toBeLessThan(1000)
  }, 120_000)

  it('concurrent clients on both replicas: charged total == daily balance == sum of x-credits-charged == ledger', async () => {
    const k = await newKey('tiny')
    const client = async (i: number) => {
      let charged = 0
      let refusals = 0
      while (refusals < 5) {
        const r = await call(base(i) + path(k.key))
        charged += r.credits
        if (r.status === 402) refusals++
        else {
          expect(r.status).toBe(200)
          refusals = 0
        }
      }
      return charged
    }
    const sums = await Promise.all([0, 1, 0, 1, 0, 1, 0, 1].map(client))
    expect(sums.reduce((a, b) => a + b, 0)).toBe(BALANCE)
    expect(sums.filter((_, i) => i % 2 === 0).reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    expect(sums.filter((_, i) => i % 2 === 1).reduce((a, b) => a + b, 0)).toBeGreaterThan(0)
    await waitFor(async () => (await ledgerCredits(k.email)) === BALANCE, 10_000, 'the ledger reaching the balance')
  }, 180_000)

  it('Redis restarted mid-run: calls on both replicas go on, and pushes resume once it is back', async () => {
    const k = await newKey('big')
    let done = false
    const statuses = new Map<number, number>()
    const clients = [0, 1, 0, 1].map(async (i) => {
      while (!done) {
        const r = await call(base(i) + path(k.key)).catch(() => ({ status: -1, credits: 0 }))
        statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1)
      }
    })
    try {
      await sleep(1000)
      await stopProcess(redis)
      await sleep(3000)
      redis = await startRedis(redisPort)
      await sleep(3000)
    } finally {
      done = true
      await Promise.all(clients)
    }
    // Every call answered 200 (under the insurance share while Redis was down): no error, no refusal.
    expect([...statuses.keys()]).toEqual([200])
    // The subscribers reconnected: a revocation reaches both replicas within a second again.
    const other = await newKey('big')
    for (const i of [0, 1])
      await waitFor(
        async () => (await call(base(i) + path(other.key))).status === 200,
        10_000,
        `replica ${i} serving the new key`,
      )
    const revoked = await cli(['key', 'revoke', other.id])
    expect(revoked.code, revoked.stderr).toBe(0)
    const t0 = Date.now()
    await waitFor(
      async () =>
        (await call(base(0) + path(other.key))).status === 401 &&
        (await call(base(1) + path(other.key))).status === 401,
      5000,
      'both replicas refusing',
      20,
    )
    expect(Date.now() - t0).toBeLessThan(1000)
  }, 180_000)

  it('a replica SIGKILLed under load: the other goes on, usage lost at most its flush interval, nothing charged twice', async () => {
    const k = await newKey('big')
    let done = false
    const answered: { replica: number; at: number; credits: number }[] = []
    const failedOnSurvivor: string[] = []
    const clients = [0, 1, 0, 1].map(async (i) => {
      while (!done) {
        try {
          const r = await call(base(i) + path(k.key))
          if (r.status === 200) answered.push({ replica: i, at: Date.now(), credits: r.credits })
          else if (i === 1) failedOnSurvivor.push(`HTTP ${r.status}`)
        } catch (err) {
          if (i === 1) failedOnSurvivor.push(String((err as Error).message))
          else await sleep(50) // the killed replica refuses connections now
        }
      }
    })
    await sleep(2000)
    const killedAt = Date.now()
    process.kill(replicas[0]!.pid, 'SIGKILL')
    await sleep(2000)
    done = true
    await Promise.all(clients)
    expect(failedOnSurvivor).toEqual([])
    expect(answered.filter((a) => a.replica === 1 && a.at > killedAt).length).toBeGreaterThan(10)

    const answeredTotal = answered.reduce((s, a) => s + a.credits, 0)
    // The survivor's last flush is in after FLUSH_MS; give the loaded machine a few of them.
    await sleep(FLUSH_MS * 4)
    const ledger = await ledgerCredits(k.email)
    // Never more than the answers said (nothing counted twice) …
    expect(ledger).toBeLessThanOrEqual(answeredTotal)
    // … and what is missing is at most what the killed replica answered in its last flush interval (one more
    // interval of slack: a flush in progress when the kill came).
    const lastInterval = answered
      .filter((a) => a.replica === 0 && a.at > killedAt - 2 * FLUSH_MS)
      .reduce((s, a) => s + a.credits, 0)
    expect(answeredTotal - ledger).toBeLessThanOrEqual(lastInterval)
  }, 180_000)
})
