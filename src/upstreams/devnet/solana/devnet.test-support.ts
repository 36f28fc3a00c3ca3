/**
 * The devnet for its tests (devnet.test.ts, devnet-kit.test.ts, devnet-web3.test.ts): one process per test file,
 * its state file in a temporary directory, the mnemonic's first two funded keys; and raw JSON-RPC for what the
 * clients hide (server.test.ts's too).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll } from 'vitest'
import { ANVIL_TEST_MNEMONIC } from '../anvil.ts'
import { deriveSolanaKeys, type RunningSolanaDevnet, startSolanaDevnet } from './devnet.ts'

export const LAMPORTS_PER_SOL = 1_000_000_000n

export interface TestDevnet {
  /** Replaced when a test restarts the devnet. */
  devnet: RunningSolanaDevnet
  funded: Array<{ address: string; privateKey: Uint8Array }>
  dataDir: string
  stateFile: string
}

/** Starts a devnet before the file's tests (100 ms slots, a state file) and stops it after them. */
export function useTestDevnet(): TestDevnet {
  const dataDir = mkdtempSync(join(tmpdir(), 'chaingate-solana-test-'))
  const t = { dataDir, stateFile: join(dataDir, 'chains', 'solana.json'), funded: [] } as unknown as TestDevnet
  beforeAll(async () => {
    ;[t.devnet, t.funded] = await Promise.all([
      startSolanaDevnet({ port: 0, slotMs: 100, stateFile: t.stateFile }),
      deriveSolanaKeys(ANVIL_TEST_MNEMONIC, 2),
    ])
  }, 60_000)
  afterAll(async () => {
    await t.devnet?.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  return t
}

// biome-ignore lint/suspicious/noExplicitAny: tests read a reply's fields as the devnet wrote them, unchecked.
type Reply = Record<string, any>

/** One raw JSON-RPC call: the reply as the devnet wrote it (errors included, which the clients would throw). */
export async function rpc(url: string, method: string, params: unknown[] = []): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  return (await response.json()) as Reply
}
