/**
 * The embedded Solana devnet as a child process, like anvil for the EVM chains (docs/solana-devnet.md): by
 * default chaingate's own JSON-RPC + PubSub front over LiteSVM (server.ts); with `engine: 'solana-test-validator'`
 * the Agave test validator where it is installed. Started, health-checked, identified by its genesis hash
 * (CAIP-2 `solana:<first 32 characters>`), stopped, and never left running after chaingate is gone.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { accessSync, constants as fsConstants, existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { delimiter, dirname, isAbsolute, join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { ANVIL_TEST_MNEMONIC, GUARD_SCRIPT } from '../anvil.ts'
import { collectOutput, exitStatus, killQuietly, pickFreePort, readPid } from '../process.ts'
import { SolanaDevnetError } from './errors.ts'
import { deriveSolanaAccounts, SOLANA_FUNDED_ACCOUNTS, SOLANA_FUNDED_LAMPORTS, type SolanaAccount } from './keys.ts'

export { SolanaDevnetError, type SolanaDevnetErrorCode } from './errors.ts'
export {
  deriveSolanaAccounts,
  deriveSolanaKeys,
  SOLANA_FUNDED_ACCOUNTS,
  SOLANA_FUNDED_LAMPORTS,
  type SolanaAccount,
} from './keys.ts'

export interface SolanaDevnetOptions {
  /** 0 = a free port (the LiteSVM devnet binds it itself, so no other process can take it in between) */
  port: number
  host?: string // default 127.0.0.1
  /**
   * LiteSVM: the JSON file that keeps accounts, slot, recent blockhashes and transaction history across restarts;
   * solana-test-validator: its ledger directory is this path without `.json`, plus `-ledger`. Undefined = ephemeral
   * (a new genesis hash at every start).
   */
  stateFile?: string
  /** BIP-39 mnemonic whose accounts m/44'/501'/i'/0' (i < 10) get 1,000 SOL; default anvil's test mnemonic. */
  mnemonic?: string
  /** Slot time; Solana's target is 400 ms. */
  slotMs?: number
  /** 'litesvm' (default) or the Agave validator, which must be on PATH (or at `validatorBinary`). */
  engine?: 'litesvm' | 'solana-test-validator'
  validatorBinary?: string
  startTimeoutMs?: number // default 30000 (litesvm), 120000 (validator)
  logger?: { info(obj: object, msg?: string): void; warn(obj: object, msg?: string): void }
}

export interface RunningSolanaDevnet {
  url: string // http://127.0.0.1:PORT
  /** PubSub on the RPC port itself (WebSocket upgrade). */
  wsUrl: string
  /** PubSub on port + 1, Solana's default, when that port was free. */
  pubsubUrl: string | undefined
  genesisHash: string
  /** `solana:` + the first 32 characters of the genesis hash (CAIP-2, as MetaMask's Solana scopes). */
  caip2: string
  /** The funded accounts (addresses and paths; never keys). */
  accounts: SolanaAccount[]
  pid: number
  engine: 'litesvm' | 'solana-test-validator'
  /** Graceful stop: state written, process gone, resolves when it exited (kill -9 after a timeout). Idempotent. */
  stop(): Promise<void>
  /** Notifies if the process dies unexpectedly. */
  onExit(listener: (code: number | null, signal: string | null) => void): void
}

const STOP_TIMEOUT_MS = 10_000
const HEALTH_POLL_MS = 100

export async function startSolanaDevnet(options: SolanaDevnetOptions): Promise<RunningSolanaDevnet> {
  const engine = options.engine ?? 'litesvm'
  // A bad mnemonic fails before anything is spawned.
  const accounts = await deriveSolanaAccounts(options.mnemonic ?? ANVIL_TEST_MNEMONIC, SOLANA_FUNDED_ACCOUNTS)
  return engine === 'litesvm' ? startLiteSvm(options, accounts) : startValidator(options, accounts)
}

interface Launched {
  child: ChildProcess
  pid: number
  port: number
  pubsubPort: number | undefined
  output: () => string
  exited: Promise<{ code: number | null; signal: string | null }>
  hasExited: () => boolean
  /** Ask the process to stop (it writes its state and exits). */
  requestStop(): void
  kill(): void
}

/** The child runs from dist/ as JavaScript, or from src/ through tsx (tests, CHAINGATE_RUN_SOURCES). */
function serverCommand(): string[] {
  const here = fileURLToPath(import.meta.url)
  if (!here.endsWith('.ts')) return [join(dirname(here), 'server.js')]
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return ['--import', tsx, join(dirname(here), 'server.ts')]
}

function firstLine(stream: Readable): Promise<string | undefined> {
  return new Promise((resolve) => {
    let text = ''
    const onData = (chunk: Buffer) => {
      text += chunk.toString('utf8')
      const end = text.indexOf('\n')
      if (end !== -1) {
        stream.off('data', onData)
        resolve(text.slice(0, end))
      }
    }
    stream.on('data', onData)
    stream.once('close', () => resolve(undefined))
  })
}

function watchExit(child: ChildProcess) {
  let hasExited = false
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      hasExited = true
      resolve(exitStatus(code, signal))
    }),
  )
  return { exited, hasExited: () => hasExited }
}

