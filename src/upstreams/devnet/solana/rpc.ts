/**
 * The embedded Solana devnet's JSON-RPC methods (https://solana.com/docs/rpc/http), answered from the chain
 * (chain.ts) with the validator's shapes: `{ context: { slot, apiVersion }, value }` where Agave answers so,
 * its -32602 texts for bad parameters, -32016 below `minContextSlot`, -32002 for a failed preflight.
 */
import type { Commitment, SolanaChain } from './chain.ts'
import { MAX_PROCESSING_AGE, SLOTS_PER_EPOCH } from './chain.ts'
import {
  invalidParams,
  parsePubkey,
  parseSignature,
  RpcError,
  tryDecodeBase58,
  tryDecodeBase64,
  typeName,
} from './codec.ts'
import {
  type AccountEncoding,
  type AccountState,
  checkBase58Size,
  type DataSlice,
  isTokenProgram,
  parseAccountEncoding,
  readTokenAccount,
  readTokenMint,
  transactionErrorText,
  uiAccount,
  uiTokenAmount,
} from './encoding.ts'
import {
  PACKET_DATA_SIZE,
  type ParsedTransaction,
  parseMessage,
  parseTransaction,
  verifySignatures,
} from './transaction.ts'
import { type TransactionEncoding, uiTransactionWithMeta } from './ui-transaction.ts'

/** The Agave release whose RPC this devnet answers like (getVersion, `context.apiVersion`). */
export const SOLANA_CORE_VERSION = '3.0.0'
const FEATURE_SET = 3_294_202_862
const MAX_MULTIPLE_ACCOUNTS = 100
const MAX_SIGNATURE_STATUSES = 256
const MAX_SIGNATURES_FOR_ADDRESS = 1000
const MAX_PRIORITIZATION_ADDRESSES = 128
const MAX_FILTERS = 4
const MAX_BLOCK_RANGE = 500_000
/** Statuses of the last 300 slots are answered without searchTransactionHistory (Agave's status cache). */
const STATUS_CACHE_SLOTS = 300
const MAX_BASE58_SIZE = 1683
const MAX_BASE64_SIZE = 1644

export interface RpcContext {
  chain: SolanaChain
  /** Transactions that arrived (signatureSubscribe's enableReceivedNotification). */
  onReceived?(signature: string): void
  /** The RPC's own address, for getClusterNodes. */
  rpcAddress?: string
}

type Params = unknown[]
type Handler = (params: Params, ctx: RpcContext) => unknown

// --- parameters

/** serde's refusal of an unknown enum value. */
function unknownVariant(value: unknown, variants: string[]): RpcError {
  const expected = variants.map((v) => `\`${v}\``).join(', ')
  return invalidParams(`Invalid params: unknown variant \`${String(value)}\`, expected one of ${expected}.`)
}

export function asObject(value: unknown, what: string): Record<string, unknown> {
  if (value === undefined || value === null) return {}
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected struct ${what}.`)
  return value as Record<string, unknown>
}

function required(params: Params, index: number, expected: string): unknown {
  if (params.length <= index || params[index] === undefined)
    throw invalidParams(`Invalid params: invalid length ${params.length}, expected ${expected}.`)
  return params[index]
}

export function parseU64(value: unknown, what = 'u64'): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected ${what}.`)
  return value
}

function optionalU64(value: unknown): number | undefined {
  return value === undefined || value === null ? undefined : parseU64(value)
}

