/** A started devnet process, whichever the engine (litesvm-process.ts, validator-process.ts). */
import type { ChildProcess } from 'node:child_process'
import { exitStatus } from '../process.ts'

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
