/**
 * Embedded anvil devnets as child processes (docs/architecture.md): start, health-check, stop, and never
 * leave an orphan behind when chaingate itself is SIGKILLed.
 */
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Readable } from 'node:stream'
import {
  assertPortFree,
  collectOutput,
  exitStatus,
  killQuietly,
  pickFreePort,
  readPid,
  waitHealthy,
} from './process.ts'
import { AnvilError } from './errors.ts'

export const ANVIL_TEST_MNEMONIC = 'test test test test test test test test test test test junk'

export interface AnvilOptions {
  chainId: number
  /** 0 = pick a free port */
  port: number
  /** file where chain state is loaded from at start and dumped to periodically and on stop; undefined = ephemeral */
  stateFile?: string
  /**
   * BIP-39 mnemonic whose first 10 accounts get anvil's 10,000 ETH; default: anvil's well-known test mnemonic.
   * Never put on anvil's command line (anyone can read it with `ps`): anvil starts with its default accounts, and
   * a custom mnemonic's accounts are funded with anvil_setBalance once started.
   */
  mnemonic?: string
  blockTimeSeconds: number // 0 = automine
  host?: string // default 127.0.0.1
  startTimeoutMs?: number // default 30000
  logger?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void }
}

export interface RunningAnvil {
  chainId: number
  url: string // http://127.0.0.1:PORT
  wsUrl: string // ws://127.0.0.1:PORT
  pid: number // pid of the anvil process itself
  /** Graceful stop: state dumped, process gone, resolves when it exited (kill -9 after a timeout). Idempotent. */
  stop(): Promise<void>
  /** Resolves/notifies if the process dies unexpectedly. */
  onExit(listener: (code: number | null, signal: string | null) => void): void
}

/** Seconds between periodic state dumps: bounds what a crash (or kill -9) can lose. */
const STATE_INTERVAL_SECONDS = 5
const STOP_TIMEOUT_MS = 10_000
const PORT_ATTEMPTS = 3

/**
 * Node has no PR_SET_PDEATHSIG, so anvil runs under this `sh` guard. Its stdin is a pipe only we hold open; EOF
 * means either stop() or our death (the kernel closes the pipe even on SIGKILL). A background watcher then sends
 * SIGTERM, so anvil still dumps its state. The guard reports anvil's pid on fd 3 and exits with anvil's status.
 * Background jobs get /dev/null as stdin in a non-interactive shell, hence the watcher reads a saved copy (fd 4);
 * anvil itself holds neither fd 3 nor our pipe, so only the guard's processes keep them open.
 */
export const GUARD_SCRIPT = [
  '"$0" "$@" 3>&- & pid=$!',
  'echo "$pid" >&3; exec 3>&- 4<&0',
  '{ while read -r _; do :; done; kill -TERM "$pid" 2>/dev/null; } <&4 & watcher=$!',
  'exec 4<&-; wait "$pid"; code=$?',
  'kill "$watcher" 2>/dev/null; exit "$code"',
].join('\n')

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' }

