/**
 * `npm run bench:instructions`: instructions per uncached call (eth_getBalance of a new address each call), counted by
 * valgrind's callgrind, for the minimal proxy (bench/minimal-proxy.ts) and the gateway alone (bench/run-chaingate.ts)
 * against one anvil. A count of executed instructions does not move with the machine's load the way req/s and CPU
 * time do, so a cut of a fraction of a µs shows. Counted: what runs in libuv's socket callbacks (`uv__stream_io`:
 * reading a request, the JavaScript it runs, its microtasks, writing the answer, and garbage collection triggered
 * there). Not counted: the kernel (the socket system calls themselves), timers (the request lines' and the ledger's
 * flushes, bookkeeping), other threads (the request explorer's writer, V8's concurrent marking). V8's optimizing
 * compiler runs on the main thread (`--no-concurrent-recompilation`) and what it costs (`Runtime_CompileOptimized`,
 * inclusive: it varies from run to run) is left out of the figures; a young-generation collection inside the counted
 * calls adds ~2,000 per call. Each target: started under callgrind with instrumentation off, warmed up
 * (BENCH_WARMUP_CALLS, 5,000), instrumentation switched on for BENCH_SETTLE_CALLS (100) calls not counted (callgrind
 * translates the code anew), then counted over BENCH_CALLS (5,000) calls, BENCH_IN_FLIGHT (1) at a time; a 502
 * (a node connection closed while the target was stalled: send()) is sent again and reported.
 * BENCH_TARGETS (proxy,gateway; also start: `chaingate start` called on its devnet-a), BENCH_ROUNDS (2), BENCH_DIST=1
 * (the gateway's dist/: `npm run build` first), BENCH_KEEP=1 (keep the callgrind files, for callgrind_annotate),
 * BENCH_COLLECT (more functions to count inside, comma-separated: `uv__run_timers` adds the timers' work, such as
 * the log's, ledger's and explorer's flushes; `uv__run_check` setImmediate's; `uv__async_io` messages from other
 * threads). BENCH_FAMILY=solana: the same for an uncached Solana `getBalance` (a new base58 key each call) against the
 * embedded Solana devnet, proxy and gateway only. Needs valgrind (`apt-get install -y valgrind`); slow: valgrind runs
 * a process ~50x slower, minutes per target.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { base58Encode } from '../src/methods/solana/base58.ts'
import { startAnvil } from '../src/upstreams/devnet/anvil.ts'
import { startSolanaDevnet } from '../src/upstreams/devnet/solana/devnet.ts'
import { envInt, spawnStart, spawnTarget, stopTargets } from './support.ts'

const CALLS = Math.max(1, envInt('BENCH_CALLS', 5000))
const WARMUP = envInt('BENCH_WARMUP_CALLS', 5000)
/** Calls with instrumentation on before the counters are zeroed: the first ones go through callgrind's translation. */
const SETTLE = envInt('BENCH_SETTLE_CALLS', 100)
const IN_FLIGHT = Math.max(1, envInt('BENCH_IN_FLIGHT', 1))
const ROUNDS = Math.max(1, envInt('BENCH_ROUNDS', 2))
const COLLECT = (process.env.BENCH_COLLECT ?? '').split(',').filter((f) => /^\w+$/.test(f))
// BENCH_NODE_ARGS: more node flags, e.g. `--perf-basic-prof` (JavaScript's code ranges in /tmp/perf-<pid>.map).
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((a) => a !== '')
const asked = (process.env.BENCH_TARGETS ?? '').split(',').filter((t) => ['proxy', 'gateway', 'start'].includes(t))
const TARGETS = asked.length > 0 ? asked : ['proxy', 'gateway']
const SOLANA = process.env.BENCH_FAMILY === 'solana'
if (SOLANA && TARGETS.includes('start')) throw new Error('BENCH_FAMILY=solana counts proxy and gateway only')

/** A call for a balance no earlier call asked: an EVM address, or a Solana key (32 bytes, base58). */
function uncachedBalanceBody(n: number): string {
  if (!SOLANA) {
    const address = `0x${(0xb0000000 + n).toString(16).padStart(40, '0')}`
    return `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["${address}","latest"]}`
  }
  const key = new Uint8Array(32)
  new DataView(key.buffer).setUint32(0, 0xb0000000 + n)
  return `{"jsonrpc":"2.0","id":1,"method":"getBalance","params":["${base58Encode(key)}"]}`
}