async function launchLiteSvm(options: SolanaDevnetOptions, accounts: SolanaAccount[], host: string): Promise<Launched> {
  const args = ['--host', host, '--port', String(options.port), '--slot-ms', String(options.slotMs ?? 400)]
  if (options.stateFile) args.push('--state', options.stateFile)
  args.push('--fund', accounts.map((a) => a.address).join(','), '--fund-lamports', String(SOLANA_FUNDED_LAMPORTS))
  // Its own process group: a terminal's Ctrl-C reaches chaingate only, which stops the devnet itself. Its stdin
  // is a pipe only we hold: it exits when that closes (stop(), or chaingate's death).
  const child = spawn(process.execPath, [...serverCommand(), ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  })
  child.stdin?.on('error', () => {}) // EPIPE after the child is gone is expected
  const output = collectOutput(child)
  const { exited, hasExited } = watchExit(child)
  const timeoutMs = options.startTimeoutMs ?? 30_000
  let timer: NodeJS.Timeout | undefined
  const line = await Promise.race([
    firstLine(child.stdout as Readable),
    exited.then(() => undefined),
    new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs)
    }),
  ])
  clearTimeout(timer)
  const fail = async (code: 'SOLANA_DEVNET_START_TIMEOUT' | 'SOLANA_DEVNET_EXITED', message: string) => {
    child.kill('SIGKILL')
    const status = await exited
    const lines = output()
    if (/address already in use/i.test(lines))
      throw new SolanaDevnetError(
        'SOLANA_DEVNET_PORT_IN_USE',
        `solana devnet port ${host}:${options.port} is already in use`,
        lines,
      )
    throw new SolanaDevnetError(code, `${message} (code ${status.code}, signal ${status.signal})`, lines)
  }
  if (line === 'timeout')
    return fail('SOLANA_DEVNET_START_TIMEOUT', `solana devnet did not start within ${timeoutMs} ms`)
  let ready: { port?: number; pubsubPort?: number | null } = {}
  try {
    ready = line ? JSON.parse(line) : {}
  } catch {}
  if (!ready.port || child.pid === undefined) return fail('SOLANA_DEVNET_EXITED', 'solana devnet exited during start')
  return {
    child,
    pid: child.pid,
    port: ready.port,
    pubsubPort: ready.pubsubPort ?? undefined,
    output,
    exited,
    hasExited,
    requestStop: () => child.stdin?.end(),
    kill: () => child.kill('SIGKILL'),
  }
}

