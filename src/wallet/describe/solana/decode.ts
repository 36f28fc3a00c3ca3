/**
 * A Solana wire transaction read strictly for the approval view: @solana/kit's decoders do the byte work, and every
 * rule a node would refuse the transaction by (https://solana.com/docs/core/transactions; v0 messages:
 * https://docs.anza.xyz/proposals/versioned-transactions) is checked after them, so anything malformed is a
 * SolanaDecodeError with a message saying what is wrong, never a crash or a partial view.
 */
import {
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  isSolanaError,
  SOLANA_ERROR__TRANSACTION__MESSAGE_SIGNATURES_MISMATCH,
  SOLANA_ERROR__TRANSACTION__VERSION_NUMBER_NOT_SUPPORTED,
} from '@solana/kit'
import { MAX_BASE64_TRANSACTION, MAX_TRANSACTION_BYTES } from '../../../methods/solana/wire-transaction.ts'

/** The bytes are not a transaction (or a message) the wallet can show; the message says why. */
export class SolanaDecodeError extends Error {
  override name = 'SolanaDecodeError'
}

/** At most 256 accounts: instructions name them by a u8 index (Agave: MAX_TX_ACCOUNT_LOCKS is lower still). */
export const MAX_ACCOUNTS = 256

/** One account the message names: a static key, or an entry of an address lookup table (v0). */
export interface SolanaAccountRef {
  /** Base58; undefined for a lookup-table entry not resolved yet (see resolveLookups). */
  address?: string
  lookup?: { table: string; index: number }
  signer: boolean
  writable: boolean
}

export interface DecodedSolanaInstruction {
  /** Index of the program in `accounts` (always a static key). */
  programIndex: number
  programAddress: string
  /** Indexes into `accounts`. */
  accountIndexes: number[]
  data: Uint8Array
}

export interface DecodedSolanaTransaction {
  version: 'legacy' | 0
  /** Base58 signatures in signer order; null where the slot is still empty (all zeros). */
  signatures: (string | null)[]
  /** The accounts that must sign, fee payer first. */
  signers: string[]
  feePayer: string
  /** The blockhash, or the nonce value when the first instruction advances a durable nonce. */
  recentBlockhash: string
  header: { numSignerAccounts: number; numReadonlySignerAccounts: number; numReadonlyNonSignerAccounts: number }
  staticAccounts: string[]
  /** Static keys, then lookup entries: every table's writable ones, then every table's read-only ones (runtime order). */
  accounts: SolanaAccountRef[]
  lookups: { table: string; writableIndexes: number[]; readonlyIndexes: number[] }[]
  instructions: DecodedSolanaInstruction[]
  /** The message's bytes (what the signatures sign). */
  messageBytes: Uint8Array
}