function optionalBool(value: unknown, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback
  if (typeof value !== 'boolean')
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a boolean.`)
  return value
}

const COMMITMENTS: Record<string, Commitment> = {
  processed: 'processed',
  confirmed: 'confirmed',
  finalized: 'finalized',
  // Names older clients still send (solana-sdk's CommitmentLevel, deprecated).
  recent: 'processed',
  single: 'confirmed',
  singleGossip: 'confirmed',
  root: 'finalized',
  max: 'finalized',
}

export function parseCommitment(value: unknown): Commitment {
  if (value === undefined || value === null) return 'finalized'
  const commitment = typeof value === 'string' ? COMMITMENTS[value] : undefined
  if (!commitment) throw unknownVariant(value, ['processed', 'confirmed', 'finalized'])
  return commitment
}

/** The slot answered at `config.commitment`, refusing (-32016) a `minContextSlot` not reached yet. */
function contextSlot(chain: SolanaChain, config: Record<string, unknown>): number {
  const slot = chain.commitmentSlot(parseCommitment(config.commitment))
  const min = optionalU64(config.minContextSlot)
  if (min !== undefined && min > slot)
    throw new RpcError(-32016, 'Minimum context slot has not been reached', { contextSlot: slot })
  return slot
}

const withContext = (slot: number, value: unknown) => ({ context: { apiVersion: SOLANA_CORE_VERSION, slot }, value })

function atLeastConfirmed(config: Record<string, unknown>): Commitment {
  const commitment = parseCommitment(config.commitment)
  if (commitment === 'processed') throw invalidParams('Method does not support commitment below `confirmed`')
  return commitment
}

function parseDataSlice(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined
  const slice = asObject(value, 'UiDataSliceConfig')
  return { offset: parseU64(slice.offset, 'usize'), length: parseU64(slice.length, 'usize') }
}

interface AccountConfig {
  encoding: AccountEncoding
  slice: DataSlice | undefined
  slot: number
}

function accountConfig(ctx: RpcContext, value: unknown, fallback: AccountEncoding = 'binary'): AccountConfig {
  const config = asObject(value, 'RpcAccountInfoConfig')
  const encoding = parseAccountEncoding(config.encoding) ?? fallback
  return { encoding, slice: parseDataSlice(config.dataSlice), slot: contextSlot(ctx.chain, config) }
}

function encodeAccount(ctx: RpcContext, account: AccountState | undefined, config: AccountConfig): unknown {
  if (!account) return null
  checkBase58Size(account, config.encoding, config.slice)
  return uiAccount(account, config.encoding, config.slice, ctx.chain.mintDecimals)
}

/** A base58/base64 transaction string as Agave's decode_and_deserialize checks it (sizes, encoding, format). */
export function decodeTransaction(value: unknown, encodingValue: unknown): ParsedTransaction {
  if (typeof value !== 'string')
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a string.`)
  const encoding = encodingValue ?? 'base58'
  if (encoding !== 'base58' && encoding !== 'base64')
    throw invalidParams(`unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`)
  const type = 'solana_transaction::versioned::VersionedTransaction'
  const max = encoding === 'base58' ? MAX_BASE58_SIZE : MAX_BASE64_SIZE
  if (value.length > max)
    throw invalidParams(
      `${encoding} encoded ${type} too large: ${value.length} bytes (max: encoded/raw ${max}/${PACKET_DATA_SIZE})`,
    )
  const bytes = encoding === 'base58' ? tryDecodeBase58(value) : tryDecodeBase64(value)
  if (typeof bytes === 'string') throw invalidParams(`invalid ${encoding} encoding: ${bytes}`)
  if (bytes.length > PACKET_DATA_SIZE)
    throw invalidParams(`decoded ${type} too large: ${bytes.length} bytes (max: ${PACKET_DATA_SIZE} bytes)`)
  return parseTransaction(bytes)
}

function parseTransactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return 'json'
  if (value === 'json' || value === 'jsonParsed' || value === 'base58' || value === 'base64' || value === 'binary')
    return value
  throw invalidParams(
    `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, ` +
      '`json`, `jsonParsed`.',
  )
}

function parseMaxVersion(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined
  const version = parseU64(value, 'u8')
  if (version > 0)
    throw new RpcError(-32015, `Transaction version (${version}) is not supported by the requesting client.`)
  return version
}

