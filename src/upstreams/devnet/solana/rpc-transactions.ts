/**
 * The devnet's transaction methods: sending (-32002 for a failed preflight) and simulating, airdrops, fees,
 * signature statuses, and landed transactions (getTransaction, getSignaturesForAddress).
 */
import type { SolanaChain } from './chain.ts'
import {
  invalidParams,
  parsePubkey,
  parseSignature,
  RpcError,
  tryDecodeBase58,
  tryDecodeBase64,
  typeName,
} from './codec.ts'
import { transactionFee } from './execution.ts'
import {
  asObject,
  atLeastConfirmed,
  contextSlot,
  type Handler,
  optionalBool,
  optionalU64,
  parseU64,
  pubkeyList,
  required,
  transactionReadConfig,
  type RpcContext,
  withContext,
} from './rpc-params.ts'
import { MAX_PROCESSING_AGE } from './slot-clock.ts'
import { transactionErrorText } from './transaction-errors.ts'
import {
  PACKET_DATA_SIZE,
  type ParsedTransaction,
  parseMessage,
  parseTransaction,
  verifySignatures,
} from './transaction.ts'
import { type AccountEncoding, parseAccountEncoding, uiAccount } from './ui-account.ts'
import { uiTransactionWithMeta } from './ui-transaction.ts'

const MAX_SIGNATURE_STATUSES = 256
const MAX_SIGNATURES_FOR_ADDRESS = 1000
const MAX_PRIORITIZATION_ADDRESSES = 128
/** Statuses of the last 300 slots are answered without searchTransactionHistory (Agave's status cache). */
const STATUS_CACHE_SLOTS = 300
const MAX_BASE58_SIZE = 1683
const MAX_BASE64_SIZE = 1644

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

function signatureStatus(ctx: RpcContext, signature: string, searchHistory: boolean): unknown {
  const record = ctx.chain.getTransaction(signature)
  if (!record) return null
  const chain = ctx.chain
  if (!searchHistory && chain.slot - record.slot > STATUS_CACHE_SLOTS) return null
  const finalized = record.slot <= chain.clock.commitmentSlot('finalized')
  return {
    confirmationStatus: finalized
      ? 'finalized'
      : record.slot <= chain.clock.commitmentSlot('confirmed')
        ? 'confirmed'
        : 'processed',
    confirmations: finalized ? null : chain.slot - record.slot,
    err: record.err,
    slot: record.slot,
    status: record.err === null ? { Ok: null } : { Err: record.err },
  }
}

function simulationValue(
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
    fee: transactionFee(tx),
    ...extra,
  }
}

export const transactionMethods: Record<string, Handler> = {
  getFeeForMessage: (p, ctx) => {
    const text = required(p, 0, 'at least 1 parameter')
    if (typeof text !== 'string')
      throw invalidParams(`Invalid params: invalid type: ${typeName(text)}, expected a string.`)
    const bytes = tryDecodeBase64(text)
    if (typeof bytes === 'string') throw invalidParams(`invalid base64 encoding: ${bytes}`)
    const message = parseMessage(bytes)
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    const valid = ctx.chain.clock.isBlockhashValid(message.recentBlockhash)
    return withContext(slot, valid ? transactionFee(message) : null)
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
    const finalized = ctx.chain.clock.commitmentSlot('finalized')
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
    const { config, encoding, commitment, maxVersion } = transactionReadConfig(p[1], 'RpcTransactionConfig')
    const maxSlot = contextSlot(ctx.chain, { ...config, commitment })
    const record = ctx.chain.getTransaction(signature)
    if (!record || record.slot > maxSlot) return null
    return { blockTime: record.blockTime, slot: record.slot, ...uiTransactionWithMeta(record, encoding, maxVersion) }
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
          simulationValue(tx, result),
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
      const latest = ctx.chain.clock.blockhashAt(ctx.chain.slot) as string
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
    return withContext(slot, simulationValue(tx, result, extra))
  },
}