/** Path of the anvil binary shipped by `@foundry-rs/anvil` (platform package, or the postinstall download). */
export function resolveAnvilBinary(): string {
  const require = createRequire(import.meta.url)
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${ARCH[process.arch] ?? process.arch}`
  const candidates: string[] = []
  for (const [pkg, relative] of [
    [platformPackage, 'bin/anvil'],
    ['@foundry-rs/anvil', '../dist/anvil'], // where @foundry-rs/anvil's postinstall puts a downloaded binary
  ] as const) {
    try {
      candidates.push(join(dirname(require.resolve(`${pkg}/package.json`)), relative))
    } catch {}
  }
  const found = candidates.find((path) => existsSync(path))
  if (!found) {
    throw new AnvilError(
      'ANVIL_BINARY_MISSING',
      `anvil binary not found: install ${platformPackage} (npm ci installs it with @foundry-rs/anvil); ` +
        `looked in ${candidates.join(', ') || 'no resolvable package'}`,
    )
  }
  return found
}

export async function startAnvil(options: AnvilOptions): Promise<RunningAnvil> {
  const binary = resolveAnvilBinary()
  const host = options.host ?? '127.0.0.1'
  // A free port picked here can be taken before anvil binds it, so a chosen port gets a few attempts.
  const attempts = options.port === 0 ? PORT_ATTEMPTS : 1
  for (let attempt = 1; ; attempt++) {
    const port = options.port === 0 ? await pickFreePort(host) : options.port
    try {
      if (options.port !== 0) await assertPortFree(host, port)
      return await launch(binary, host, port, options)
    } catch (error) {
      if (!(error instanceof AnvilError && error.code === 'ANVIL_PORT_IN_USE') || attempt >= attempts) throw error
      options.logger?.warn({ chainId: options.chainId, port, attempt }, 'anvil port taken, retrying on another')
    }
  }
}

async function launch(binary: string, host: string, port: number, options: AnvilOptions): Promise<RunningAnvil> {
  const { chainId, logger } = options
  // Derive a custom mnemonic's accounts before spawning anything: a bad mnemonic fails fast and clearly. Only then
  // is viem's HD-key code loaded (~15 MiB of RSS a process otherwise never needs).
  const custom = options.mnemonic && options.mnemonic.trim() !== ANVIL_TEST_MNEMONIC ? options.mnemonic : undefined
  const accounts = custom ? await import('./accounts.ts') : undefined
  const fund = accounts && custom ? accounts.deriveAddresses(custom) : []
  // --no-cors: no Access-Control-* headers, so no web page can read anvil's answers or send it JSON (the preflight
  // fails); chaingate is its only intended client.
  const args = ['--quiet', '--no-cors', '--host', host, '--port', String(port), '--chain-id', String(chainId)]
  if (options.blockTimeSeconds > 0) args.push('--block-time', String(options.blockTimeSeconds))
  if (options.stateFile) {
    // anvil silently skips saving state when the folder is missing, so a restart would start from block 0.
    mkdirSync(dirname(options.stateFile), { recursive: true })
    args.push('--state', options.stateFile, '--state-interval', String(STATE_INTERVAL_SECONDS))
  }

  // Its own process group (detached): a terminal's Ctrl-C reaches chaingate only, which stops the chains itself;
  // the guard's pipe still ends them with chaingate.
  const guard = spawn('/bin/sh', ['-c', GUARD_SCRIPT, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    detached: true,
  })
  guard.stdin?.on('error', () => {}) // EPIPE after the guard is gone is expected
  const output = collectOutput(guard)
  let guardKilled = false
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    guard.once('exit', (code, signal) => {
      guardKilled = signal !== null
      resolve(exitStatus(code, signal))
    }),
  )
  let hasExited = false
  void exited.then(() => {
    hasExited = true
  })
  let stopping = false
  let stopPromise: Promise<void> | undefined
  const exitListeners: Array<(code: number | null, signal: string | null) => void> = []

  const pid = await readPid(guard.stdio[3] as Readable).catch((error: unknown) => {
    guard.kill('SIGKILL')
    throw error
  })

  const stop = (): Promise<void> =>
    (stopPromise ??= (async () => {
      stopping = true
      if (hasExited) return
      guard.stdin?.end() // the guard's watcher sees EOF and sends SIGTERM: anvil dumps state and exits
      const timer = setTimeout(() => {
        logger?.warn({ chainId, pid }, 'anvil did not stop in time, killing it')
        killQuietly(pid, 'SIGKILL')
        guard.kill('SIGKILL')
      }, STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    })())

  // A wildcard listen address is not something a client can connect to: use loopback of the same family.
  const connectHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  const hostPort = `${connectHost.includes(':') ? `[${connectHost}]` : connectHost}:${port}`
  const url = `http://${hostPort}`
  try {
    await waitHealthy(url, chainId, options.startTimeoutMs ?? 30_000, () => hasExited)
    if (hasExited) throw new Error('exited')
  } catch (error) {
    await stop()
    const lines = output()
    if (/address already in use/i.test(lines)) {
      throw new AnvilError('ANVIL_PORT_IN_USE', `anvil port ${host}:${port} is already in use`, lines)
    }
    if (error instanceof AnvilError) throw new AnvilError(error.code, error.message, lines)
    const { code, signal } = await exited
    const message = `anvil (chain ${chainId}) exited during start (code ${code}, signal ${signal})`
    throw new AnvilError('ANVIL_EXITED', message, lines)
  }

  try {
    if (accounts) await accounts.fundAccounts(url, fund)
  } catch (error) {
    await stop()
    throw new AnvilError(
      'ANVIL_EXITED',
      `anvil (chain ${chainId}) could not fund the mnemonic's accounts: ${(error as Error).message}`,
      output(),
    )
  }

  void exited.then(({ code, signal }) => {
    if (stopping) return
    // The guard only exits on its own after anvil did, unless the guard itself was killed: then end anvil too.
    if (guardKilled) killQuietly(pid, 'SIGTERM')
    logger?.warn({ chainId, pid, code, signal, output: output() }, 'anvil exited unexpectedly')
    for (const listener of exitListeners) listener(code, signal)
  })
  logger?.info({ chainId, url, pid, stateFile: options.stateFile }, 'anvil started')

  return {
    chainId,
    url,
    wsUrl: `ws://${hostPort}`,
    pid,
    stop,
    onExit(listener) {
      exitListeners.push(listener)
      // Registered after an unexpected death: still tell the listener.
      if (hasExited && !stopping) void exited.then(({ code, signal }) => listener(code, signal))
    },
  }
}