function pubkeyList(value: unknown, max: number): string[] {
  if (!Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a sequence.`)
  if (value.length > max) throw invalidParams(`Too many inputs provided; max ${max}`)
  return value.map((v) => parsePubkey(v))
}

// --- programs' accounts

interface Filter {
  match(account: AccountState): boolean
}

export function parseFilters(value: unknown): Filter[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a sequence.`)
  if (value.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`)
  return value.map((entry): Filter => {
    const filter = asObject(entry, 'RpcFilterType')
    if ('dataSize' in filter) {
      const size = parseU64(filter.dataSize)
      return { match: (a) => a.data.length === size }
    }
    if ('memcmp' in filter) {
      const memcmp = asObject(filter.memcmp, 'Memcmp')
      const offset = parseU64(memcmp.offset, 'usize')
      if (typeof memcmp.bytes !== 'string')
        throw invalidParams(`Invalid params: invalid type: ${typeName(memcmp.bytes)}, expected a string.`)
      const encoding = memcmp.encoding ?? 'base58'
      if (encoding === 'base58' && memcmp.bytes.length > 175) throw invalidParams('Invalid param: DataTooLarge')
      const bytes = encoding === 'base64' ? tryDecodeBase64(memcmp.bytes) : tryDecodeBase58(memcmp.bytes)
      if (encoding !== 'base58' && encoding !== 'base64')
        throw invalidParams(
          `Invalid params: unknown variant \`${String(encoding)}\`, expected \`base58\` or \`base64\`.`,
        )
      if (typeof bytes === 'string') throw invalidParams(`Invalid param: DecodeError(${bytes})`)
      if (bytes.length > 128) throw invalidParams('Invalid param: DataTooLarge')
      return {
        match: (a) => a.data.length >= offset + bytes.length && bytes.every((b, i) => a.data[offset + i] === b),
      }
    }
    if ('tokenAccountState' in filter) return { match: (a) => readTokenAccount(a) !== undefined }
    throw invalidParams('Invalid params: unknown variant, expected one of `dataSize`, `memcmp`, `tokenAccountState`.')
  })
}

function tokenAccounts(ctx: RpcContext, params: Params, field: 'owner' | 'delegate'): unknown {
  const who = parsePubkey(required(params, 0, 'at least 2 parameters'))
  const filter = asObject(required(params, 1, 'at least 2 parameters'), 'RpcTokenAccountsFilter')
  const config = accountConfig(ctx, params[2])
  let programs: string[]
  let mint: string | undefined
  if (typeof filter.mint === 'string' && filter.programId === undefined) {
    mint = parsePubkey(filter.mint)
    const mintAccount = ctx.chain.getAccount(mint)
    if (!mintAccount || !isTokenProgram(mintAccount.owner)) throw invalidParams('Invalid param: could not find mint')
    programs = [mintAccount.owner]
  } else if (typeof filter.programId === 'string' && filter.mint === undefined) {
    const program = parsePubkey(filter.programId)
    if (!isTokenProgram(program)) throw invalidParams('Invalid param: unrecognized Token program id')
    programs = [program]
  } else throw invalidParams('Invalid params: expected exactly one of `mint` or `programId`.')
  const value = []
  for (const program of programs) {
    for (const { pubkey, account } of ctx.chain.programAccounts(program)) {
      const token = readTokenAccount(account)
      if (!token || (mint && token.mint !== mint)) continue
      if ((field === 'owner' ? token.owner : token.delegate) !== who) continue
      value.push({ account: encodeAccount(ctx, account, config), pubkey })
    }
  }
  return withContext(config.slot, value)
}

// --- signatures and transactions

/** `[mint, config?]`: the mint's address, account and state, and the context slot (getTokenSupply, …Largest…). */
function mintParam(params: Params, ctx: RpcContext) {
  const address = parsePubkey(required(params, 0, 'at least 1 parameter'))
  const slot = contextSlot(ctx.chain, asObject(params[1], 'RpcContextConfig'))
  const account = ctx.chain.getAccount(address)
  if (!account) throw invalidParams('Invalid param: could not find account')
  const mint = readTokenMint(account)
  if (!mint) throw invalidParams('Invalid param: not a Token mint')
  return { address, slot, account, mint }
}

function signatureStatus(ctx: RpcContext, signature: string, searchHistory: boolean): unknown {
  const record = ctx.chain.getTransaction(signature)
  if (!record) return null
  const chain = ctx.chain
  if (!searchHistory && chain.slot - record.slot > STATUS_CACHE_SLOTS) return null
  const finalized = record.slot <= chain.commitmentSlot('finalized')
  return {
    confirmationStatus: finalized
      ? 'finalized'
      : record.slot <= chain.commitmentSlot('confirmed')
        ? 'confirmed'
        : 'processed',
    confirmations: finalized ? null : chain.slot - record.slot,
    err: record.err,
    slot: record.slot,
    status: record.err === null ? { Ok: null } : { Err: record.err },
  }
}

