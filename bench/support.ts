/**
 * What the HTTP benchmarks (gateway, cache, scale-out, workers) have in common: their settings, the CPU time of a
 * process from /proc, number formatting, JSON-RPC calls to a node, and targets run as child processes
 * (bench/minimal-proxy.ts, bench/run-chaingate.ts) that print one JSON line when ready.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import autocannon from 'autocannon'
import { request } from 'undici'

const here = dirname(fileURLToPath(import.meta.url))

export const envInt = (name: string, fallback: number) => {
  const v = process.env[name]
  const n = v === undefined || v === '' ? fallback : Number(v)
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`)
  return n
}

/** BENCH_CONNECTIONS, BENCH_DURATION (s), BENCH_WARMUP (s, default 2), BENCH_ROUNDS (default 2). */
export function loadSettings(defaults: { connections: number; duration: number }) {
  return {
    connections: Math.max(1, envInt('BENCH_CONNECTIONS', defaults.connections)),
    duration: Math.max(1, envInt('BENCH_DURATION', defaults.duration)),
    warmup: envInt('BENCH_WARMUP', 2),
    rounds: Math.max(1, envInt('BENCH_ROUNDS', 2)),
  }
}

export const CLOCK_TICKS = 100 // USER_HZ: 100 on every Linux architecture Node supports

/** CPU seconds (user and system, every thread) a process has used so far; NaN where /proc is missing. */
export function cpuTimes(pid: number): { user: number; system: number } {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ') // fields from the 3rd on
    return { user: Number(fields[11]) / CLOCK_TICKS, system: Number(fields[12]) / CLOCK_TICKS } // utime, stime
  } catch {
    return { user: Number.NaN, system: Number.NaN }
  }
}

/** User + system CPU seconds of a process; `missing` where it cannot be read (a process that is gone). */
export function cpuSeconds(pid: number, missing = Number.NaN): number {
  const { user, system } = cpuTimes(pid)
  return Number.isNaN(user) ? missing : user + system
}

export const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '—'
export const pct = (n: number) => (Number.isFinite(n) ? `${Math.round(n * 100)}%` : '—')

/** Every cell padded to its column's width: the first `left` columns to the left, the rest (figures) to the right. */
export function alignColumns(rows: string[][], left: number): { widths: number[]; cells: string[][] } {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)))
  return {
    widths,
    cells: rows.map((r) => r.map((cell, i) => (i < left ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))),
  }
}

export const rpcBody = (method: string, params: unknown[]) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })

/** One autocannon run POSTing `body`, as the benchmarks load their targets: no pipelining, 10 s request timeout. */
export const postLoad = (url: string, body: string, connections: number, seconds: number) =>
  autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    connections,
    pipelining: 1,
    duration: seconds,
    timeout: 10,
  })

export interface LoadResult {
  rps: number
  /** autocannon's latency percentiles, ms. */
  p50: number
  p99: number
  /** CPU the target process spent per answered request: steadier than req/s when the load generator is the limit. */
  cpuUsPerRequest: number
  /** Share of a core the load generator (this process) used: near 100 % means it, not the target, set the pace. */
  loadCpu: number
  /** Errors, non-2xx answers and timeouts. */
  bad: number
}

/** One postLoad run against the target process `pid`, with its CPU and this process's. */
export async function loadTarget(
  url: string,
  body: string,
  connections: number,
  seconds: number,
  pid: number,
): Promise<LoadResult> {
  const before = cpuSeconds(pid)
  const self = process.cpuUsage()
  const r = await postLoad(url, body, connections, seconds)
  const used = process.cpuUsage(self)
  return {
    rps: r.requests.total / r.duration,
    p50: r.latency.p50,
    p99: r.latency.p99,
    cpuUsPerRequest: ((cpuSeconds(pid) - before) * 1e6) / r.requests.total,
    loadCpu: (used.user + used.system) / 1e6 / r.duration,
    bad: r.errors + r.non2xx + r.timeouts,
  }
}

