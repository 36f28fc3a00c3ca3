/** A started devnet process, whichever the engine (litesvm-process.ts, validator-process.ts), and what starts it. */
import type { ChildProcess } from 'node:child_process'
import { exitStatus } from '../process.ts'

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

export interface Launched {
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

export function watchExit(child: ChildProcess) {
  let hasExited = false
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      hasExited = true
      resolve(exitStatus(code, signal))
    }),
  )
  return { exited, hasExited: () => hasExited }
}