async function rpc(url: string, method: string, timeoutMs: number): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const body = (await response.json()) as { result?: unknown; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

async function waitHealthy(url: string, timeoutMs: number, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + timeoutMs
  let problem = 'no answer yet'
  while (!hasExited()) {
    if (Date.now() > deadline)
      throw new SolanaDevnetError(
        'SOLANA_DEVNET_START_TIMEOUT',
        `solana devnet at ${url} not healthy after ${timeoutMs} ms: ${problem}`,
      )
    try {
      const health = await rpc(url, 'getHealth', Math.max(100, Math.min(2_000, deadline - Date.now())))
      if (health === 'ok') return
      problem = `getHealth answered ${JSON.stringify(health)}`
    } catch (error) {
      problem = String((error as Error).cause ?? error)
    }
    await new Promise((resolve) => setTimeout(resolve, HEALTH_POLL_MS))
  }
  throw new SolanaDevnetError('SOLANA_DEVNET_EXITED', `solana devnet at ${url} exited during start`)
}

async function finish(
  launched: Launched,
  options: SolanaDevnetOptions,
  accounts: SolanaAccount[],
  engine: RunningSolanaDevnet['engine'],
  host: string,
): Promise<RunningSolanaDevnet> {
  const { logger } = options
  // A wildcard listen address is not something a client can connect to: use loopback of the same family.
  const connectHost = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host
  const hostname = connectHost.includes(':') ? `[${connectHost}]` : connectHost
  const url = `http://${hostname}:${launched.port}`
  let stopping = false
  let stopPromise: Promise<void> | undefined
  const exitListeners: Array<(code: number | null, signal: string | null) => void> = []
  const stop = (): Promise<void> =>
    (stopPromise ??= (async () => {
      stopping = true
      if (launched.hasExited()) return
      launched.requestStop()
      const timer = setTimeout(() => {
        logger?.warn({ engine, pid: launched.pid }, 'solana devnet did not stop in time, killing it')
        launched.kill()
      }, STOP_TIMEOUT_MS)
      await launched.exited
      clearTimeout(timer)
    })())

  let genesisHash: string
  try {
    const timeoutMs = options.startTimeoutMs ?? (engine === 'litesvm' ? 30_000 : 120_000)
    await waitHealthy(url, timeoutMs, launched.hasExited)
    genesisHash = String(await rpc(url, 'getGenesisHash', 5_000))
  } catch (error) {
    await stop()
    const lines = launched.output()
    if (error instanceof SolanaDevnetError) throw new SolanaDevnetError(error.code, error.message, lines)
    throw new SolanaDevnetError(
      'SOLANA_DEVNET_EXITED',
      `solana devnet did not answer: ${(error as Error).message}`,
      lines,
    )
  }

  void launched.exited.then(({ code, signal }) => {
    if (stopping) return
    logger?.warn(
      { engine, pid: launched.pid, code, signal, output: launched.output() },
      'solana devnet exited unexpectedly',
    )
    for (const listener of exitListeners) listener(code, signal)
  })
  const caip2 = `solana:${genesisHash.slice(0, 32)}`
  logger?.info({ engine, url, pid: launched.pid, caip2, stateFile: options.stateFile }, 'solana devnet started')
  return {
    url,
    wsUrl: `ws://${hostname}:${launched.port}`,
    pubsubUrl: launched.pubsubPort ? `ws://${hostname}:${launched.pubsubPort}` : undefined,
    genesisHash,
    caip2,
    accounts,
    pid: launched.pid,
    engine,
    stop,
    onExit(listener) {
      exitListeners.push(listener)
      if (launched.hasExited() && !stopping) void launched.exited.then(({ code, signal }) => listener(code, signal))
    },
  }
}

async function startLiteSvm(options: SolanaDevnetOptions, accounts: SolanaAccount[]): Promise<RunningSolanaDevnet> {
  const host = options.host ?? '127.0.0.1'
  return finish(await launchLiteSvm(options, accounts, host), options, accounts, 'litesvm', host)
}

// --- solana-test-validator (Agave), where installed

/** The validator binary: an explicit path, or the first `solana-test-validator` on PATH. */
export function resolveValidatorBinary(binary = 'solana-test-validator'): string {
  const executable = (path: string) => {
    try {
      accessSync(path, fsConstants.X_OK)
      return true
    } catch {
      return false
    }
  }
  const candidates =
    isAbsolute(binary) || binary.includes('/')
      ? [binary]
      : (process.env.PATH ?? '')
          .split(delimiter)
          .filter(Boolean)
          .map((dir) => join(dir, binary))
  const found = candidates.find(executable)
  if (!found)
    throw new SolanaDevnetError(
      'SOLANA_VALIDATOR_MISSING',
      `${binary} not found${candidates.length > 1 ? ' on PATH' : ''}: install the Agave tools ` +
        '(https://docs.anza.xyz/cli/install) or use the built-in devnet (engine "litesvm")',
    )
  return found
}

async function startValidator(options: SolanaDevnetOptions, accounts: SolanaAccount[]): Promise<RunningSolanaDevnet> {
  const binary = resolveValidatorBinary(options.validatorBinary)
  const host = options.host ?? '127.0.0.1'
  const port = options.port === 0 ? await pickFreePort(host) : options.port
  const ledger = options.stateFile
    ? `${options.stateFile.replace(/\.json$/, '')}-ledger`
    : join(process.env.TMPDIR ?? '/tmp', `chaingate-solana-${process.pid}-${port}`)
  // The validator's RPC port is given; PubSub is on port + 1 and its faucet on port + 2.
  const args = [
    '--ledger',
    ledger,
    '--rpc-port',
    String(port),
    '--bind-address',
    host,
    '--faucet-port',
    String(port + 2),
  ]
  args.push('--quiet')
  if (!existsSync(ledger)) {
    // A new ledger: fund the accounts in its genesis (--account ADDRESS FILE, `solana account --output json`).
    const dir = `${ledger}-accounts`
    mkdirSync(dir, { recursive: true })
    for (const account of accounts) {
      const file = join(dir, `${account.address}.json`)
      writeFileSync(
        file,
        JSON.stringify({
          pubkey: account.address,
          account: {
            lamports: Number(SOLANA_FUNDED_LAMPORTS),
            data: ['', 'base64'],
            owner: '11111111111111111111111111111111',
            executable: false,
            rentEpoch: 0,
            space: 0,
          },
        }),
      )
      args.push('--account', account.address, file)
    }
  }
  // Under anvil's guard (anvil.ts): the validator gets SIGTERM when our pipe closes, even if chaingate is killed.
  const guard = spawn('/bin/sh', ['-c', GUARD_SCRIPT, binary, ...args], {
    stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    detached: true,
  })
  guard.stdin?.on('error', () => {})
  const output = collectOutput(guard)
  const { exited, hasExited } = watchExit(guard)
  const pid = await readPid(guard.stdio[3] as Readable).catch((error: unknown) => {
    guard.kill('SIGKILL')
    throw new SolanaDevnetError('SOLANA_DEVNET_EXITED', (error as Error).message, output())
  })
  void exited.then(({ signal }) => {
    if (signal) killQuietly(pid, 'SIGTERM')
  })
  const launched: Launched = {
    child: guard,
    pid,
    port,
    pubsubPort: port + 1,
    output,
    exited,
    hasExited,
    requestStop: () => guard.stdin?.end(),
    kill: () => {
      killQuietly(pid, 'SIGKILL')
      guard.kill('SIGKILL')
    },
  }
  return finish(
    launched,
    { ...options, startTimeoutMs: options.startTimeoutMs ?? 120_000 },
    accounts,
    'solana-test-validator',
    host,
  )
}