/** The legacy / v0 shape of kit's compiled message (its type also covers v1). */
interface LegacyOrV0Message {
  version: 'legacy' | 0
  header: DecodedSolanaTransaction['header']
  staticAccounts: readonly string[]
  lifetimeToken: string
  instructions: readonly { programAddressIndex: number; accountIndices?: readonly number[]; data?: Uint8Array }[]
  addressTableLookups?: readonly {
    lookupTableAddress: string
    writableIndexes: readonly number[]
    readonlyIndexes: readonly number[]
  }[]
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Strict standard base64 (no whitespace, padding required), at most `maxChars` characters. */
export function decodeBase64(text: unknown, what: string, maxChars: number): Uint8Array {
  if (typeof text !== 'string') throw new SolanaDecodeError(`The ${what} must be a base64 string.`)
  if (text.length > maxChars)
    throw new SolanaDecodeError(`The ${what} is too large: at most ${maxChars} base64 characters.`)
  if (!BASE64.test(text)) throw new SolanaDecodeError(`The ${what} is not valid base64.`)
  return new Uint8Array(Buffer.from(text, 'base64'))
}

/** A base64 wire transaction (what signTransaction / signAndSendTransaction take), decoded. */
export function decodeSolanaTransactionBase64(text: unknown): DecodedSolanaTransaction {
  return decodeSolanaTransaction(decodeBase64(text, 'transaction', MAX_BASE64_TRANSACTION))
}

/** Runs a kit decoder; its errors become one readable SolanaDecodeError about `part`. */
function kit<T>(part: string, run: () => T): T {
  try {
    return run()
  } catch (e) {
    if (isSolanaError(e, SOLANA_ERROR__TRANSACTION__VERSION_NUMBER_NOT_SUPPORTED))
      throw new SolanaDecodeError('Unsupported transaction version: only legacy and v0 transactions exist on Solana.')
    if (isSolanaError(e, SOLANA_ERROR__TRANSACTION__MESSAGE_SIGNATURES_MISMATCH))
      throw new SolanaDecodeError(
        `Bad signature count: the transaction carries ${e.context.signaturesLength} signatures, its message asks ` +
          `for ${e.context.numRequiredSignatures}.`,
      )
    throw new SolanaDecodeError(`Not a Solana transaction: ${part} is truncated or malformed.`)
  }
}

const fail = (why: string): never => {
  throw new SolanaDecodeError(`Not a valid Solana transaction: ${why}.`)
}

export function decodeSolanaTransaction(bytes: Uint8Array): DecodedSolanaTransaction {
  if (!(bytes instanceof Uint8Array)) fail('expected bytes')
  if (bytes.length === 0) fail('it is empty')
  if (bytes.length > MAX_TRANSACTION_BYTES)
    fail(`it has ${bytes.length} bytes, more than the ${MAX_TRANSACTION_BYTES} a Solana transaction may have`)
  // Legacy and v0 transactions start with the signature count (< 128 in one byte); a first byte with the top bit set
  // is a newer, message-first envelope no cluster accepts yet.
  if ((bytes[0]! & 0x80) !== 0) fail('unsupported envelope (only legacy and v0 transactions exist)')
  const [tx] = kit('the signature list', () => getTransactionDecoder().read(bytes, 0))
  const messageBytes = new Uint8Array(tx.messageBytes)
  const [compiled, end] = kit('the message', () => getCompiledTransactionMessageDecoder().read(messageBytes, 0))
  if (end !== messageBytes.length) fail(`${messageBytes.length - end} unexpected bytes after the message`)
  if (compiled.version !== 'legacy' && compiled.version !== 0) fail(`unsupported version ${String(compiled.version)}`)
  const message = compiled as unknown as LegacyOrV0Message
  const version = message.version
  const { header } = message
  const staticAccounts = message.staticAccounts.map(String)
  const nSigners = header.numSignerAccounts
  if (nSigners === 0) fail('no fee payer (the header names no signer)')
  if (nSigners > staticAccounts.length)
    fail(`the header names ${nSigners} signers but only ${staticAccounts.length} accounts`)
  if (header.numReadonlySignerAccounts >= nSigners) fail('the fee payer is read-only (it must be writable)')
  if (nSigners + header.numReadonlyNonSignerAccounts > staticAccounts.length)
    fail('the header names more read-only accounts than the message has')
  if (new Set(staticAccounts).size !== staticAccounts.length) fail('an account is listed twice')
  const lookups = (message.addressTableLookups ?? []).map((l) => ({
    table: String(l.lookupTableAddress),
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }))
  const loaded = lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0)
  const total = staticAccounts.length + loaded
  if (total > MAX_ACCOUNTS) fail(`it names ${total} accounts, more than ${MAX_ACCOUNTS}`)
  const accounts: SolanaAccountRef[] = staticAccounts.map((address, i) => ({
    address,
    signer: i < nSigners,
    writable:
      i < nSigners
        ? i < nSigners - header.numReadonlySignerAccounts
        : i < staticAccounts.length - header.numReadonlyNonSignerAccounts,
  }))
  for (const writable of [true, false])
    for (const l of lookups)
      for (const index of writable ? l.writableIndexes : l.readonlyIndexes)
        accounts.push({ lookup: { table: l.table, index }, signer: false, writable })
  const instructions = message.instructions.map((ix, n) => {
    const programIndex = ix.programAddressIndex
    if (programIndex >= staticAccounts.length)
      fail(
        `instruction #${n + 1} names program account ${programIndex}, not a static account (${staticAccounts.length})`,
      )
    if (programIndex === 0) fail(`instruction #${n + 1} calls the fee payer as a program`)
    const accountIndexes = [...(ix.accountIndices ?? [])]
    const bad = accountIndexes.find((i) => i >= total)
    if (bad !== undefined) fail(`instruction #${n + 1} names account index ${bad}, out of range (${total} accounts)`)
    return {
      programIndex,
      programAddress: staticAccounts[programIndex]!,
      accountIndexes,
      data: new Uint8Array(ix.data ?? []),
    }
  })
  const signers = staticAccounts.slice(0, nSigners)
  const base58 = getBase58Decoder()
  const signatures = signers.map((s) => {
    const sig = (tx.signatures as Record<string, Uint8Array | null>)[s]
    return sig ? base58.decode(sig) : null
  })
  return {
    version,
    signatures,
    signers,
    feePayer: signers[0]!,
    recentBlockhash: String(message.lifetimeToken),
    header: { ...header },
    staticAccounts,
    accounts,
    lookups,
    instructions,
    messageBytes,
  }
}

/** The same transaction with lookup-table entries filled from `tables` (table → index → address) where known. */
export function resolveLookups(
  tx: DecodedSolanaTransaction,
  tables: Record<string, Record<string, string>> | undefined,
): SolanaAccountRef[] {
  return tx.accounts.map((a) => {
    if (a.address !== undefined || !a.lookup || !tables) return a
    const address = tables[a.lookup.table]?.[String(a.lookup.index)]
    return typeof address === 'string' ? { ...a, address } : a
  })
}
