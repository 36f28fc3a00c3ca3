/**
 * Real-process helpers for e2e tests: run the `chaingate` bin (`node bin/chaingate.mjs ...`) as a child process,
 * parse the `start` banner, find processes by command line (/proc), and clean up everything a test started with
 * bounded waits.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify as stringifyYaml } from 'yaml'

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..')
export const BIN = join(ROOT, 'bin', 'chaingate.mjs')

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

export function tempDir(prefix = 'chaingate-proc-'): string {
  return mkdtempSync(join(tmpdir(), prefix))
}

/** Writes a config object as JSON (`*.json`) or YAML (any other name). */
export function writeConfig(dir: string, name: string, config: unknown): string {
  const file = join(dir, name)
  writeFileSync(file, name.endsWith('.json') ? JSON.stringify(config, null, 2) : stringifyYaml(config))
  return file
}

/** Polls `check` until it returns a value other than undefined/false, or throws after `timeoutMs`. */
export async function waitFor<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs: number,
  what: string,
  intervalMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last: unknown
  for (;;) {
    try {
      const v = await check()
      if (v !== undefined && v !== false) return v as T
      last = v
    } catch (err) {
      last = err
    }
    if (Date.now() > deadline)
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what} (last: ` +
          `${last instanceof Error ? last.message : JSON.stringify(last)})`,
      )
    await sleep(intervalMs)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Processes started by these helpers: tracked so `cleanupProcesses()` can end them after a failed test.

const children = new Set<ChildProcess>()

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

function exitOf(child: ChildProcess): Promise<Exit> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  return new Promise((r) => child.once('exit', (code, signal) => r({ code, signal })))
}

/** Waits at most `timeoutMs` for a child to exit; undefined if it is still running. */
async function exitWithin(child: ChildProcess, timeoutMs: number): Promise<Exit | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<undefined>((r) => {
    timer = setTimeout(() => r(undefined), timeoutMs)
  })
  try {
    return await Promise.race([exitOf(child), timeout])
  } finally {
    clearTimeout(timer)
  }
}

// ---------------------------------------------------------------------------------------------------------------
// One-shot CLI commands.

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  json(): any
}

/** Runs `chaingate <args>` to completion (killed after `timeoutMs`), with `env` over this process's environment. */
export async function runCli(
  args: string[],
  opts: { timeoutMs?: number; cwd?: string; env?: Record<string, string> } = {},
): Promise<CliResult> {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: opts.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const timeoutMs = opts.timeoutMs ?? 20_000
  let exit = await exitWithin(child, timeoutMs)
  if (!exit) {
    child.kill('SIGKILL')
    exit = await exitOf(child)
    children.delete(child)
    throw new Error(
      `chaingate ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`,
    )
  }
  children.delete(child)
  // 'exit' can come before the pipes are drained.
  await Promise.all(
    [child.stdout!.closed ?? Promise.resolve(), child.stderr!.closed ?? Promise.resolve()].map((p) =>
      Promise.race([p, sleep(1000)]),
    ),
  )
  return {
    ...exit,
    stdout,
    stderr,
    json() {
      try {
        return JSON.parse(stdout)
      } catch {
        throw new Error(
          `chaingate ${args.join(' ')}: stdout is not JSON (exit ${exit!.code}):\n${stdout}\nstderr: ${stderr}`,
        )
      }
    },
  }
}

// ---------------------------------------------------------------------------------------------------------------
// `chaingate start`.

export interface Banner {
  /** The "gateway:" line. */
  gatewayUrl: string
  devKey: string
  /** network → { chainId, host } from the "network X (chain N): host H, or path ..." lines. */
  networks: Record<string, { chainId: number; host: string }>
  /** network → path-form endpoint from the "endpoints:" section. */
  endpoints: Record<string, string>
  /** The curl line under "try:". */
  curl: string
}

export function parseBanner(text: string): Banner {
  const gatewayUrl = /^\s+gateway:\s+(\S+)\s*$/m.exec(text)?.[1]
  const devKey = /dev API key: (\S+)/.exec(text)?.[1]
  const curl = /^\s+(curl .*)$/m.exec(text)?.[1]
  const networks: Banner['networks'] = {}
  for (const m of text.matchAll(/^\s+network (\S+) \(chain (\d+)\): host (\S+), or path/gm))
    networks[m[1]!] = { chainId: Number(m[2]), host: m[3]! }
  const endpoints: Banner['endpoints'] = {}
  const section = text.split(/^\s+endpoints:\s*$/m)[1]?.split(/^\s+try:\s*$/m)[0] ?? ''
  for (const m of section.matchAll(/^\s+([a-z0-9-]+): (https?:\/\/\S+)\s*$/gm)) endpoints[m[1]!] = m[2]!
  if (!gatewayUrl || !devKey || !curl) throw new Error(`cannot parse the start banner:\n${text}`)
  return { gatewayUrl, devKey, networks, endpoints, curl }
}

export interface Chaingate {
  child: ChildProcess
  pid: number
  banner: Banner
  stdout(): string
  stderr(): string
  /** The stream the banner is on: stderr when the log goes to stdout (docs/config.md, log.destination), else stdout. */
  bannerText(): string
  exited: Promise<Exit>
  /** Sends a signal and waits (bounded) for the exit; throws if it did not exit in time. */
  signal(signal: NodeJS.Signals, timeoutMs?: number): Promise<Exit>
}

export const BANNER_END = 'Ctrl-C stops everything.'

/** Spawns `chaingate start <args>` and waits (bounded) until the banner is printed. */
export async function startChaingate(args: string[], opts: { timeoutMs?: number } = {}): Promise<Chaingate> {
  const child = spawn(process.execPath, [BIN, 'start', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  children.add(child)
  let stdout = ''
  let stderr = ''
  const bannerText = () => (stderr.includes(BANNER_END) ? stderr : stdout)
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()))
  const exited = exitOf(child).then((e) => {
    children.delete(child)
    return e
  })
  const timeoutMs = opts.timeoutMs ?? 30_000
  const ready = await Promise.race([
    waitFor(() => bannerText().includes(BANNER_END), timeoutMs, 'the start banner', 50).then(() => 'ready' as const),
    exited.then((e) => e),
  ]).catch((err: Error) => err)
  if (ready !== 'ready') {
    await stopChild(child, 'SIGKILL', 5_000)
    throw new Error(
      `chaingate start ${args.join(' ')} did not print its banner: ${
        ready instanceof Error ? ready.message : `exited ${JSON.stringify(ready)}`
      }\nstdout: ${stdout}\nstderr: ${stderr}`,
    )
  }
  return {
    child,
    pid: child.pid!,
    // Parsed when asked: a production config (devAccount: null) prints no dev key to parse.
    get banner() {
      return parseBanner(bannerText())
    },
    stdout: () => stdout,
    stderr: () => stderr,
    bannerText,
    exited,
    async signal(signal, ms = 20_000) {
      child.kill(signal)
      const exit = await exitWithin(child, ms)
      if (!exit) throw new Error(`chaingate (pid ${child.pid}) did not exit within ${ms} ms of ${signal}`)
      return exit
    },
  }
}

async function stopChild(child: ChildProcess, first: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  child.kill(first)
  if (!(await exitWithin(child, graceMs))) {
    child.kill('SIGKILL')
    await exitWithin(child, 5_000)
  }
  children.delete(child)
}

// ---------------------------------------------------------------------------------------------------------------
// Processes by command line.

export interface ProcInfo {
  pid: number
  cmdline: string
}

/** Live processes (not zombies) whose command line contains `marker`, this process excluded. */
export function processesMatching(marker: string): ProcInfo[] {
  const found: ProcInfo[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    if (pid === process.pid) continue
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
      if (!cmdline.includes(marker)) continue
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
      if (state === 'Z') continue
      found.push({ pid, cmdline })
    } catch {
      // gone meanwhile
    }
  }
  return found
}

/**
 * Anvil (and its `sh` guard) of a data dir: anvil runs with `--state <dataDir>/chains/<network>.json`. The
 * chaingate process itself has only `--data-dir <dataDir>` on its command line, so it does not match.
 */
export const chainProcesses = (dataDir: string) => processesMatching(`${join(dataDir, 'chains')}/`)

/** Waits (bounded) until no process matches; returns what is left (empty when all are gone). */
export async function waitNoChainProcesses(dataDir: string, timeoutMs: number): Promise<ProcInfo[]> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const left = chainProcesses(dataDir)
    if (left.length === 0 || Date.now() > deadline) return left
    await sleep(100)
  }
}

/**
 * Ends every process these helpers started that is still running (SIGTERM, then SIGKILL), then any process left
 * whose command line names one of `dataDirs` (anvil children of a chaingate we started), by pid.
 */
export async function cleanupProcesses(dataDirs: string[] = []): Promise<void> {
  await Promise.all([...children].map((c) => stopChild(c, 'SIGTERM', 10_000)))
  for (const dir of dataDirs) {
    const left = await waitNoChainProcesses(dir, 3_000)
    for (const p of left) {
      try {
        process.kill(p.pid, 'SIGKILL')
      } catch {}
    }
  }
}

export function removeDirs(dirs: string[]): void {
  for (const d of dirs) if (existsSync(d)) rmSync(d, { recursive: true, force: true })
}

// ---------------------------------------------------------------------------------------------------------------
// JSON-RPC over fetch.

export interface Reply {
  status: number
  text: string
  credits: number
  json(): any
}

export async function rpc(
  url: string,
  method: string,
  params: unknown[] = [],
  init: { headers?: Record<string, string> } = {},
): Promise<Reply> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    signal: AbortSignal.timeout(10_000),
  })
  const text = await res.text()
  return {
    status: res.status,
    text,
    credits: Number(res.headers.get('x-credits-charged') ?? 'NaN'),
    json: () => JSON.parse(text),
  }
}

/** The `result` of a successful call; throws with the reply otherwise. */
export async function rpcResult<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const r = await rpc(url, method, params)
  if (r.status !== 200) throw new Error(`${method} → HTTP ${r.status}: ${r.text}`)
  const body = r.json()
  if (body.error) throw new Error(`${method} → ${JSON.stringify(body.error)}`)
  return body.result as T
}