export async function post(
  url: string,
  body: string,
): Promise<{ status: number; text: string; headers: Record<string, string | string[] | undefined> }> {
  const res = await request(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
  return { status: res.statusCode, text: await res.body.text(), headers: res.headers }
}

export async function rpcResult(url: string, method: string, params: unknown[]): Promise<unknown> {
  const { status, text } = await post(url, rpcBody(method, params))
  const answer = JSON.parse(text) as { result?: unknown; error?: unknown }
  if (status !== 200 || answer.error !== undefined)
    throw new Error(`${method} failed (HTTP ${status}): ${text.slice(0, 300)}`)
  return answer.result
}

/** Puts `txs` transfers into block 1 of a fresh anvil, then turns automine back on. */
export async function seedBlockOne(url: string, txs: number): Promise<void> {
  const accounts = (await rpcResult(url, 'eth_accounts', [])) as string[]
  await rpcResult(url, 'evm_setAutomine', [false])
  for (let i = 0; i < txs; i++)
    await rpcResult(url, 'eth_sendTransaction', [{ from: accounts[0], to: accounts[1 + (i % 5)], value: '0x1' }])
  await rpcResult(url, 'evm_mine', [])
  await rpcResult(url, 'evm_setAutomine', [true])
}

export interface Target<Info extends { url: string } = { url: string }> {
  name: string
  process: ChildProcess
  /** The JSON line it printed once ready. */
  info: Info
}

const targets: Target[] = []

/**
 * Starts `node --import tsx [execArgv] bench/<script> ...args` (under `prefix`, e.g. taskset, when given) and waits
 * for the JSON line it prints when ready; killed if it is not ready within `timeoutMs`. stopTargets() ends it.
 */
export async function spawnTarget<Info extends { url: string } = { url: string }>(
  name: string,
  script: string,
  args: string[],
  opts: { execArgv?: string[]; prefix?: string[]; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<Target<Info>> {
  const argv = ['--import', 'tsx', ...(opts.execArgv ?? []), join(here, script), ...args]
  const [command, ...commandArgs] = opts.prefix
    ? [...opts.prefix, process.execPath, ...argv]
    : [process.execPath, ...argv]
  const child = spawn(command!, commandArgs, {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, ...opts.env },
  })
  child.stdin!.on('error', () => {})
  const timeoutMs = opts.timeoutMs ?? 30_000
  const info = await new Promise<Info>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${timeoutMs / 1000} s`)), timeoutMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited before it was ready (code ${code}, signal ${signal})`))
    })
    const lines = createInterface({ input: child.stdout! })
    lines.once('line', (line) => {
      clearTimeout(timer)
      try {
        resolve(JSON.parse(line) as Info)
      } catch {
        reject(new Error(`${name} printed ${JSON.stringify(line)} instead of its URL`))
      }
    })
  }).catch((err: unknown) => {
    child.kill('SIGKILL')
    throw err
  })
  child.stdout!.resume()
  const target = { name, process: child, info }
  targets.push(target)
  return target
}

/**
 * `chaingate start` with the embedded defaults (two devnet anvils, wallet, dashboard) in one process, under `prefix`
 * (taskset, valgrind) with node flags `execArgv` and more `args` (e.g. `--config <file>`), in a fresh data dir.
 * Its URL is devnet-a's, with the dev key from its banner. BENCH_DIST=1: the compiled dist/, else src/ through tsx.
 */
export async function spawnStart(
  opts: { prefix?: string[]; execArgv?: string[]; args?: string[]; timeoutMs?: number } = {},
): Promise<{ url: string; pid: number; stop(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'chaingate-bench-start-'))
  const argv = [...(opts.execArgv ?? []), join(here, '..', 'bin', 'chaingate.mjs'), 'start', '--data-dir', dir]
  const [command, ...args] = [...(opts.prefix ?? []), process.execPath, ...argv, '--port', '0', ...(opts.args ?? [])]
  const child = spawn(command!, args, {
    cwd: join(here, '..'),
    env: { ...process.env, CHAINGATE_RUN_SOURCES: process.env.BENCH_DIST === '1' ? '0' : '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    }
    rmSync(dir, { recursive: true, force: true })
  }
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  const deadline = Date.now() + (opts.timeoutMs ?? 120_000)
  while (!out.includes('Ctrl-C stops everything.')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`chaingate start did not start:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  const gateway = /^\s+gateway:\s+(\S+)$/m.exec(out)?.[1]
  const key = /dev API key: (\S+)/.exec(out)?.[1]
  if (!gateway || !key) {
    await stop()
    throw new Error(`no gateway URL or dev key in the banner:\n${out}`)
  }
  out = '' // what it prints later is not kept
  child.stdout!.removeAllListeners('data')
  child.stdout!.resume()
  return { url: `${gateway}/networks/devnet-a/v3/${key}`, pid: child.pid!, stop }
}

/** Closing stdin asks the child to stop (it writes its CPU profile then); SIGKILL after 8 s. */
export async function stopChild(p: ChildProcess): Promise<void> {
  if (p.exitCode !== null || p.signalCode !== null) return
  const exited = new Promise<void>((resolve) => p.once('exit', () => resolve()))
  p.stdin?.end()
  const timer = setTimeout(() => p.kill('SIGKILL'), 8_000)
  await exited
  clearTimeout(timer)
}

/** Stops every target spawnTarget started. */
export const stopTargets = () => Promise.all(targets.map((t) => stopChild(t.process)))

/** Every descendant of a process (children first, then theirs), from /proc; ended processes are skipped. */
export function descendants(pid: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)])
    } catch {}
  }
  const out: number[] = []
  const visit = (p: number) => {
    for (const c of children.get(p) ?? []) {
      out.push(c)
      visit(c)
    }
  }
  visit(pid)
  return out
}
