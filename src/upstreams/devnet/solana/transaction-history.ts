/**
 * The transactions the devnet keeps for getTransaction, getSignaturesForAddress and getBlock: by signature, in
 * their slot's block, and under every account they name. The oldest are forgotten past HISTORY_LIMIT.
 */
import type { TransactionErrorJson } from './transaction-errors.ts'

/** Transactions kept (the oldest are forgotten). */
const HISTORY_LIMIT = 20_000

export interface TokenBalance {
  accountIndex: number
  mint: string
  owner: string
  programId: string
  uiTokenAmount: Record<string, unknown>
}

export interface TransactionRecord {
  signature: string
  slot: number
  blockTime: number
  wire: Uint8Array
  version: 'legacy' | 0
  accountKeys: string[]
  loadedAddresses: { writable: string[]; readonly: string[] }
  err: TransactionErrorJson | null
  fee: number
  preBalances: number[]
  postBalances: number[]
  preTokenBalances: TokenBalance[]
  postTokenBalances: TokenBalance[]
  logs: string[]
  innerInstructions: Array<{ index: number; instructions: unknown[] }>
  computeUnitsConsumed: number
  returnData: { programId: string; data: [string, 'base64'] } | null
}

export class TransactionHistory {
  private readonly transactions = new Map<string, TransactionRecord>()
  private readonly blocks = new Map<number, string[]>()
  private readonly addressIndex = new Map<string, string[]>()

  get(signature: string): TransactionRecord | undefined {
    return this.transactions.get(signature)
  }

  has(signature: string): boolean {
    return this.transactions.has(signature)
  }

  /** Oldest first. */
  records(): IterableIterator<TransactionRecord> {
    return this.transactions.values()
  }

  hasBlock(slot: number): boolean {
    return this.blocks.has(slot)
  }

  blockSignatures(slot: number): string[] {
    return this.blocks.get(slot) ?? []
  }

  /** Signatures that touched `address`, newest first. */
  signaturesFor(address: string): TransactionRecord[] {
    const signatures = this.addressIndex.get(address) ?? []
    const out: TransactionRecord[] = []
    for (let i = signatures.length - 1; i >= 0; i--) {
      const record = this.transactions.get(signatures[i] as string)
      if (record) out.push(record)
    }
    return out
  }

  /** A transaction kept: by signature, in its slot's block, and under every account it names. */
  index(record: TransactionRecord): void {
    this.transactions.set(record.signature, record)
    const block = this.blocks.get(record.slot) ?? []
    block.push(record.signature)
    this.blocks.set(record.slot, block)
    for (const key of new Set(record.accountKeys)) {
      const list = this.addressIndex.get(key) ?? []
      list.push(record.signature)
      this.addressIndex.set(key, list)
    }
  }

  /**
   * Keeps a new transaction, forgetting the oldest past the limit; returns the slot whose block that left empty
   * (its slot may be forgotten too).
   */
  add(record: TransactionRecord): number | undefined {
    this.index(record)
    return this.transactions.size > HISTORY_LIMIT ? this.forgetOldest() : undefined
  }

  private forgetOldest(): number | undefined {
    const oldest = this.transactions.keys().next().value as string
    const record = this.transactions.get(oldest) as TransactionRecord
    this.transactions.delete(oldest)
    let emptied: number | undefined
    const block = this.blocks.get(record.slot)?.filter((s) => s !== oldest)
    if (block?.length) this.blocks.set(record.slot, block)
    else {
      this.blocks.delete(record.slot)
      emptied = record.slot
    }
    for (const key of new Set(record.accountKeys)) {
      const list = this.addressIndex.get(key)?.filter((s) => s !== oldest)
      if (list?.length) this.addressIndex.set(key, list)
      else this.addressIndex.delete(key)
    }
    return emptied
  }
}
