/**
 * `npm run bench:solana-balance` (part of `npm run bench`): issue 27's pinned Solana case, built as the EVM one
 * (bench/pinned.bench.ts): an uncached `getBalance` of a new address each call. Each measured process gets core 0 to
 * itself (`taskset`); the embedded Solana devnet (src/upstreams/devnet/solana/, LiteSVM) and the load generator (wrk,
 * bench/wrk.ts) share core 1. req/s at saturation is what one core of the measured process serves; CPU µs per call
 * (from /proc/<pid>/stat, user + system, all its threads, divided by the answered calls) is its cost.
 *
 * Every request asks the balance of a base58 key no earlier request of the run asked (random 32 bytes; a file of
 * BENCH_KEYS keys written before each run, which wrk's Lua script walks through): neither the cache nor in-flight
 * dedup can answer it, and the key is valid, so the gateway's checks pass and every call reaches the node.
 *
 * Targets (BENCH_TARGETS, comma-separated; default all):
 *   devnet   the node itself (moved to core 0 while it is measured);
 *   proxy    bench/minimal-proxy.ts, node:http + an undici Pool: the reference;
 *   gateway  bench/run-chaingate.ts with one `family: solana` network, the devnet its one upstream: every layer on
 *            (key check, credits, limits, ledger, log line, metrics, cache lookup, dedup).
 * Settings: BENCH_CONNECTIONS (64), BENCH_DURATION s (8), BENCH_WARMUP s (2), BENCH_ROUNDS (2, order alternates; the
 * best round by req/s is reported), BENCH_WRK_THREADS (1), BENCH_KEYS (keys per run, 200,000), BENCH_SLOT_MS (the
 * devnet's slot time, 400), BENCH_DIST (1: the gateway runs the compiled dist/), BENCH_CPU_PROF (a folder: proxy and
 * gateway run under `node --cpu-prof` and write their profiles there), BENCH_NODE_ARGS (node flags for both).
 */
