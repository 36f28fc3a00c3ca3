/**
 * The devnet's state file: accounts, slot, recent blockhashes and transaction history as JSON, so a restart
 * continues the same chain (same genesis hash, balances, signatures).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { encodeBase64 } from './codec.ts'
import type { SavedSlot } from './slot-clock.ts'
import type { TransactionRecord } from './transaction-history.ts'
import type { AccountState } from './account-state.ts'

const STATE_VERSION = 1

type SavedAccount = { lamports: string; owner: string; executable: boolean; data: string }

export interface SavedState {
  version: number
  genesisHash: string
  createdAt: number
  slot: number
  transactionCount: number
  slots: SavedSlot[]
  /** every account the devnet funded or a transaction wrote; null once closed (so it is not funded again) */
  accounts: Record<string, SavedAccount | null>
  transactions: Array<Omit<TransactionRecord, 'wire'> & { wire: string }>
}

export function readState(file: string): SavedState | undefined {
  const state = JSON.parse(readFileSync(file, 'utf8')) as SavedState
  if (state.version !== STATE_VERSION) throw new Error(`unknown state file version ${state.version} in ${file}`)
  return state
}

/** Writes to a temporary file, then renames: never half a file. */
export function writeState(file: string, state: Omit<SavedState, 'version'>): void {
  mkdirSync(dirname(file), { recursive: true })
  const temporary = `${file}.${process.pid}.tmp`
  writeFileSync(temporary, JSON.stringify({ version: STATE_VERSION, ...state }), { mode: 0o600 })
  renameSync(temporary, file)
}

export function savedAccount(account: AccountState | undefined): SavedAccount | null {
  return account
    ? {
        lamports: account.lamports.toString(),
        owner: account.owner,
        executable: account.executable,
        data: encodeBase64(account.data),
      }
    : null
}

export function restoredAccount(a: SavedAccount): AccountState {
  return {
    lamports: BigInt(a.lamports),
    owner: a.owner,
    executable: a.executable,
    data: Uint8Array.from(Buffer.from(a.data, 'base64')),
  }
}

export const savedTransaction = (r: TransactionRecord) => ({ ...r, wire: encodeBase64(r.wire) })

export const restoredTransaction = (t: SavedState['transactions'][number]): TransactionRecord => ({
  ...t,
  wire: Uint8Array.from(Buffer.from(t.wire, 'base64')),
})
