/**
 * `npm run bench:pinned` (part of `npm run bench`): issue 19's pinned comparison. Each measured process gets core 0
 * to itself (`taskset`); anvil and the load generator (wrk, bench/wrk.ts) share core 1. So req/s at saturation is
 * what one core of the measured process serves, and CPU µs per call (from /proc/<pid>/stat, user + system, all its
 * threads, divided by the answered calls) is its cost, undisturbed by the load generator.
 *
 * Targets (BENCH_TARGETS, comma-separated; default all):
 *   anvil    the node itself (moved to core 0 while it is measured);
 *   proxy    bench/minimal-proxy.ts, node:http + an undici Pool: the reference;
 *   gateway  bench/run-chaingate.ts: the gateway alone, as a `--workers` worker runs it (every layer on: key check,
 *            credits, limits, ledger, log line, metrics, cache lookup, dedup), one upstream (this anvil);
 *   start    `chaingate start` with the embedded defaults (two devnet anvils, wallet, dashboard) in one process,
 *            called on devnet-a (its anvils are moved to core 1): what runs beside the gateway costs here.
 * Cases (BENCH_METHODS): uncached (eth_getBalance of a new address each call), chainId (cached eth_chainId),
 * blockNumber (served for the head), overload (uncached at BENCH_OVERLOAD_CONNECTIONS, 256: p99 against the proxy).
 * Settings: BENCH_CONNECTIONS (64), BENCH_DURATION s (8), BENCH_WARMUP s (2), BENCH_ROUNDS (2, order alternates;
 * the best round by req/s is reported), BENCH_WRK_THREADS (1), BENCH_DIST (1: gateway and start run the compiled
 * dist/, as in production: `npm run build` first; otherwise src/ through tsx, whose loader thread adds memory),
 * BENCH_CPU_PROF (a folder: proxy, gateway and start run under `node --cpu-prof` and write their profiles there),
 * BENCH_NODE_ARGS (node flags for proxy, gateway and start, space-separated: `--import ./bench/gc-time.mjs`),
 * BENCH_START_ARGS (more arguments for `chaingate start`, e.g. `--config <file>` with parts turned off).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism, loadavg } from 'node:os'
import { join } from 'node:path'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import {
  alignColumns,
  cpuSeconds,
  descendants,
  envInt,
  fmt,
  loadSettings,
  rpcBody,
  spawnStart,
  spawnTarget,
  stopTargets,
} from './support.ts'
import { autocannonLoad, type Body, hasWrk, type WrkResult, wrk } from './wrk.ts'

const { connections: CONNECTIONS, duration, warmup, rounds } = loadSettings({ connections: 64, duration: 8 })
const OVERLOAD_CONNECTIONS = envInt('BENCH_OVERLOAD_CONNECTIONS', 256)
const THREADS = Math.max(1, envInt('BENCH_WRK_THREADS', 1))
const pick = (env: string, all: string[]) => {
  const asked = (process.env[env] ?? '').split(',').map((s) => s.trim())
  const chosen = all.filter((t) => asked.includes(t))
  return chosen.length > 0 ? chosen : all
}
const TARGETS = pick('BENCH_TARGETS', ['anvil', 'proxy', 'gateway', 'start'])
interface Case {
  name: string
  label: string
  body: Body
  connections: number
}
const ALL_CASES: Case[] = [
  { name: 'uncached', label: 'eth_getBalance, new address', body: { kind: 'newAddress' }, connections: CONNECTIONS },
  {
    name: 'chainId',
    label: 'eth_chainId (cached)',
    body: { kind: 'fixed', body: rpcBody('eth_chainId', []) },
    connections: CONNECTIONS,
  },
  {
    name: 'blockNumber',
    label: 'eth_blockNumber (served)',
    body: { kind: 'fixed', body: rpcBody('eth_blockNumber', []) },
    connections: CONNECTIONS,
  },
  {
    name: 'overload',
    label: `uncached, ${OVERLOAD_CONNECTIONS} connections`,
    body: { kind: 'newAddress' },
    connections: OVERLOAD_CONNECTIONS,
  },
]
const CASES = ALL_CASES.filter((c) =>
  pick('BENCH_METHODS', ['uncached', 'chainId', 'blockNumber', 'overload']).includes(c.name),
)

const WRK = hasWrk()
const LOAD_CORE = '1'
const MEASURED_CORE = '0'
const pin = (pid: number, core: string) =>
  execFileSync('taskset', ['-a', '-cp', core, String(pid)], { stdio: 'ignore' })

const rssMiB = (pid: number) => {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024
  } catch {
    return Number.NaN
  }
}

interface Measurement extends WrkResult {
  cpuUs: number
  rssMiB: number
}

async function measure(url: string, pid: number, c: Case, seconds: number): Promise<Measurement> {
  const before = cpuSeconds(pid)
  const opts = { connections: c.connections, seconds, threads: THREADS, prefix: ['taskset', '-c', LOAD_CORE] }
  const r = WRK ? await wrk(url, c.body, opts) : await autocannonLoad(url, c.body, opts)
  return { ...r, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / r.requests, rssMiB: rssMiB(pid) }
}

async function main(): Promise<void> {
  if (availableParallelism() < 2) throw new Error('the pinned bench needs 2 CPUs')
  if (!WRK)
    console.log(
      'wrk not found: falling back to autocannon in this process (less steady). Install wrk for this bench: ' +
        '`apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk` (macOS).',
    )
  pin(process.pid, LOAD_CORE) // anvil, started next, inherits it
  const anvil = await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
  const stops: (() => Promise<unknown>)[] = [() => stopTargets(), () => anvil.stop()]
  try {
    const prefix = ['taskset', '-c', MEASURED_CORE]
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
    const prof = (name: string) => [
      ...nodeArgs,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', join(process.env.BENCH_CPU_PROF, name)] : []),
    ]
    const targets = new Map<string, { url: string; pid: number }>()
    if (TARGETS.includes('anvil')) targets.set('anvil', { url: anvil.url, pid: anvil.pid })
    if (TARGETS.includes('proxy')) {
      const p = await spawnTarget('minimal-proxy', 'minimal-proxy.ts', [anvil.url], { prefix, execArgv: prof('proxy') })
      targets.set('proxy', { url: p.info.url, pid: p.process.pid! })
    }
    if (TARGETS.includes('gateway')) {
      const g = await spawnTarget('chaingate', 'run-chaingate.ts', [anvil.url], { prefix, execArgv: prof('gateway') })
      targets.set('gateway', { url: g.info.url, pid: g.process.pid! })
    }
    if (TARGETS.includes('start')) {
      const s = await spawnStart({
        prefix,
        execArgv: prof('start'),
        args: (process.env.BENCH_START_ARGS ?? '').split(' ').filter((a) => a !== ''),
      })
      // Its anvils (and their guard shells) go to the load core: only chaingate itself is measured.
      for (const pid of descendants(s.pid)) pin(pid, LOAD_CORE)
      stops.unshift(() => s.stop())
      targets.set('start', s)
    }
    console.log(
      `pinned benchmark: node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; measured process on CPU ${MEASURED_CORE}, ` +
        `anvil + ${WRK ? `wrk (${THREADS} thread)` : 'autocannon'} on CPU ${LOAD_CORE}; ` +
        `${duration} s runs after ${warmup} s warm-up, ${rounds} rounds (order alternates, best kept)`,
    )
    const best = new Map<string, Measurement>()
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse()
      for (const c of CASES)
        for (const name of order) {
          if (c.name === 'overload' && name === 'anvil') continue
          const t = targets.get(name)!
          if (name === 'anvil') pin(anvil.pid, MEASURED_CORE)
          try {
            if (warmup > 0) await measure(t.url, t.pid, c, warmup)
            const m = await measure(t.url, t.pid, c, duration)
            console.log(
              `  round ${round + 1} ${name.padEnd(8)} ${c.label.padEnd(32)} ${fmt(m.rps).padStart(7)} req/s  p50 ` +
                `${fmt(m.p50 / 1000, 2)} ms  p99 ${fmt(m.p99 / 1000, 2)} ms  ${fmt(m.cpuUs, 1)} µs CPU/call  RSS ` +
                `${fmt(m.rssMiB)} MiB` +
                (m.errors + m.non2xx > 0 ? `  (${m.errors} errors, ${m.non2xx} non-2xx)` : ''),
            )
            const key = `${name}|${c.name}`
            if (!best.has(key) || best.get(key)!.rps < m.rps) best.set(key, m)
          } finally {
            if (name === 'anvil') pin(anvil.pid, LOAD_CORE)
          }
        }
    }
    const rows = [
      ['case', 'target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/call', 'RSS MiB', '× proxy req/s', 'p99 / proxy'],
    ]
    for (const c of CASES) {
      const proxy = best.get(`proxy|${c.name}`)
      for (const name of targets.keys()) {
        const m = best.get(`${name}|${c.name}`)
        if (!m) continue
        rows.push([
          c.label,
          name,
          fmt(m.rps),
          fmt(m.p50 / 1000, 2),
          fmt(m.p99 / 1000, 2),
          fmt(m.cpuUs, 1),
          fmt(m.rssMiB),
          proxy ? fmt(m.rps / proxy.rps, 2) : '',
          proxy ? fmt(m.p99 / proxy.p99, 2) : '',
        ])
      }
    }
    console.log('')
    for (const r of alignColumns(rows, 2).cells) console.log(`| ${r.join(' | ')} |`)
  } finally {
    for (const stop of stops) await stop().catch(() => undefined)
  }
}

await main()