let next = 0
/**
 * Sends `n` calls, `IN_FLIGHT` at a time, each for an address never asked before; every answer must be a result.
 * A 502 is sent again, up to `retries` times in all (then it throws), and counted: the number returned. Why a 502
 * can come: the Solana devnet (node:http) closes a connection idle for 5 s, and under valgrind a target can be busy
 * for longer than that in one stretch (the first calls after instrumentation is switched on run through callgrind's
 * translation anew), so its keep-alive timer (undici: the node's timeout less 2 s) has not run when it next sends on
 * that connection: the node has closed it, and the minimal proxy answers 502 (it has no retry). anvil keeps idle
 * connections open, so the EVM case does not meet this.
 */
async function send(url: string, n: number, retries = 0): Promise<number> {
  const target = new URL(url)
  const pool = new Pool(target.origin, { connections: IN_FLIGHT })
  let left = n
  let resent = 0
  const worker = async () => {
    while (left > 0) {
      left--
      const body = uncachedBalanceBody(next++)
      const path = target.pathname + target.search
      for (;;) {
        const r = await pool.request({ method: 'POST', path, headers: { 'content-type': 'application/json' }, body })
        const text = await r.body.text()
        if (r.statusCode === 200 && text.includes('"result"')) break
        if (r.statusCode !== 502 || resent >= retries) throw new Error(`bad answer ${r.statusCode}: ${text}`)
        resent++
      }
    }
  }
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker))
  await pool.close()
  return resent
}

interface Count {
  total: number
  /** V8's optimizing compiler, counted on the main thread (--no-concurrent-recompilation): varies run to run. */
  compiler: number
  /** Calls answered 502 and sent again (send()); 0 when not counted. */
  resent?: number
}

/** Instructions (Ir) of the dumps callgrind wrote since `before`: in all, and inclusive in the optimizing compiler. */
function dumpedInstructions(dir: string, pid: number, before: Set<string>): Count {
  const count = { total: 0, compiler: 0 }
  for (const file of readdirSync(dir)) {
    if (!file.startsWith(`cg.${pid}`) || before.has(file)) continue
    const line = readFileSync(join(dir, file), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('summary:') || l.startsWith('totals:'))
    count.total += Number(line?.split(/\s+/)[1] ?? 0)
    const annotated = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', join(dir, file)], {
      encoding: 'utf8',
      maxBuffer: 256 * 2 ** 20,
    })
    const compile = annotated.split('\n').find((l) => l.includes('Runtime_CompileOptimized'))
    count.compiler += Number(compile?.trim().split(/\s+/)[0]?.replaceAll(',', '') ?? 0)
  }
  return count
}

/** Dumps the counters since the last zeroing (a dump zeroes them) and returns their instructions. */
function dump(pid: number, dir: string): Count {
  const before = new Set(readdirSync(dir))
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' })
  return dumpedInstructions(dir, pid, before)
}

async function measure(name: string, anvilUrl: string, dir: string): Promise<Count> {
  const script = name === 'proxy' ? 'minimal-proxy.ts' : 'run-chaingate.ts'
  // Start-up and warm-up run without instrumentation (several times faster under valgrind), then it is switched on.
  const prefix = [
    'valgrind',
    '--tool=callgrind',
    '--trace-children=no',
    '--instr-atstart=no',
    // Only what runs in the event loop's socket callbacks (and the microtasks after them): a call's own work.
    '--toggle-collect=uv__stream_io',
    ...COLLECT.map((f) => `--toggle-collect=${f}`),
    `--callgrind-out-file=${dir}/cg.%p`,
  ]
  // Under valgrind a call takes ~50x longer: the gateway's client timeouts must not end one, and its head polling
  // (answers read in socket callbacks too) must not weigh 50x more per call than in a real run.
  const timeouts = { requestTimeoutMs: 3_600_000, headersTimeoutMs: 3_600_000 }
  // The whole gateway section replaces run-chaingate.ts's: its dev account (the bench key's) is named again.
  const devAccount = { email: 'bench@localhost', plan: 'dev' }
  const gateway = { host: '127.0.0.1', port: 0, devAccount, ...timeouts }
  const policy = { headPollMs: 600_000 }
  const chain = SOLANA ? { family: 'solana' } : { chainId: 31337 }
  const networks = [{ name: 'bench', ...chain, upstreams: [{ url: anvilUrl }], upstreamPolicy: policy }]
  const env = { BENCH_CHAINGATE_CONFIG: JSON.stringify({ gateway, networks }) }
  // Optimized on the main thread as soon as a function is hot: under valgrind a background compile lands late, at
  // a different call from run to run, and the counted calls would run a mix of tiers.
  const execArgv = ['--no-concurrent-recompilation', ...NODE_ARGS]
  if (name === 'start') return measureStart(prefix, execArgv, timeouts, policy, dir)
  const t = await spawnTarget(name, script, [anvilUrl], { prefix, env, execArgv, timeoutMs: 1_800_000 })
  const pid = t.process.pid!
  try {
    return await count(t.info.url, pid, dir)
  } finally {
    t.process.kill('SIGKILL')
    await stopTargets()
  }
}

