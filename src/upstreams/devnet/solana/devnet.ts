/**
 * The embedded Solana devnet as a child process, like anvil for the EVM chains (docs/solana-devnet.md): by
 * default chaingate's own JSON-RPC + PubSub front over LiteSVM (server.ts, launched by litesvm-process.ts); with
 * `engine: 'solana-test-validator'` the Agave test validator where it is installed (validator-process.ts).
 * Started, health-checked, identified by its genesis hash (CAIP-2 `solana:<first 32 characters>`), stopped, and
 * never left running after chaingate is gone.
 */
import { ANVIL_TEST_MNEMONIC } from '../anvil.ts'
import { SolanaDevnetError } from './errors.ts'
import { deriveSolanaAccounts, SOLANA_FUNDED_ACCOUNTS, type SolanaAccount } from './keys.ts'
import type { Launched, SolanaDevnetOptions } from './launched.ts'
import { launchLiteSvm } from './litesvm-process.ts'
import { launchValidator } from './validator-process.ts'

export { SolanaDevnetError, type SolanaDevnetErrorCode } from './errors.ts'
export {
  deriveSolanaAccounts,
  deriveSolanaKeys,
  SOLANA_FUNDED_ACCOUNTS,
  SOLANA_FUNDED_LAMPORTS,
  type SolanaAccount,
} from './keys.ts'

export type { SolanaDevnetOptions } from './launched.ts'

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
  const host = options.host ?? '127.0.0.1'
  if (engine === 'litesvm') return finish(await launchLiteSvm(options, accounts, host), options, accounts, engine, host)
  return finish(
    await launchValidator(options, accounts, host),
    { ...options, startTimeoutMs: options.startTimeoutMs ?? 120_000 },
    accounts,
    engine,
    host,
  )
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
