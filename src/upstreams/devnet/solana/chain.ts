/**
 * The embedded Solana devnet's ledger around LiteSVM (npm `litesvm`, the Solana runtime in-process): slots on a
 * clock, a blockhash per slot valid for 150 blocks as on a real cluster (Agave's MAX_PROCESSING_AGE), the
 * transaction history the RPC reads (getTransaction, getSignaturesForAddress, getBlock), a faucet for
 * requestAirdrop, and the state file that keeps all of it across restarts. LiteSVM itself checks only the one
 * latest blockhash and keeps no blocks, so those rules live here.
 */
import { createHash, createPrivateKey, createPublicKey, type KeyObject, randomBytes, sign } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Address, EncodedAccount, Lamports, Transaction } from '@solana/kit'
import { Clock, EpochSchedule, type FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from 'litesvm'
import { encodeBase58, encodeBase64, tryDecodeBase58 } from './codec.ts'
import {
  type AccountState,
  isDroppedError,
  readTokenAccount,
  readTokenMint,
  type TransactionErrorJson,
  transactionErrorJson,
  uiTokenAmount,
} from './encoding.ts'
import { isStaticWritable, type ParsedTransaction, parseTransaction } from './transaction.ts'

/** Agave's MAX_PROCESSING_AGE: a blockhash lands transactions for 150 blocks after its own. */
export const MAX_PROCESSING_AGE = 150
/** Slots between a block and its root (finalized), as with Tower BFT's 32-vote lockout. */
export const FINALIZED_DEPTH = 32
export const SLOTS_PER_EPOCH = 432_000
export const LAMPORTS_PER_SIGNATURE = 5000
const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const LOOKUP_TABLE_PROGRAM = 'AddressLookupTab1e1111111111111111111111111'
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111'
/** Recent slots whose blockhash and time are kept (empty blocks are answered within this window). */
const RECENT_SLOTS = 512
/** Transactions kept for getTransaction and getSignaturesForAddress (the oldest are forgotten). */
const HISTORY_LIMIT = 20_000
const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n
const STATE_VERSION = 1
// RFC 8410's PKCS#8 prefix for a raw 32-byte Ed25519 seed.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

export type Commitment = 'processed' | 'confirmed' | 'finalized'

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

interface ResolvedKeys {
  keys: string[]
  writable: string[]
  loaded: TransactionRecord['loadedAddresses']
}

interface SlotInfo {
  blockhash: string
  previousBlockhash: string
  time: number
}

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

export interface ExecutionResult {
  /** set when the transaction landed */
  record?: TransactionRecord
  err: TransactionErrorJson | null
  logs: string[]
  unitsConsumed: number
  returnData: TransactionRecord['returnData']
  innerInstructions: TransactionRecord['innerInstructions']
  accountKeys: string[]
  postAccounts?: Map<string, AccountState | undefined>
}

interface SavedState {
  version: number
  genesisHash: string
  createdAt: number
  slot: number
  transactionCount: number
  slots: Array<[number, string, string, number]>
  /** every account the devnet funded or a transaction wrote; null once closed (so it is not funded again) */
  accounts: Record<string, { lamports: string; owner: string; executable: boolean; data: string } | null>
  transactions: Array<Omit<TransactionRecord, 'wire'> & { wire: string }>
}

function toAccountState(account: ReturnType<LiteSVM['getAccount']>): AccountState | undefined {
  if (!account.exists) return undefined
  return {
    lamports: account.lamports,
    owner: account.programAddress,
    executable: account.executable,
    data: Uint8Array.from(account.data),
  }
}

export class SolanaChain {
  readonly svm: LiteSVM
  readonly genesisHash: string
  readonly identity: string
  readonly faucet: string
  slot = 0
  transactionCount = 0
  private readonly faucetKey: KeyObject
  private readonly createdAt: number
  private readonly slots = new Map<number, SlotInfo>()
  private readonly blockhashSlots = new Map<string, number>()
  private readonly transactions = new Map<string, TransactionRecord>()
  private readonly blocks = new Map<number, string[]>()
  private readonly addressIndex = new Map<string, string[]>()
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
    this.faucetKey = createPrivateKey({
      key: Buffer.concat([ED25519_PKCS8_PREFIX, digest('chaingate-solana-faucet')]),
      format: 'der',
      type: 'pkcs8',
    })
    this.faucet = encodeBase58(createPublicKey(this.faucetKey).export({ format: 'der', type: 'spki' }).subarray(-32))
    if (saved) this.restore(saved)
    else
      this.setAccount(this.faucet, {
        lamports: FAUCET_LAMPORTS,
        owner: SYSTEM_PROGRAM,
        executable: false,
        data: new Uint8Array(),
      })
    // Fund each account once: never again after it was touched (spent, closed), so a restart changes nothing.
    for (const address of options.funded) {
      if (!this.touched.has(address))
        this.setAccount(address, {
          lamports: options.fundedLamports,
          owner: SYSTEM_PROGRAM,
          executable: false,
          data: new Uint8Array(),
        })
    }
    this.startSlot(saved ? saved.slot + 1 : 0)
  }

  // --- slots and commitment

  /** Ends the current slot and starts the next one (called by the server's clock). */
  advance(): void {
    this.startSlot(this.slot + 1)
    this.events.onSlot?.(this.slot)
  }

  private startSlot(slot: number): void {
    const previous = this.slots.get(slot - 1)?.blockhash ?? this.genesisHash
    this.svm.expireBlockhash()
    const blockhash = this.svm.latestBlockhash()
    const time = Math.floor(this.now() / 1000)
    this.slot = slot
    this.slots.set(slot, { blockhash, previousBlockhash: previous, time })
    this.blockhashSlots.set(blockhash, slot)
    const forget = this.slots.get(slot - RECENT_SLOTS)
    if (forget && !this.blocks.has(slot - RECENT_SLOTS)) this.slots.delete(slot - RECENT_SLOTS)
    if (forget) this.blockhashSlots.delete(forget.blockhash)
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH))
    this.svm.setClock(new Clock(BigInt(slot), BigInt(this.createdAt), epoch, epoch + 1n, BigInt(time)))
  }

  commitmentSlot(commitment: Commitment = 'finalized'): number {
    if (commitment === 'processed') return this.slot
    if (commitment === 'confirmed') return Math.max(0, this.slot - 1)
    return Math.max(0, this.slot - FINALIZED_DEPTH)
  }

  /** Block height equals the slot: the devnet skips no slot. */
  blockHeight(commitment?: Commitment): number {
    return this.commitmentSlot(commitment)
  }

  blockhashAt(slot: number): string | undefined {
    return this.slots.get(slot)?.blockhash
  }

  /** Whether a blockhash still lands transactions now (its block is at most 150 blocks old). */
  isBlockhashValid(blockhash: string): boolean {
    const slot = this.blockhashSlots.get(blockhash)
    return slot !== undefined && this.slot - slot <= MAX_PROCESSING_AGE
  }

  /** The block of `slot` if the devnet has it: any recent slot, and older ones that hold transactions. */
  block(slot: number): (SlotInfo & { signatures: string[] }) | undefined {
    const info = this.slots.get(slot)
    return info && { ...info, signatures: this.blocks.get(slot) ?? [] }
  }

  /** Slots that have a block, ascending, within [start, end]. */
  blockSlots(start: number, end: number): number[] {
    const out = [...this.slots.keys()].filter((s) => s >= start && s <= end)
    return out.sort((a, b) => a - b)
  }

  firstAvailableBlock(): number {
    let first = this.slot
    for (const slot of this.slots.keys()) first = Math.min(first, slot)
    return first
  }

  // --- accounts

  getAccount(address: string): AccountState | undefined {
    return toAccountState(this.svm.getAccount(address as Address))
  }

  programAccounts(program: string): Array<{ pubkey: string; account: AccountState }> {
    return this.svm.getProgramAccounts(program as Address).map((a) => ({
      pubkey: a.address,
      account: {
        lamports: a.lamports,
        owner: a.programAddress,
        executable: a.executable,
        data: Uint8Array.from(a.data),
      },
    }))
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
    return this.transactions.get(signature)
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

  /**
   * Static keys, then the keys loaded from address lookup tables (writable, then readonly), as the runtime orders
   * them; undefined when a table is missing or an index is out of range (AddressLookupTableNotFound and friends).
   */
  accountKeys(tx: ParsedTransaction): ResolvedKeys | { err: string } {
    const loaded = { writable: [] as string[], readonly: [] as string[] }
    for (const lookup of tx.addressTableLookups) {
      const table = this.getAccount(lookup.accountKey)
      if (!table) return { err: 'AddressLookupTableNotFound' }
      if (table.owner !== LOOKUP_TABLE_PROGRAM) return { err: 'InvalidAddressLookupTableOwner' }
      // Address lookup table layout: a 56-byte header, then 32-byte addresses.
      const count = Math.floor((table.data.length - 56) / 32)
      const at = (i: number) => encodeBase58(table.data.subarray(56 + i * 32, 88 + i * 32))
      for (const [indexes, into] of [
        [lookup.writableIndexes, loaded.writable],
        [lookup.readonlyIndexes, loaded.readonly],
      ] as const) {
        for (const i of indexes) {
          if (i >= count) return { err: 'InvalidAddressLookupTableIndex' }
          into.push(at(i))
        }
      }
    }
    const keys = [...tx.staticKeys, ...loaded.writable, ...loaded.readonly]
    const writable = [...tx.staticKeys.filter((_, i) => isStaticWritable(tx, i)), ...loaded.writable]
    return { keys, writable, loaded }
  }

  /** A durable-nonce transaction: its first instruction advances a nonce account that holds its blockhash. */
  private nonceMatches(tx: ParsedTransaction, keys: string[]): boolean {
    const first = tx.instructions[0]
    if (!first || keys[first.programIdIndex] !== SYSTEM_PROGRAM) return false
    const data = first.data
    if (data.length < 4 || data[0] !== 4 || data[1] !== 0 || data[2] !== 0 || data[3] !== 0) return false
    const nonce = this.getAccount(keys[first.accounts[0] ?? -1] ?? '')
    // Nonce account layout: version u32, state u32 (1 = initialized), authority, durable nonce, fee calculator.
    if (!nonce || nonce.owner !== SYSTEM_PROGRAM || nonce.data.length < 80 || nonce.data[4] !== 1) return false
    return encodeBase58(nonce.data.subarray(40, 72)) === tx.recentBlockhash
  }

  /** Checks the runtime makes before executing: fresh blockhash (or a nonce), not already processed. */
  precheck(tx: ParsedTransaction, options: { replaceBlockhash?: boolean } = {}): TransactionErrorJson | undefined {
    const resolved = this.accountKeys(tx)
    if ('err' in resolved) return resolved.err
    if (this.transactions.has(tx.signatures[0] as string)) return 'AlreadyProcessed'
    if (
      !options.replaceBlockhash &&
      !this.isBlockhashValid(tx.recentBlockhash) &&
      !this.nonceMatches(tx, resolved.keys)
    )
      return 'BlockhashNotFound'
    return undefined
  }

  /** The fee: 5000 lamports a signature plus the priority fee of ComputeBudget's unit price × unit limit. */
  feeFor(tx: Pick<ParsedTransaction, 'header' | 'staticKeys' | 'instructions'>): number {
    let price = 0n
    let limit: bigint | undefined
    let others = 0
    for (const ix of tx.instructions) {
      const d = ix.data
      if (tx.staticKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) {
        others++
        continue
      }
      const view = new DataView(d.buffer, d.byteOffset, d.byteLength)
      if (d[0] === 2 && d.length >= 5) limit = BigInt(view.getUint32(1, true))
      else if (d[0] === 3 && d.length >= 9) price = view.getBigUint64(1, true)
    }
    // Without SetComputeUnitLimit the runtime allows 200,000 units an instruction, at most 1.4 million.
    const units = limit ?? BigInt(Math.min(1_400_000, 200_000 * others))
    const priority = (price * units + 999_999n) / 1_000_000n
    return tx.header.numRequiredSignatures * LAMPORTS_PER_SIGNATURE + Number(priority)
  }

  private kitTransaction(tx: ParsedTransaction): Transaction {
    const signatures: Record<string, Uint8Array> = {}
    tx.staticKeys.slice(0, tx.signatureBytes.length).forEach((key, i) => {
      signatures[key] = tx.signatureBytes[i] as Uint8Array
    })
    return { messageBytes: tx.messageBytes, signatures } as unknown as Transaction
  }

  /** Runs a transaction without committing (preflight, simulateTransaction). */
  simulate(tx: ParsedTransaction, options: { sigVerify: boolean; replaceBlockhash?: boolean }): ExecutionResult {
    const resolved = this.accountKeys(tx)
    const keys = 'err' in resolved ? tx.staticKeys : resolved.keys
    const pre = this.precheck(tx, options)
    if (pre) return { err: pre, logs: [], unitsConsumed: 0, returnData: null, innerInstructions: [], accountKeys: keys }
    this.svm.withSigverify(options.sigVerify)
    let result: FailedTransactionMetadata | ReturnType<LiteSVM['simulateTransaction']>
    try {
      result = this.svm.simulateTransaction(this.kitTransaction(tx))
    } finally {
      this.svm.withSigverify(true)
    }
    if ('err' in result) {
      const meta = result.meta()
      return { ...metaFields(meta, keys), err: transactionErrorJson(result.err()), accountKeys: keys }
    }
    const postAccounts = new Map<string, AccountState | undefined>()
    for (const a of result.postAccounts())
      postAccounts.set(a.address, {
        lamports: a.lamports,
        owner: a.programAddress,
        executable: a.executable,
        data: Uint8Array.from(a.data),
      })
    return { ...metaFields(result.meta(), keys), err: null, accountKeys: keys, postAccounts }
  }

  /**
   * Executes and commits a transaction in the current slot. Errors the runtime rejects before execution
   * (BlockhashNotFound, AlreadyProcessed, a bad signature, no funds for the fee) drop it: no record, no fee.
   */
  execute(tx: ParsedTransaction): ExecutionResult {
    const resolved = this.accountKeys(tx)
    const empty = { logs: [], unitsConsumed: 0, returnData: null, innerInstructions: [] }
    if ('err' in resolved) return { ...empty, err: resolved.err, accountKeys: tx.staticKeys }
    const { keys, writable, loaded } = resolved
    const pre = this.precheck(tx)
    if (pre) return { ...empty, err: pre, accountKeys: keys }
    const preAccounts = keys.map((k) => this.getAccount(k))
    const result: TransactionMetadata | FailedTransactionMetadata = this.svm.sendTransaction(this.kitTransaction(tx))
    const meta = 'err' in result ? result.meta() : result
    const err = 'err' in result ? transactionErrorJson(result.err()) : null
    const fields = metaFields(meta, keys)
    if (err !== null && isDroppedError(err)) return { ...fields, err, accountKeys: keys }
    const postAccounts = keys.map((k) => this.getAccount(k))
    const record: TransactionRecord = {
      signature: tx.signatures[0] as string,
      slot: this.slot,
      blockTime: this.slots.get(this.slot)?.time ?? Math.floor(this.now() / 1000),
      wire: tx.wire.slice(),
      version: tx.version,
      accountKeys: keys,
      loadedAddresses: loaded,
      err,
      fee: this.feeFor(tx),
      preBalances: preAccounts.map((a) => Number(a?.lamports ?? 0n)),
      postBalances: postAccounts.map((a) => Number(a?.lamports ?? 0n)),
      preTokenBalances: this.tokenBalances(preAccounts),
      postTokenBalances: this.tokenBalances(postAccounts),
      ...fields,
    }
    this.commit(record, writable)
    return { ...fields, err, record, accountKeys: keys }
  }

  private tokenBalances(accounts: Array<AccountState | undefined>): TokenBalance[] {
    const out: TokenBalance[] = []
    accounts.forEach((account, accountIndex) => {
      const token = readTokenAccount(account)
      if (!token || !account) return
      const decimals = token.isNative !== null ? 9 : this.mintDecimals(token.mint)
      if (decimals === undefined) return
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: account.owner,
        uiTokenAmount: uiTokenAmount(token.amount, decimals),
      })
    })
    return out
  }

  /** A transaction kept: by signature, in its slot's block, and under every account it names. */
  private index(record: TransactionRecord): void {
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

  private commit(record: TransactionRecord, writable: string[]): void {
    this.index(record)
    this.transactionCount++
    for (const key of writable) this.touched.add(key)
    if (this.transactions.size > HISTORY_LIMIT) this.forgetOldest()
    this.dirty = true
    this.events.onTransaction?.(record, writable)
  }

  private forgetOldest(): void {
    const oldest = this.transactions.keys().next().value as string
    const record = this.transactions.get(oldest) as TransactionRecord
    this.transactions.delete(oldest)
    const block = this.blocks.get(record.slot)?.filter((s) => s !== oldest)
    if (block?.length) this.blocks.set(record.slot, block)
    else {
      this.blocks.delete(record.slot)
      if (record.slot <= this.slot - RECENT_SLOTS) this.slots.delete(record.slot)
    }
    for (const key of new Set(record.accountKeys)) {
      const list = this.addressIndex.get(key)?.filter((s) => s !== oldest)
      if (list?.length) this.addressIndex.set(key, list)
      else this.addressIndex.delete(key)
    }
  }

  /**
   * requestAirdrop: a System transfer signed by the devnet's faucet, executed like any transaction. Two identical
   * requests in one slot would have one signature; the second then uses an older (still valid) blockhash.
   */
  airdrop(to: string, lamports: bigint): ExecutionResult {
    const toBytes = tryDecodeBase58(to) as Uint8Array
    const faucet = tryDecodeBase58(this.faucet) as Uint8Array
    let result: ExecutionResult | undefined
    for (let age = 0; age <= MAX_PROCESSING_AGE && this.slot - age >= 0; age++) {
      const blockhash = this.slots.get(this.slot - age)?.blockhash
      if (!blockhash) break
      const data = Buffer.alloc(12)
      data.writeUInt32LE(2, 0) // SystemInstruction::Transfer
      data.writeBigUInt64LE(lamports, 4)
      const message = Buffer.concat([
        Uint8Array.of(1, 0, 1, 3), // header, then 3 account keys: faucet, recipient, System program
        faucet,
        toBytes,
        new Uint8Array(32),
        tryDecodeBase58(blockhash) as Uint8Array,
        Uint8Array.of(1, 2, 2, 0, 1, 12),
        data,
      ])
      const signature = sign(null, message, this.faucetKey)
      const tx = parseTransaction(Buffer.concat([Uint8Array.of(1), signature, message]))
      result = this.execute(tx)
      if (result.err !== 'AlreadyProcessed') return result
    }
    return result as ExecutionResult
  }

  // --- state file

  /** Writes the state file if anything changed (write to a temporary file, then rename: never half a file). */
  save(force = false): void {
    const file = this.options.stateFile
    if (!file || (!this.dirty && !force)) return
    const accounts: SavedState['accounts'] = {}
    for (const address of this.touched) {
      const account = this.getAccount(address)
      accounts[address] = account
        ? {
            lamports: account.lamports.toString(),
            owner: account.owner,
            executable: account.executable,
            data: encodeBase64(account.data),
          }
        : null
    }
    const state: SavedState = {
      version: STATE_VERSION,
      genesisHash: this.genesisHash,
      createdAt: this.createdAt,
      slot: this.slot,
      transactionCount: this.transactionCount,
      slots: [...this.slots.entries()]
        .filter(([slot]) => this.blocks.has(slot) || this.slot - slot <= MAX_PROCESSING_AGE)
        .map(([slot, s]) => [slot, s.blockhash, s.previousBlockhash, s.time]),
      accounts,
      transactions: [...this.transactions.values()].map((r) => ({ ...r, wire: encodeBase64(r.wire) })),
    }
    mkdirSync(dirname(file), { recursive: true })
    const temporary = `${file}.${process.pid}.tmp`
    writeFileSync(temporary, JSON.stringify(state), { mode: 0o600 })
    renameSync(temporary, file)
    this.dirty = false
  }

  private restore(saved: SavedState): void {
    this.transactionCount = saved.transactionCount
    // Program accounts last: an upgradeable program's data account must exist when the program is loaded.
    const entries = Object.entries(saved.accounts).sort(
      ([, a], [, b]) => Number(a?.executable ?? false) - Number(b?.executable ?? false),
    )
    for (const [address, a] of entries) {
      if (!a) {
        this.touched.add(address)
        continue
      }
      this.setAccount(address, {
        lamports: BigInt(a.lamports),
        owner: a.owner,
        executable: a.executable,
        data: Uint8Array.from(Buffer.from(a.data, 'base64')),
      })
    }
    for (const [slot, blockhash, previousBlockhash, time] of saved.slots) {
      this.slots.set(slot, { blockhash, previousBlockhash, time })
      this.blockhashSlots.set(blockhash, slot)
    }
    for (const t of saved.transactions) {
      const record: TransactionRecord = { ...t, wire: Uint8Array.from(Buffer.from(t.wire, 'base64')) }
      this.index(record)
    }
    this.dirty = false
  }
}

function metaFields(meta: TransactionMetadata, keys: string[]) {
  const returned = meta.returnData()
  const returnBytes = returned.data()
  return {
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    returnData:
      returnBytes.length > 0
        ? {
            programId: encodeBase58(returned.programId()),
            data: [encodeBase64(returnBytes), 'base64'] as [string, 'base64'],
          }
        : null,
    innerInstructions: meta
      .innerInstructions()
      .map((list, index) => ({
        index,
        instructions: list.map((inner) => {
          const ix = inner.instruction()
          return {
            programIdIndex: ix.programIdIndex(),
            accounts: [...ix.accounts()],
            data: encodeBase58(ix.data()),
            stackHeight: inner.stackHeight(),
          }
        }),
      }))
      .filter((entry) => entry.instructions.length > 0 && keys.length > 0),
  }
}

function readState(file: string): SavedState | undefined {
  const state = JSON.parse(readFileSync(file, 'utf8')) as SavedState
  if (state.version !== STATE_VERSION) throw new Error(`unknown state file version ${state.version} in ${file}`)
  return state
}
