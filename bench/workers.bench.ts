/**
 * `npm run bench:workers`: `chaingate start --workers 2` against `--workers 1` on this machine, the same load, in the
 * same run (docs/deploy.md, sizing). Both run as real `chaingate start` processes on SQLite + Redis (the
 * configuration --workers 2 requires; --workers 1 gets the same, so only the process count differs) in front of one
 * anvil node; the load generator (autocannon) runs in this process. Targets alternate order between rounds; the
 * best round of each is kept.
 *
 * Reported per target: answers/s, p50/p99, the gateway's CPU (primary and workers, in cores), the load
 * generator's CPU (in cores: on a 2-core machine it takes part of what the workers could use), anvil's, Redis's and
 * that of every other program the machine ran meanwhile (a shared machine gives the gateway less), and the ratio w2/w1
 * — plus answers per gateway CPU-second, which says what a core adds where the load generator and
 * the node run elsewhere.
 *
 * Settings: BENCH_CONNECTIONS (64), BENCH_DURATION s (6), BENCH_WARMUP s (2), BENCH_ROUNDS (2), BENCH_REDIS_URL
 * (redis://127.0.0.1:6379), BENCH_METHOD (eth_chainId).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startAnvil, type RunningAnvil } from '../src/upstreams/devnet/anvil.ts'
import {
  alignColumns,
  CLOCK_TICKS,
  cpuSeconds as processCpuSeconds,
  descendants,
  fmt,
  loadSettings,
  postLoad,
  rpcBody,
} from './support.ts'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const {
  connections: CONNECTIONS,
  duration: DURATION,
  warmup: WARMUP,
  rounds: ROUNDS,
} = loadSettings({ connections: 64, duration: 6 })
const REDIS_URL = process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379'
const METHOD = process.env.BENCH_METHOD || 'eth_chainId'
const BODY = rpcBody(METHOD, [])

interface Target {
  workers: number
  child: ChildProcess
  url: string
  dir: string
}

/** CPU seconds of a process and all its descendants (node:cluster workers, tsx's thread included). */
function treeCpuSeconds(pid: number): number {
  return [pid, ...descendants(pid)].reduce((total, p) => total + cpuSeconds(p), 0)
}

/** A process that has ended meanwhile counts for nothing (a sum over a process tree must stay a number). */
const cpuSeconds = (pid: number) => processCpuSeconds(pid, 0)

/** Busy CPU seconds of the whole machine (every core), from /proc/stat. */
function machineBusySeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
  // user nice system idle iowait irq softirq steal: busy = all but idle and iowait
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / CLOCK_TICKS
}

function redisPid(): number | undefined {
  try {
    const info = execFileSync('redis-cli', ['-u', REDIS_URL, 'info', 'server'], { encoding: 'utf8' })
    return Number(/process_id:(\d+)/.exec(info)?.[1]) || undefined
  } catch {
    return undefined
  }
}