function simulationValue(
  ctx: RpcContext,
  tx: ParsedTransaction,
  result: ReturnType<SolanaChain['simulate']>,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    accounts: null,
    err: result.err,
    innerInstructions: null,
    loadedAccountsDataSize: 0,
    logs: result.logs,
    replacementBlockhash: null,
    returnData: result.returnData,
    unitsConsumed: result.unitsConsumed,
    fee: ctx.chain.feeFor(tx),
    ...extra,
  }
}

function blockNotAvailable(slot: number): RpcError {
  return new RpcError(-32004, `Block not available for slot ${slot}`)
}

function slotSkipped(slot: number): RpcError {
  return new RpcError(-32009, `Slot ${slot} was skipped, or missing in long-term storage`)
}

// --- methods

const methods: Record<string, Handler> = {
  getHealth: () => 'ok',
  getVersion: () => ({ 'feature-set': FEATURE_SET, 'solana-core': SOLANA_CORE_VERSION }),
  getGenesisHash: (_p, { chain }) => chain.genesisHash,
  getIdentity: (_p, { chain }) => ({ identity: chain.identity }),
  getSlotLeader: (p, ctx) => (contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), ctx.chain.identity),
  getSlot: (p, ctx) => contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')),
  getBlockHeight: (p, ctx) => contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')),
  getTransactionCount: (p, ctx) => (
    contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), ctx.chain.transactionCount
  ),
  getEpochInfo: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig'))
    return {
      absoluteSlot: slot,
      blockHeight: slot,
      epoch: Math.floor(slot / SLOTS_PER_EPOCH),
      slotIndex: slot % SLOTS_PER_EPOCH,
      slotsInEpoch: SLOTS_PER_EPOCH,
      transactionCount: ctx.chain.transactionCount,
    }
  },
  getEpochSchedule: () => ({
    firstNormalEpoch: 0,
    firstNormalSlot: 0,
    leaderScheduleSlotOffset: SLOTS_PER_EPOCH,
    slotsPerEpoch: SLOTS_PER_EPOCH,
    warmup: false,
  }),
  getLatestBlockhash: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig'))
    const blockhash = ctx.chain.blockhashAt(slot) as string
    return withContext(slot, { blockhash, lastValidBlockHeight: slot + MAX_PROCESSING_AGE })
  },
  isBlockhashValid: (p, ctx) => {
    const blockhash = required(p, 0, 'at least 1 parameter')
    const bytes = typeof blockhash === 'string' ? tryDecodeBase58(blockhash) : ''
    if (typeof bytes === 'string' || bytes.length !== 32) throw invalidParams('Invalid param: Invalid')
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return withContext(slot, ctx.chain.isBlockhashValid(blockhash as string))
  },
  getBalance: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return withContext(slot, ctx.chain.getAccount(address)?.lamports ?? 0n)
  },
  getAccountInfo: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const config = accountConfig(ctx, p[1])
    return withContext(config.slot, encodeAccount(ctx, ctx.chain.getAccount(address), config))
  },
  getMultipleAccounts: (p, ctx) => {
    const addresses = pubkeyList(required(p, 0, 'at least 1 parameter'), MAX_MULTIPLE_ACCOUNTS)
    const config = accountConfig(ctx, p[1])
    return withContext(
      config.slot,
      addresses.map((a) => encodeAccount(ctx, ctx.chain.getAccount(a), config)),
    )
  },
  getProgramAccounts: (p, ctx) => {
    const program = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const raw = asObject(p[1], 'RpcProgramAccountsConfig')
    const config = accountConfig(ctx, raw)
    const filters = parseFilters(raw.filters)
    const value = ctx.chain
      .programAccounts(program)
      .filter(({ account }) => filters.every((f) => f.match(account)))
      .map(({ pubkey, account }) => ({ account: encodeAccount(ctx, account, config), pubkey }))
    return optionalBool(raw.withContext, false) ? withContext(config.slot, value) : value
  },
  getMinimumBalanceForRentExemption: (p, ctx) => {
    const length = parseU64(p[0] ?? 0, 'usize')
    contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return ctx.chain.svm.minimumBalanceForRentExemption(BigInt(length))
  },
  getFeeForMessage: (p, ctx) => {
    const text = required(p, 0, 'at least 1 parameter')
    if (typeof text !== 'string')
      throw invalidParams(`Invalid params: invalid type: ${typeName(text)}, expected a string.`)
    const bytes = tryDecodeBase64(text)
    if (typeof bytes === 'string') throw invalidParams(`invalid base64 encoding: ${bytes}`)
    const message = parseMessage(bytes)
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    const valid = ctx.chain.isBlockhashValid(message.recentBlockhash)
    return withContext(slot, valid ? ctx.chain.feeFor(message) : null)
  },
  getRecentPrioritizationFees: (p, ctx) => {
    if (p[0] !== undefined && p[0] !== null) pubkeyList(p[0], MAX_PRIORITIZATION_ADDRESSES)
    const current = ctx.chain.slot
    const out = []
    for (let slot = Math.max(0, current - MAX_PROCESSING_AGE); slot <= current; slot++)
      out.push({ prioritizationFee: 0, slot })
    return out
  },
  getSignatureStatuses: (p, ctx) => {
    const list = required(p, 0, 'at least 1 parameter')
    if (!Array.isArray(list))
      throw invalidParams(`Invalid params: invalid type: ${typeName(list)}, expected a sequence.`)
    if (list.length > MAX_SIGNATURE_STATUSES)
      throw invalidParams(`Too many inputs provided; max ${MAX_SIGNATURE_STATUSES}`)
    const signatures = list.map(parseSignature)
    const config = asObject(p[1], 'RpcSignatureStatusConfig')
    const search = optionalBool(config.searchTransactionHistory, false)
    return withContext(
      ctx.chain.slot,
      signatures.map((s) => signatureStatus(ctx, s, search)),
    )
  },
  getSignaturesForAddress: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const config = asObject(p[1], 'RpcSignaturesForAddressConfig')
    const commitment = atLeastConfirmed(config)
    const before = config.before === undefined || config.before === null ? undefined : parseSignature(config.before)
    const until = config.until === undefined || config.until === null ? undefined : parseSignature(config.until)
    const limit = optionalU64(config.limit) ?? MAX_SIGNATURES_FOR_ADDRESS
    if (limit === 0 || limit > MAX_SIGNATURES_FOR_ADDRESS)
      throw invalidParams(`Invalid limit; max ${MAX_SIGNATURES_FOR_ADDRESS}`)
    const maxSlot = contextSlot(ctx.chain, { ...config, commitment })
    let records = ctx.chain.signaturesFor(address).filter((r) => r.slot <= maxSlot)
    if (before) {
      const at = records.findIndex((r) => r.signature === before)
      records = at === -1 ? [] : records.slice(at + 1)
    }
    if (until) {
      const at = records.findIndex((r) => r.signature === until)
      if (at !== -1) records = records.slice(0, at)
    }
    const finalized = ctx.chain.commitmentSlot('finalized')
    return records.slice(0, limit).map((r) => ({
      blockTime: r.blockTime,
      confirmationStatus: r.slot <= finalized ? 'finalized' : 'confirmed',
      err: r.err,
      memo: null,
      signature: r.signature,
      slot: r.slot,
    }))
  },
  getTransaction: (p, ctx) => {
    const signature = parseSignature(required(p, 0, 'at least 1 parameter'))
    const config = asObject(typeof p[1] === 'string' ? { encoding: p[1] } : p[1], 'RpcTransactionConfig')
    const encoding = parseTransactionEncoding(config.encoding)
    const commitment = atLeastConfirmed(config)
    const maxVersion = parseMaxVersion(config.maxSupportedTransactionVersion)
    const maxSlot = contextSlot(ctx.chain, { ...config, commitment })
    const record = ctx.chain.getTransaction(signature)
    if (!record || record.slot > maxSlot) return null
    return { blockTime: record.blockTime, slot: record.slot, ...uiTransactionWithMeta(record, encoding, maxVersion) }
  },
  getBlock: (p, ctx) => {
    const slot = parseU64(required(p, 0, 'at least 1 parameter'))
    const config = asObject(typeof p[1] === 'string' ? { encoding: p[1] } : p[1], 'RpcBlockConfig')
    const encoding = parseTransactionEncoding(config.encoding)
    const commitment = atLeastConfirmed(config)
    const maxVersion = parseMaxVersion(config.maxSupportedTransactionVersion)
    const details = config.transactionDetails ?? 'full'
    if (!['full', 'signatures', 'none', 'accounts'].includes(details as string))
      throw unknownVariant(details, ['full', 'signatures', 'none', 'accounts'])
    const rewards = optionalBool(config.rewards, true)
    if (slot > ctx.chain.commitmentSlot(commitment)) throw blockNotAvailable(slot)
    const block = ctx.chain.block(slot)
    if (!block) throw slotSkipped(slot)
    const out: Record<string, unknown> = {
      blockHeight: slot,
      blockTime: block.time,
      blockhash: block.blockhash,
      parentSlot: Math.max(0, slot - 1),
      previousBlockhash: block.previousBlockhash,
    }
    const records = block.signatures.map((s) => ctx.chain.getTransaction(s)).filter((r) => r !== undefined)
    if (details === 'full') out.transactions = records.map((r) => uiTransactionWithMeta(r, encoding, maxVersion))
    else if (details === 'accounts')
      out.transactions = records.map((r) => {
        const full = uiTransactionWithMeta(r, 'jsonParsed', maxVersion)
        const tx = full.transaction as { message: { accountKeys: unknown }; signatures: string[] }
        const meta = full.meta as Record<string, unknown>
        return {
          ...(maxVersion !== undefined ? { version: r.version } : {}),
          meta: {
            err: meta.err,
            fee: meta.fee,
            postBalances: meta.postBalances,
            postTokenBalances: meta.postTokenBalances,
            preBalances: meta.preBalances,
            preTokenBalances: meta.preTokenBalances,
            status: meta.status,
          },
          transaction: { accountKeys: tx.message.accountKeys, signatures: tx.signatures },
        }
      })
    else if (details === 'signatures') out.signatures = records.map((r) => r.signature)
    if (rewards) out.rewards = []
    return out
  },
  getBlocks: (p, ctx) => {
    const start = parseU64(required(p, 0, 'at least 1 parameter'))
    const second = p[1]
    const config = asObject(typeof second === 'object' ? second : p[2], 'RpcContextConfig')
    const maxSlot = ctx.chain.commitmentSlot(atLeastConfirmed(config))
    const end = typeof second === 'number' ? parseU64(second) : maxSlot
    if (end >= start && end - start > MAX_BLOCK_RANGE)
      throw invalidParams(`Slot range too large; max ${MAX_BLOCK_RANGE}`)
    return ctx.chain.blockSlots(start, Math.min(end, maxSlot))
  },
  getBlocksWithLimit: (p, ctx) => {
    const start = parseU64(required(p, 0, 'at least 2 parameters'))
    const limit = parseU64(required(p, 1, 'at least 2 parameters'))
    if (limit > MAX_BLOCK_RANGE) throw invalidParams(`Limit too large; max ${MAX_BLOCK_RANGE}`)
    const maxSlot = ctx.chain.commitmentSlot(atLeastConfirmed(asObject(p[2], 'RpcContextConfig')))
    return ctx.chain.blockSlots(start, maxSlot).slice(0, limit)
  },
  getBlockTime: (p, ctx) => {
    const slot = parseU64(required(p, 0, 'at least 1 parameter'))
    if (slot > ctx.chain.commitmentSlot('confirmed')) throw blockNotAvailable(slot)
    const block = ctx.chain.block(slot)
    if (!block) throw slotSkipped(slot)
    return block.time
  },
  getFirstAvailableBlock: (_p, ctx) => ctx.chain.firstAvailableBlock(),
  minimumLedgerSlot: (_p, ctx) => ctx.chain.firstAvailableBlock(),
  getMaxRetransmitSlot: (_p, ctx) => ctx.chain.slot,
  getMaxShredInsertSlot: (_p, ctx) => ctx.chain.slot,
  getHighestSnapshotSlot: () => {
    throw new RpcError(-32008, 'No snapshot')
  },
  getClusterNodes: (_p, ctx) => [
    {
      featureSet: FEATURE_SET,
      gossip: null,
      pubkey: ctx.chain.identity,
      pubsub: ctx.rpcAddress ?? null,
      rpc: ctx.rpcAddress ?? null,
      shredVersion: 0,
      tpu: null,
      tpuQuic: null,
      version: SOLANA_CORE_VERSION,
    },
  ],
  getVoteAccounts: () => ({ current: [], delinquent: [] }),
  getInflationGovernor: () => ({ foundation: 0, foundationTerm: 0, initial: 0, taper: 0, terminal: 0 }),
  getInflationRate: (_p, ctx) => ({
    epoch: Math.floor(ctx.chain.slot / SLOTS_PER_EPOCH),
    foundation: 0,
    total: 0,
    validator: 0,
  }),
  getStakeMinimumDelegation: (p, ctx) =>
    withContext(contextSlot(ctx.chain, asObject(p[0], 'RpcContextConfig')), 1_000_000_000),
  getRecentPerformanceSamples: () => [],
  getSupply: (p, ctx) => {
    const slot = contextSlot(ctx.chain, asObject(p[0], 'RpcSupplyConfig'))
    const { total, faucet } = ctx.chain.supply()
    return withContext(slot, {
      circulating: total - faucet,
      nonCirculating: faucet,
      nonCirculatingAccounts: optionalBool(asObject(p[0], 'RpcSupplyConfig').excludeNonCirculatingAccountsList, false)
        ? []
        : [ctx.chain.faucet],
      total,
    })
  },
  getTokenAccountsByOwner: (p, ctx) => tokenAccounts(ctx, p, 'owner'),
  getTokenAccountsByDelegate: (p, ctx) => tokenAccounts(ctx, p, 'delegate'),
  getTokenAccountBalance: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    const account = ctx.chain.getAccount(address)
    if (!account) throw invalidParams('Invalid param: could not find account')
    const token = readTokenAccount(account)
    const decimals = token && (token.isNative !== null ? 9 : ctx.chain.mintDecimals(token.mint))
    if (!token || decimals === undefined) throw invalidParams('Invalid param: not a Token account')
    return withContext(slot, uiTokenAmount(token.amount, decimals))
  },
  getTokenSupply: (p, ctx) => {
    const { slot, mint } = mintParam(p, ctx)
    return withContext(slot, uiTokenAmount(mint.supply, mint.decimals))
  },
  getTokenLargestAccounts: (p, ctx) => {
    const { address, slot, account, mint } = mintParam(p, ctx)
    const holders = ctx.chain
      .programAccounts(account.owner)
      .map(({ pubkey, account: a }) => ({ pubkey, token: readTokenAccount(a) }))
      .filter((h) => h.token?.mint === address)
      .sort((a, b) => (a.token!.amount < b.token!.amount ? 1 : a.token!.amount > b.token!.amount ? -1 : 0))
      .slice(0, 20)
    return withContext(
      slot,
      holders.map((h) => ({ address: h.pubkey, ...uiTokenAmount(h.token!.amount, mint.decimals) })),
    )
  },
  requestAirdrop: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 2 parameters'))
    const lamports = parseU64(required(p, 1, 'at least 2 parameters'))
    asObject(p[2], 'RpcRequestAirdropConfig')
    const result = ctx.chain.airdrop(address, BigInt(lamports))
    if (!result.record) throw new RpcError(-32603, 'Internal error')
    ctx.onReceived?.(result.record.signature)
    return result.record.signature
  },
  sendTransaction: (p, ctx) => {
    const config = asObject(p[1], 'RpcSendTransactionConfig')
    const tx = decodeTransaction(required(p, 0, 'at least 1 parameter'), config.encoding)
    const signature = tx.signatures[0] as string
    if (!optionalBool(config.skipPreflight, false)) {
      if (!verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure')
      contextSlot(ctx.chain, { commitment: config.preflightCommitment, minContextSlot: config.minContextSlot })
      const result = ctx.chain.simulate(tx, { sigVerify: true })
      if (result.err !== null)
        throw new RpcError(
          -32002,
          `Transaction simulation failed: ${transactionErrorText(result.err)}`,
          simulationValue(ctx, tx, result),
        )
    }
    ctx.onReceived?.(signature)
    // Skipping preflight, a transaction the runtime rejects is silently dropped, as by a validator's banking stage.
    ctx.chain.execute(tx)
    return signature
  },
  simulateTransaction: (p, ctx) => {
    const config = asObject(p[1], 'RpcSimulateTransactionConfig')
    const tx = decodeTransaction(required(p, 0, 'at least 1 parameter'), config.encoding)
    const sigVerify = optionalBool(config.sigVerify, false)
    const replace = optionalBool(config.replaceRecentBlockhash, false)
    if (sigVerify && replace) throw invalidParams('sigVerify may not be used with replaceRecentBlockhash')
    const slot = contextSlot(ctx.chain, config)
    if (sigVerify && !verifySignatures(tx)) throw new RpcError(-32003, 'Transaction signature verification failure')
    const accountsConfig =
      config.accounts === undefined || config.accounts === null
        ? undefined
        : asObject(config.accounts, 'RpcSimulateTransactionAccountsConfig')
    let addresses: string[] = []
    let accountEncoding: AccountEncoding = 'base64'
    if (accountsConfig) {
      accountEncoding = parseAccountEncoding(accountsConfig.encoding) ?? 'base64'
      if (accountEncoding === 'binary' || accountEncoding === 'base58')
        throw invalidParams('base58 encoding not supported')
      addresses = pubkeyList(accountsConfig.addresses ?? [], Number.MAX_SAFE_INTEGER)
    }
    const result = ctx.chain.simulate(tx, { sigVerify, replaceBlockhash: replace })
    if (addresses.length > result.accountKeys.length)
      throw invalidParams(`Too many accounts provided; max ${result.accountKeys.length}`)
    const extra: Record<string, unknown> = {}
    if (replace) {
      const latest = ctx.chain.blockhashAt(ctx.chain.slot) as string
      extra.replacementBlockhash = { blockhash: latest, lastValidBlockHeight: ctx.chain.slot + MAX_PROCESSING_AGE }
    }
    if (accountsConfig)
      extra.accounts =
        result.err === null
          ? addresses.map((a) => {
              const account = result.postAccounts?.has(a) ? result.postAccounts.get(a) : ctx.chain.getAccount(a)
              return account ? uiAccount(account, accountEncoding, undefined, ctx.chain.mintDecimals) : null
            })
          : null
    if (optionalBool(config.innerInstructions, false)) extra.innerInstructions = result.innerInstructions
    return withContext(slot, simulationValue(ctx, tx, result, extra))
  },
}