import { randomBytes } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { availableParallelism, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { base58Encode } from '../src/methods/solana/base58.ts'
import { startSolanaDevnet } from '../src/upstreams/devnet/solana/devnet.ts'
import {
  alignColumns,
  cpuSeconds,
  cpuTimes,
  envInt,
  fmt,
  loadSettings,
  post,
  spawnTarget,
  stopTargets,
} from './support.ts'
import { autocannonLoad, type Body, hasWrk, type WrkResult, wrk } from './wrk.ts'

const { connections: CONNECTIONS, duration, warmup, rounds } = loadSettings({ connections: 64, duration: 8 })
const THREADS = Math.max(1, envInt('BENCH_WRK_THREADS', 1))
const KEYS = Math.max(1000, envInt('BENCH_KEYS', 200_000))
const SLOT_MS = Math.max(10, envInt('BENCH_SLOT_MS', 400))
const ALL_TARGETS = ['devnet', 'proxy', 'gateway']
const asked = (process.env.BENCH_TARGETS ?? '').split(',').map((s) => s.trim())
const TARGETS = ALL_TARGETS.some((t) => asked.includes(t)) ? ALL_TARGETS.filter((t) => asked.includes(t)) : ALL_TARGETS

const WRK = hasWrk()
const LOAD_CORE = '1'
const MEASURED_CORE = '0'
const pin = (pid: number, core: string) =>
  execFileSync('taskset', ['-a', '-cp', core, String(pid)], { stdio: 'ignore' })

const BEFORE = '{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["'
const AFTER = '"]}'
const keysDir = mkdtempSync(join(tmpdir(), 'chaingate-solana-keys-'))
let files = 0

/** A file of `count` new base58 public keys (random 32 bytes each), one a line. */
function newKeys(count: number): string {
  const bytes = randomBytes(32 * count)
  const lines: string[] = []
  for (let i = 0; i < count; i++) lines.push(base58Encode(bytes.subarray(32 * i, 32 * i + 32)))
  const file = join(keysDir, `keys-${files++}.txt`)
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

interface Measurement extends WrkResult {
  cpuUs: number
  /** The kernel's part of cpuUs (system time: socket reads and writes). */
  systemShare: number
  /** Share of a core the measured process and the node used over the run. */
  cpuShare: number
  nodeShare: number
  /** More requests than keys: some keys were asked twice. */
  wrapped: boolean
}

async function measure(url: string, pid: number, nodePid: number, seconds: number): Promise<Measurement> {
  const body: Body = { kind: 'eachLine', file: newKeys(KEYS), before: BEFORE, after: AFTER }
  try {
    const before = cpuTimes(pid)
    const nodeBefore = cpuSeconds(nodePid)
    const start = performance.now()
    const opts = { connections: CONNECTIONS, seconds, threads: THREADS, prefix: ['taskset', '-c', LOAD_CORE] }
    const r = WRK ? await wrk(url, body, opts) : await autocannonLoad(url, body, opts)
    const wall = (performance.now() - start) / 1000
    const after = cpuTimes(pid)
    const used = after.user + after.system - before.user - before.system
    return {
      ...r,
      cpuUs: (used * 1e6) / r.requests,
      systemShare: (after.system - before.system) / used,
      cpuShare: used / wall,
      nodeShare: (cpuSeconds(nodePid) - nodeBefore) / wall,
      wrapped: r.requests > KEYS,
    }
  } finally {
    rmSync(body.file, { force: true })
  }
}

/** The same answer from every target for a funded account, and a plain balance (0) for a new key. */
async function check(targets: Map<string, { url: string }>, funded: string): Promise<void> {
  const results = new Map<string, string>()
  for (const [name, t] of targets) {
    for (const key of [funded, base58Encode(randomBytes(32))]) {
      const { status, text } = await post(t.url, `${BEFORE}${key}${AFTER}`)
      const answer = JSON.parse(text) as { result?: { value: number } }
      if (status !== 200 || answer.result === undefined) throw new Error(`${name} answered ${status} ${text}`)
      if (key !== funded && answer.result.value !== 0) throw new Error(`${name}: a new key has a balance: ${text}`)
      if (key === funded) results.set(name, JSON.stringify(answer.result.value))
    }
  }
  if (new Set(results.values()).size !== 1) throw new Error(`targets disagree: ${JSON.stringify([...results])}`)
}

async function main(): Promise<void> {
  if (availableParallelism() < 2) throw new Error('the pinned bench needs 2 CPUs')
  if (!WRK)
    console.log(
      'wrk not found: falling back to autocannon in this process (less steady). Install wrk for this bench: ' +
        '`apt-get install -y wrk` (Debian/Ubuntu) or `brew install wrk` (macOS).',
    )
  pin(process.pid, LOAD_CORE) // the devnet, started next, inherits it
  const devnet = await startSolanaDevnet({ port: 0, slotMs: SLOT_MS })
  pin(devnet.pid, LOAD_CORE)
  try {
    const prefix = ['taskset', '-c', MEASURED_CORE]
    const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
    const prof = (name: string) => [
      ...nodeArgs,
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', join(process.env.BENCH_CPU_PROF, name)] : []),
    ]
    const targets = new Map<string, { url: string; pid: number }>()
    if (TARGETS.includes('devnet')) targets.set('devnet', { url: devnet.url, pid: devnet.pid })
    if (TARGETS.includes('proxy')) {
      const p = await spawnTarget('minimal-proxy', 'minimal-proxy.ts', [devnet.url], {
        prefix,
        execArgv: prof('proxy'),
      })
      targets.set('proxy', { url: p.info.url, pid: p.process.pid! })
    }
    if (TARGETS.includes('gateway')) {
      const networks = [{ name: 'bench', family: 'solana', upstreams: [{ url: devnet.url, wsUrl: devnet.wsUrl }] }]
      const g = await spawnTarget('chaingate', 'run-chaingate.ts', [devnet.url], {
        prefix,
        execArgv: prof('gateway'),
        env: { BENCH_CHAINGATE_CONFIG: JSON.stringify({ networks }) },
      })
      targets.set('gateway', { url: g.info.url, pid: g.process.pid! })
    }
    await check(targets, devnet.accounts[0]!.address)
    console.log(
      `pinned Solana benchmark: node ${process.version}, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}; measured process on CPU ${MEASURED_CORE}, ` +
        `devnet (LiteSVM, ${SLOT_MS} ms slots) + ${WRK ? `wrk (${THREADS} thread)` : 'autocannon'} on CPU ` +
        `${LOAD_CORE}; ${CONNECTIONS} connections, ${duration} s runs after ${warmup} s warm-up, ${rounds} rounds ` +
        '(order alternates, best kept); getBalance of a new key per call',
    )
    const best = new Map<string, Measurement>()
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [...targets.keys()] : [...targets.keys()].reverse()
      for (const name of order) {
        const t = targets.get(name)!
        if (name === 'devnet') pin(devnet.pid, MEASURED_CORE)
        try {
          if (warmup > 0) await measure(t.url, t.pid, devnet.pid, warmup)
          const m = await measure(t.url, t.pid, devnet.pid, duration)
          console.log(
            `  round ${round + 1} ${name.padEnd(8)} ${fmt(m.rps).padStart(7)} req/s  p50 ${fmt(m.p50 / 1000, 2)} ms  ` +
              `p99 ${fmt(m.p99 / 1000, 2)} ms  ${fmt(m.cpuUs, 1)} µs CPU/call (${fmt(m.systemShare * 100)}% kernel)  ` +
              `${fmt(m.cpuShare * 100)}% of a core` +
              (name === 'devnet' ? '' : `  (devnet ${fmt(m.nodeShare * 100)}%)`) +
              (m.errors + m.non2xx > 0 ? `  (${m.errors} errors, ${m.non2xx} non-2xx)` : '') +
              (m.wrapped ? `  (more calls than BENCH_KEYS=${KEYS}: keys reused)` : ''),
          )
          if (!best.has(name) || best.get(name)!.rps < m.rps) best.set(name, m)
        } finally {
          if (name === 'devnet') pin(devnet.pid, LOAD_CORE)
        }
      }
    }
    const rows = [['target', 'req/s', 'p50 ms', 'p99 ms', 'CPU µs/call', '% of a core', 'devnet %', '× proxy req/s']]
    const proxy = best.get('proxy')
    for (const name of targets.keys()) {
      const m = best.get(name)
      if (!m) continue
      rows.push([
        name,
        fmt(m.rps),
        fmt(m.p50 / 1000, 2),
        fmt(m.p99 / 1000, 2),
        fmt(m.cpuUs, 1),
        fmt(m.cpuShare * 100),
        name === 'devnet' ? '' : fmt(m.nodeShare * 100),
        proxy ? fmt(m.rps / proxy.rps, 2) : '',
      ])
    }
    console.log('')
    for (const r of alignColumns(rows, 1).cells) console.log(`| ${r.join(' | ')} |`)
    const gateway = best.get('gateway')
    if (proxy && gateway)
      console.log(
        `\ngateway / proxy: ${fmt(gateway.rps / proxy.rps, 2)}× req/s (target ≥ 0.9), ` +
          `${fmt(gateway.cpuUs / proxy.cpuUs, 2)}× CPU per call`,
      )
  } finally {
    await stopTargets().catch(() => undefined)
    await devnet.stop().catch(() => undefined)
    rmSync(keysDir, { recursive: true, force: true })
  }
}

await main()