/**
 * Warms a target up, switches instrumentation on, runs SETTLE more calls (callgrind translates the code anew, and
 * those calls are slow), then counts CALLS calls.
 */
async function count(url: string, pid: number, dir: string): Promise<Count> {
  await send(url, WARMUP)
  execFileSync('callgrind_control', ['--instr=on', String(pid)], { stdio: 'ignore' })
  const settleResent = await send(url, SETTLE, SETTLE)
  execFileSync('callgrind_control', ['--zero', String(pid)], { stdio: 'ignore' })
  const resent = await send(url, CALLS, Math.ceil(CALLS / 100))
  const c = dump(pid, dir)
  return { total: c.total / CALLS, compiler: c.compiler / CALLS, resent: settleResent + resent }
}

/** `chaingate start` (its own two devnets, wallet and dashboard), called on devnet-a: what runs beside the gateway. */
async function measureStart(
  prefix: string[],
  execArgv: string[],
  timeouts: Record<string, number>,
  upstreamPolicy: Record<string, unknown>,
  dir: string,
): Promise<Count> {
  const embedded = { blockTimeSeconds: 0, port: 0 }
  const networks = [
    { name: 'devnet-a', chainId: 31337, embedded, upstreamPolicy },
    { name: 'devnet-b', chainId: 31338, embedded, upstreamPolicy },
  ]
  const config = join(dir, 'start.json')
  writeFileSync(config, JSON.stringify({ gateway: timeouts, networks }))
  const s = await spawnStart({ prefix, execArgv, args: ['--config', config], timeoutMs: 1_800_000 })
  try {
    return await count(s.url, s.pid, dir)
  } finally {
    await s.stop()
  }
}

const dir = mkdtempSync(join(tmpdir(), 'chaingate-callgrind-'))
const anvil = SOLANA
  ? await startSolanaDevnet({ port: 0 })
  : await startAnvil({ chainId: 31337, port: 0, blockTimeSeconds: 0 })
try {
  const what = SOLANA ? 'Solana getBalance' : 'eth_getBalance'
  console.log(`uncached ${what}: ${CALLS} calls after ${WARMUP} warm-up calls, ${IN_FLIGHT} in flight`)
  const results = new Map<string, number[]>()
  const n = (x: number) => Math.round(x).toLocaleString('en-US')
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 === 0 ? TARGETS : [...TARGETS].reverse()) {
      const c = await measure(name, anvil.url, dir)
      const perCall = c.total - c.compiler
      results.set(name, [...(results.get(name) ?? []), perCall])
      const line =
        `${n(perCall)} instructions/call, not counting the optimizing compiler's ${n(c.compiler)}` +
        (c.resent ? ` (${c.resent} calls answered 502 and sent again: send() says why)` : '')
      console.log(`round ${round + 1} ${name.padEnd(8)} ${line}`)
    }
  }
  const min = (name: string) => Math.min(...(results.get(name) ?? [Number.NaN]))
  for (const [a, b] of [
    ['gateway', 'proxy'],
    ['start', 'proxy'],
    ['start', 'gateway'],
  ] as const)
    if (results.has(a) && results.has(b))
      console.log(`${a} - ${b} (lowest of each): ${n(min(a) - min(b))} instructions/call`)
} finally {
  await anvil.stop()
  if (process.env.BENCH_KEEP) console.log(`callgrind files kept in ${dir}`)
  else rmSync(dir, { recursive: true, force: true })
}
