/**
 * The embedded Solana devnet's ledger around LiteSVM (npm `litesvm`, the Solana runtime in-process): slots on a
 * clock with blockhashes valid for 150 blocks (slot-clock.ts), the transaction history the RPC reads
 * (transaction-history.ts), a faucet for requestAirdrop (faucet.ts), and the state file that keeps all of it
 * across restarts (state-file.ts).
 */
import { createHash, randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import type { Address, EncodedAccount, Lamports } from '@solana/kit'
import { Clock, EpochSchedule, type FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'
import { encodeBase58 } from './codec.ts'
import {
  accountState,
  type ExecutionResult,
  kitTransaction,
  maybeAccountState,
  metaFields,
  nonceMatches,
  resolveAccountKeys,
  systemAccount,
  tokenBalances,
  transactionFee,
} from './execution.ts'
import { airdropTransaction, FAUCET_LAMPORTS, type Faucet, faucetFromSeed } from './faucet.ts'
import { readTokenMint } from './spl-token.ts'
import {
  readState,
  restoredAccount,
  restoredTransaction,
  type SavedState,
  savedAccount,
  savedTransaction,
  writeState,
} from './state-file.ts'
import { MAX_PROCESSING_AGE, SLOTS_PER_EPOCH, type SlotInfo, SlotClock } from './slot-clock.ts'
import { isDroppedError, type TransactionErrorJson, transactionErrorJson } from './transaction-errors.ts'
import { TransactionHistory, type TransactionRecord } from './transaction-history.ts'
import type { ParsedTransaction } from './transaction.ts'
import type { AccountState } from './account-state.ts'

export interface ChainEvents {
  onSlot?(slot: number): void
  /** A transaction landed (successful or failed on chain) in the current slot. */
  onTransaction?(record: TransactionRecord, writable: string[]): void
}

export interface ChainOptions {
  funded: string[]
  fundedLamports: bigint
  stateFile?: string
  now?: () => number
}

export class SolanaChain {
  readonly svm: LiteSVM
  readonly genesisHash: string
  readonly identity: string
  readonly faucet: string
  transactionCount = 0
  private readonly faucetKey: Faucet
  private readonly createdAt: number
  /** Slots, commitment levels and blockhash validity (read by the RPC and PubSub). */
  readonly clock = new SlotClock()
  private readonly history = new TransactionHistory()
  private readonly touched = new Set<string>()
  private readonly now: () => number
  private dirty = false
  events: ChainEvents = {}
  private readonly options: ChainOptions

  constructor(options: ChainOptions) {
    this.options = options
    this.now = options.now ?? Date.now
    const saved = options.stateFile && existsSync(options.stateFile) ? readState(options.stateFile) : undefined
    this.svm = new LiteSVM().withBlockhashCheck(false)
    this.svm.withNativeMints()
    // No warmup: every epoch is 432,000 slots from slot 0, as on mainnet-beta.
    this.svm.setEpochSchedule(new EpochSchedule(BigInt(SLOTS_PER_EPOCH), BigInt(SLOTS_PER_EPOCH), false, 0n, 0n))
    this.genesisHash = saved?.genesisHash ?? encodeBase58(randomBytes(32))
    this.createdAt = saved?.createdAt ?? Math.floor(this.now() / 1000)
    const digest = (label: string) => createHash('sha256').update(label).update(this.genesisHash).digest()
    this.identity = encodeBase58(digest('chaingate-solana-identity'))
    // The faucet's key is derived from the genesis hash: stable across restarts, unique per devnet.
    this.faucetKey = faucetFromSeed(digest('chaingate-solana-faucet'))
    this.faucet = this.faucetKey.address
    if (saved) this.restore(saved)
    else this.setAccount(this.faucet, systemAccount(FAUCET_LAMPORTS))
    // Fund each account once: never again after it was touched (spent, closed), so a restart changes nothing.
    for (const address of options.funded) {
      if (!this.touched.has(address)) this.setAccount(address, systemAccount(options.fundedLamports))
    }
    this.startSlot(saved ? saved.slot + 1 : 0)
  }

  // --- slots and commitment

  get slot(): number {
    return this.clock.slot
  }

  /** Ends the current slot and starts the next one (called by the server's clock). */
  advance(): void {
    this.startSlot(this.slot + 1)
    this.events.onSlot?.(this.slot)
  }

  private startSlot(slot: number): void {
    this.svm.expireBlockhash()
    const time = Math.floor(this.now() / 1000)
    this.clock.start(slot, this.svm.latestBlockhash(), time, this.genesisHash, (s) => this.history.hasBlock(s))
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH))
    this.svm.setClock(new Clock(BigInt(slot), BigInt(this.createdAt), epoch, epoch + 1n, BigInt(time)))
  }

  /** The block of `slot` if the devnet has it: any recent slot, and older ones that hold transactions. */
  block(slot: number): (SlotInfo & { signatures: string[] }) | undefined {
    const info = this.clock.info(slot)
    return info && { ...info, signatures: this.history.blockSignatures(slot) }
  }

  // --- accounts

  getAccount = (address: string): AccountState | undefined => maybeAccountState(this.svm.getAccount(address as Address))

  programAccounts(program: string): Array<{ pubkey: string; account: AccountState }> {
    return this.svm.getProgramAccounts(program as Address).map((a) => ({ pubkey: a.address, account: accountState(a) }))
  }

  mintDecimals = (mint: string): number | undefined => readTokenMint(this.getAccount(mint))?.decimals

  private setAccount(address: string, account: AccountState): void {
    const encoded: EncodedAccount = {
      address: address as Address,
      lamports: account.lamports as Lamports,
      programAddress: account.owner as Address,
      executable: account.executable,
      data: account.data,
      space: BigInt(account.data.length),
    }
    this.svm.setAccount(encoded)
    this.touched.add(address)
    this.dirty = true
  }

  /** Lamports held by every account the devnet funded or a transaction wrote, the faucet's apart. */
  supply(): { total: bigint; faucet: bigint } {
    let total = 0n
    for (const address of this.touched) total += this.getAccount(address)?.lamports ?? 0n
    return { total, faucet: this.getAccount(this.faucet)?.lamports ?? 0n }
  }

  // --- transactions

  getTransaction(signature: string): TransactionRecord | undefined {
    return this.history.get(signature)
  }

  /** Signatures that touched `address`, newest first. */
  signaturesFor(address: string): TransactionRecord[] {
    return this.history.signaturesFor(address)
  }

  /** Checks the runtime makes before executing: fresh blockhash (or a nonce), not already processed. */
  precheck(tx: ParsedTransaction, options: { replaceBlockhash?: boolean } = {}): TransactionErrorJson | undefined {
    const resolved = resolveAccountKeys(tx, this.getAccount)
    if ('err' in resolved) return resolved.err
    if (this.history.has(tx.signatures[0] as string)) return 'AlreadyProcessed'
    if (
      !options.replaceBlockhash &&
      !this.clock.isBlockhashValid(tx.recentBlockhash) &&
      !nonceMatches(tx, resolved.keys, this.getAccount)
    )
      return 'BlockhashNotFound'
    return undefined
  }

  /** Runs a transaction without committing (preflight, simulateTransaction). */
  simulate(tx: ParsedTransaction, options: { sigVerify: boolean; replaceBlockhash?: boolean }): ExecutionResult {
    const resolved = resolveAccountKeys(tx, this.getAccount)
    const keys = 'err' in resolved ? tx.staticKeys : resolved.keys
    const pre = this.precheck(tx, options)
    if (pre) return { err: pre, logs: [], unitsConsumed: 0, returnData: null, innerInstructions: [], accountKeys: keys }
    this.svm.withSigverify(options.sigVerify)
    let result: FailedTransactionMetadata | ReturnType<LiteSVM['simulateTransaction']>
    try {
      result = this.svm.simulateTransaction(kitTransaction(tx))
    } finally {
      this.svm.withSigverify(true)
    }
    if ('err' in result) {
      const meta = result.meta()
      return { ...metaFields(meta, keys), err: transactionErrorJson(result.err()), accountKeys: keys }
    }
    const postAccounts = new Map<string, AccountState | undefined>()
    for (const a of result.postAccounts()) postAccounts.set(a.address, accountState(a))
    return { ...metaFields(result.meta(), keys), err: null, accountKeys: keys, postAccounts }
  }

  /**
   * Executes and commits a transaction in the current slot. Errors the runtime rejects before execution
   * (BlockhashNotFound, AlreadyProcessed, a bad signature, no funds for the fee) drop it: no record, no fee.
   */
  execute(tx: ParsedTransaction): ExecutionResult {
    const resolved = resolveAccountKeys(tx, this.getAccount)
    const empty = { logs: [], unitsConsumed: 0, returnData: null, innerInstructions: [] }
    if ('err' in resolved) return { ...empty, err: resolved.err, accountKeys: tx.staticKeys }
    const { keys, writable, loaded } = resolved
    const pre = this.precheck(tx)
    if (pre) return { ...empty, err: pre, accountKeys: keys }
    const preAccounts = keys.map((k) => this.getAccount(k))
    const result: TransactionMetadata | FailedTransactionMetadata = this.svm.sendTransaction(kitTransaction(tx))
    const meta = 'err' in result ? result.meta() : result
    const err = 'err' in result ? transactionErrorJson(result.err()) : null
    const fields = metaFields(meta, keys)
    if (err !== null && isDroppedError(err)) return { ...fields, err, accountKeys: keys }
    const postAccounts = keys.map((k) => this.getAccount(k))
    const record: TransactionRecord = {
      signature: tx.signatures[0] as string,
      slot: this.slot,
      blockTime: this.clock.info(this.slot)?.time ?? Math.floor(this.now() / 1000),
      wire: tx.wire.slice(),
      version: tx.version,
      accountKeys: keys,
      loadedAddresses: loaded,
      err,
      fee: transactionFee(tx),
      preBalances: preAccounts.map((a) => Number(a?.lamports ?? 0n)),
      postBalances: postAccounts.map((a) => Number(a?.lamports ?? 0n)),
      preTokenBalances: tokenBalances(preAccounts, this.mintDecimals),
      postTokenBalances: tokenBalances(postAccounts, this.mintDecimals),
      ...fields,
    }
    this.commit(record, writable)
    return { ...fields, err, record, accountKeys: keys }
  }

  private commit(record: TransactionRecord, writable: string[]): void {
    const emptied = this.history.add(record)
    this.transactionCount++
    for (const key of writable) this.touched.add(key)
    if (emptied !== undefined) this.clock.forgetIfOld(emptied)
    this.dirty = true
    this.events.onTransaction?.(record, writable)
  }

  /**
   * requestAirdrop: a System transfer signed by the devnet's faucet, executed like any transaction. Two identical
   * requests in one slot would have one signature; the second then uses an older (still valid) blockhash.
   */
  airdrop(to: string, lamports: bigint): ExecutionResult {
    let result: ExecutionResult | undefined
    for (let age = 0; age <= MAX_PROCESSING_AGE && this.slot - age >= 0; age++) {
      const blockhash = this.clock.blockhashAt(this.slot - age)
      if (!blockhash) break
      result = this.execute(airdropTransaction(this.faucetKey, to, lamports, blockhash))
      if (result.err !== 'AlreadyProcessed') return result
    }
    return result as ExecutionResult
  }

  // --- state file

  /** Writes the state file if anything changed. */
  save(force = false): void {
    const file = this.options.stateFile
    if (!file || (!this.dirty && !force)) return
    const accounts: SavedState['accounts'] = {}
    for (const address of this.touched) accounts[address] = savedAccount(this.getAccount(address))
    writeState(file, {
      genesisHash: this.genesisHash,
      createdAt: this.createdAt,
      slot: this.slot,
      transactionCount: this.transactionCount,
      slots: this.clock.saved((s) => this.history.hasBlock(s)),
      accounts,
      transactions: [...this.history.records()].map(savedTransaction),
    })
    this.dirty = false
  }

  private restore(saved: SavedState): void {
    this.transactionCount = saved.transactionCount
    // Program accounts last: an upgradeable program's data account must exist when the program is loaded.
    const entries = Object.entries(saved.accounts).sort(
      ([, a], [, b]) => Number(a?.executable ?? false) - Number(b?.executable ?? false),
    )
    for (const [address, a] of entries) {
      if (a) this.setAccount(address, restoredAccount(a))
      else this.touched.add(address)
    }
    this.clock.restore(saved.slots)
    for (const t of saved.transactions) this.history.index(restoredTransaction(t))
    this.dirty = false
  }
}