async function startTarget(workers: number, anvil: RunningAnvil): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-bench-workers-'))
  const configFile = join(dir, 'chaingate.json')
  writeFileSync(
    configFile,
    JSON.stringify({
      gateway: { port: 0 },
      networks: [{ name: 'bench', chainId: 31337, upstreams: [{ url: anvil.url }] }],
      wallet: { enabled: false },
      redis: { url: REDIS_URL, keyPrefix: `bench-workers-${randomBytes(4).toString('hex')}:` },
      // Request lines stay on (as in production), written to the data dir's log file.
      log: { destination: 'file' },
    }),
  )
  const child = spawn(
    process.execPath,
    [
      join(root, 'bin', 'chaingate.mjs'),
      'start',
      '--config',
      configFile,
      '--data-dir',
      join(dir, 'data'),
      '--workers',
      String(workers),
    ],
    {
      cwd: root,
      env: { ...process.env, CHAINGATE_RUN_SOURCES: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  const deadline = Date.now() + 120_000
  while (!out.includes('Ctrl-C stops everything.') || (workers > 1 && !out.includes('workers:'))) {
    if (child.exitCode !== null || Date.now() > deadline)
      throw new Error(`chaingate --workers ${workers} did not start:\n${out}`)
    await new Promise((r) => setTimeout(r, 100))
  }
  const gateway = /^\s+gateway:\s+(\S+)$/m.exec(out)?.[1]
  const key = /dev API key: (\S+)/.exec(out)?.[1]
  if (!gateway || !key) throw new Error(`no gateway URL or dev key in the banner:\n${out}`)
  return { workers, child, url: `${gateway}/networks/bench/v3/${key}`, dir }
}

async function stopTarget(t: Target): Promise<void> {
  t.child.kill('SIGTERM')
  await new Promise((r) => (t.child.exitCode !== null ? r(undefined) : t.child.once('exit', r)))
  rmSync(t.dir, { recursive: true, force: true })
}

interface Measurement {
  rps: number
  p50: number
  p99: number
  gatewayCores: number
  loadCores: number
  anvilCores: number
  redisCores: number
  /** Everything else the machine ran meanwhile (other programs): what the gateway could not have. */
  otherCores: number
  errors: number
}

async function measure(t: Target, seconds: number, anvilPid: number, redis: number | undefined): Promise<Measurement> {
  const before = {
    gw: treeCpuSeconds(t.child.pid!),
    anvil: cpuSeconds(anvilPid),
    redis: redis ? cpuSeconds(redis) : 0,
    self: process.cpuUsage(),
    machine: machineBusySeconds(),
  }
  const result = await postLoad(t.url, BODY, CONNECTIONS, seconds)
  const self = process.cpuUsage(before.self)
  const machine = machineBusySeconds() - before.machine
  const d = result.duration
  const gatewayCores = (treeCpuSeconds(t.child.pid!) - before.gw) / d
  const loadCores = (self.user + self.system) / 1e6 / d
  const anvilCores = (cpuSeconds(anvilPid) - before.anvil) / d
  const redisCores = redis ? (cpuSeconds(redis) - before.redis) / d : 0
  return {
    rps: result.requests.total / d,
    p50: result.latency.p50,
    p99: result.latency.p99,
    gatewayCores,
    loadCores,
    anvilCores,
    redisCores,
    otherCores: Math.max(0, machine / d - gatewayCores - loadCores - anvilCores - redisCores),
    errors: result.errors + result.non2xx + result.timeouts,
  }
}

async function main(): Promise<void> {
  const anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
  const redis = redisPid()
  const best = new Map<number, Measurement>()
  try {
    console.log(
      `workers benchmark: node ${process.version}, ${availableParallelism()} CPUs, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; ` +
        `${METHOD}, ${CONNECTIONS} connections, ${DURATION} s × ${ROUNDS} rounds (best kept), warm-up ${WARMUP} s`,
    )
    for (let round = 0; round < ROUNDS; round++) {
      for (const workers of round % 2 === 0 ? [1, 2] : [2, 1]) {
        const t = await startTarget(workers, anvil)
        try {
          if (WARMUP > 0) await measure(t, WARMUP, anvil.pid, redis)
          const m = await measure(t, DURATION, anvil.pid, redis)
          console.log(
            `  round ${round + 1} --workers ${workers}: ${fmt(m.rps)}/s (gateway ${fmt(m.gatewayCores, 2)} cores, ` +
              `load generator ${fmt(m.loadCores, 2)}, other programs ${fmt(m.otherCores, 2)}, errors ${m.errors})`,
          )
          if (!best.has(workers) || best.get(workers)!.rps < m.rps) best.set(workers, m)
        } finally {
          await stopTarget(t)
        }
      }
    }
  } finally {
    await anvil.stop()
  }
  const rows = [
    [
      'target',
      'answers/s',
      'p50 ms',
      'p99 ms',
      'gateway cores',
      'load gen cores',
      'anvil cores',
      'redis cores',
      'other programs cores',
      'answers per gateway CPU-s',
      'errors',
    ],
  ]
  for (const [w, m] of [...best.entries()].sort((a, b) => a[0] - b[0]))
    rows.push([
      `--workers ${w}`,
      fmt(m.rps),
      fmt(m.p50),
      fmt(m.p99),
      fmt(m.gatewayCores, 2),
      fmt(m.loadCores, 2),
      fmt(m.anvilCores, 2),
      fmt(m.redisCores, 2),
      fmt(m.otherCores, 2),
      fmt(m.rps / m.gatewayCores),
      String(m.errors),
    ])
  for (const r of alignColumns(rows, 1).cells) console.log(r.join('  '))
  const w1 = best.get(1)
  const w2 = best.get(2)
  if (w1 && w2) {
    console.log(`\nscaling --workers 2 / --workers 1: ${fmt(w2.rps / w1.rps, 2)}× answers/s`)
    console.log(
      `per gateway core: ${fmt(w1.rps / w1.gatewayCores)} answers/s per core with 1 worker, ` +
        `${fmt(w2.rps / w2.gatewayCores)} with 2 ` +
        `(${fmt(w2.rps / w2.gatewayCores / (w1.rps / w1.gatewayCores), 2)}× per core; the rest of the machine went ` +
        `to the load generator ${fmt(w2.loadCores, 2)} cores, anvil and Redis)`,
    )
  }
}

await main()