export const METHOD_NAMES = Object.keys(methods)

export interface JsonRpcRequest {
  jsonrpc?: unknown
  id?: unknown
  method?: unknown
  params?: unknown
}

export type JsonRpcResponse = Record<string, unknown>

/** One JSON-RPC 2.0 request → its response (never throws). */
export function handleRequest(request: unknown, ctx: RpcContext): JsonRpcResponse {
  const isObject = typeof request === 'object' && request !== null && !Array.isArray(request)
  const id = isObject && 'id' in request ? ((request as JsonRpcRequest).id ?? null) : null
  const fail = (code: number, message: string, data?: unknown): JsonRpcResponse => ({
    jsonrpc: '2.0',
    error: data === undefined ? { code, message } : { code, message, data },
    id,
  })
  if (!isObject) return fail(-32600, 'Invalid request')
  const { jsonrpc, method, params } = request as JsonRpcRequest
  if (jsonrpc !== '2.0' || typeof method !== 'string') return fail(-32600, 'Invalid request')
  const handler = Object.hasOwn(methods, method) ? methods[method] : undefined
  if (!handler) return fail(-32601, 'Method not found')
  if (params !== undefined && params !== null && !Array.isArray(params))
    return fail(-32602, `Invalid params: invalid type: ${typeName(params)}, expected a sequence.`)
  try {
    return { jsonrpc: '2.0', result: handler((params as Params | undefined) ?? [], ctx), id }
  } catch (error) {
    if (error instanceof RpcError) return fail(error.code, error.message, error.data)
    return fail(-32603, 'Internal error')
  }
}
