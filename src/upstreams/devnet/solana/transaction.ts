/**
 * Reads a transaction in Solana's wire format (https://solana.com/docs/core/transactions: compact-u16 lengths,
 * signatures, then a legacy or v0 message), strictly enough to answer a bad one as the validator does and never
 * throw anything else.
 */
import { createPublicKey, verify } from 'node:crypto'
import { encodeBase58, invalidParams, tryDecodeBase58 } from './codec.ts'

export const PACKET_DATA_SIZE = 1232
const DESERIALIZE = 'failed to deserialize solana_transaction::versioned::VersionedTransaction'

export interface CompiledInstruction {
  programIdIndex: number
  accounts: number[]
  data: Uint8Array
}

export interface AddressTableLookup {
  accountKey: string
  writableIndexes: number[]
  readonlyIndexes: number[]
}

export interface ParsedTransaction {
  wire: Uint8Array
  signatures: string[]
  signatureBytes: Uint8Array[]
  messageBytes: Uint8Array
  version: 'legacy' | 0
  header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number }
  staticKeys: string[]
  recentBlockhash: string
  instructions: CompiledInstruction[]
  addressTableLookups: AddressTableLookup[]
}

class Reader {
  offset = 0
  readonly bytes: Uint8Array
  constructor(bytes: Uint8Array) {
    this.bytes = bytes
  }
  fail(): never {
    throw invalidParams(`${DESERIALIZE}: io error: unexpected end of file`)
  }
  u8(): number {
    if (this.offset >= this.bytes.length) this.fail()
    return this.bytes[this.offset++] as number
  }
  take(n: number): Uint8Array {
    if (this.offset + n > this.bytes.length) this.fail()
    const out = this.bytes.subarray(this.offset, this.offset + n)
    this.offset += n
    return out
  }
  /** compact-u16: 7 bits a byte, at most 3 bytes. */
  shortU16(): number {
    let value = 0
    for (let i = 0; i < 3; i++) {
      const byte = this.u8()
      value |= (byte & 0x7f) << (7 * i)
      if ((byte & 0x80) === 0) {
        if (value > 0xffff) break
        return value
      }
    }
    throw invalidParams(`${DESERIALIZE}: invalid value: integer, expected a ShortU16`)
  }
  bytesWithLength(): Uint8Array {
    return this.take(this.shortU16())
  }
}

/** Parses a message (legacy or v0) from `reader` at its offset. */
function readMessage(reader: Reader) {
  const first = reader.u8()
  let version: 'legacy' | 0 = 'legacy'
  let numRequiredSignatures = first
  if (first & 0x80) {
    if ((first & 0x7f) !== 0)
      throw invalidParams(
        `${DESERIALIZE}: invalid value: integer \`${first & 0x7f}\`, expected a valid transaction message version`,
      )
    version = 0
    numRequiredSignatures = reader.u8()
  }
  const header = {
    numRequiredSignatures,
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8(),
  }
  const keyCount = reader.shortU16()
  const staticKeys: string[] = []
  for (let i = 0; i < keyCount; i++) staticKeys.push(encodeBase58(reader.take(32)))
  const recentBlockhash = encodeBase58(reader.take(32))
  const instructions: CompiledInstruction[] = []
  const instructionCount = reader.shortU16()
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8()
    const accounts = [...reader.bytesWithLength()]
    instructions.push({ programIdIndex, accounts, data: reader.bytesWithLength().slice() })
  }
  const addressTableLookups: AddressTableLookup[] = []
  if (version === 0) {
    const lookupCount = reader.shortU16()
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = encodeBase58(reader.take(32))
      addressTableLookups.push({
        accountKey,
        writableIndexes: [...reader.bytesWithLength()],
        readonlyIndexes: [...reader.bytesWithLength()],
      })
    }
  }
  return { version, header, staticKeys, recentBlockhash, instructions, addressTableLookups }
}

/** The message alone (getFeeForMessage's parameter); throws -32602 on a malformed one. */
export function parseMessage(bytes: Uint8Array): ReturnType<typeof readMessage> & { messageBytes: Uint8Array } {
  const reader = new Reader(bytes)
  const message = readMessage(reader)
  return { ...message, messageBytes: bytes.subarray(0, reader.offset) }
}

/**
 * A whole signed transaction. Agave's checks after deserializing ("sanitize"): one signature per required
 * signer, indexes within the account keys, a fee payer that is a writable signer.
 */
export function parseTransaction(wire: Uint8Array): ParsedTransaction {
  const reader = new Reader(wire)
  const signatureCount = reader.shortU16()
  const signatureBytes: Uint8Array[] = []
  for (let i = 0; i < signatureCount; i++) signatureBytes.push(reader.take(64))
  const start = reader.offset
  const message = readMessage(reader)
  const messageBytes = wire.subarray(start, reader.offset)
  const { header, staticKeys, instructions, addressTableLookups } = message
  const loaded = addressTableLookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0)
  const sane =
    signatureCount === header.numRequiredSignatures &&
    header.numRequiredSignatures > 0 &&
    header.numReadonlySignedAccounts < header.numRequiredSignatures &&
    header.numRequiredSignatures + header.numReadonlyUnsignedAccounts <= staticKeys.length &&
    staticKeys.length + loaded <= 256 &&
    new Set(staticKeys).size === staticKeys.length &&
    instructions.every(
      (ix) =>
        ix.programIdIndex > 0 &&
        ix.programIdIndex < staticKeys.length &&
        ix.accounts.every((a) => a < staticKeys.length + loaded),
    )
  if (!sane) throw invalidParams('invalid transaction: Transaction failed to sanitize accounts offsets correctly')
  return {
    wire: wire.subarray(0, reader.offset),
    signatures: signatureBytes.map(encodeBase58),
    signatureBytes,
    messageBytes,
    ...message,
  }
}

/** Whether static key `index` is writable, from the message header. */
export function isStaticWritable(tx: Pick<ParsedTransaction, 'header' | 'staticKeys'>, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = tx.header
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts
  return index < tx.staticKeys.length - numReadonlyUnsignedAccounts
}

// RFC 8410's SubjectPublicKeyInfo prefix for a raw 32-byte Ed25519 public key.
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')

/** Every required signature is a valid Ed25519 signature of the message by its signer (node:crypto). */
export function verifySignatures(tx: ParsedTransaction): boolean {
  return tx.signatureBytes.every((signature, i) => {
    const signer = tryDecodeBase58(tx.staticKeys[i] as string) as Uint8Array
    try {
      const key = createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, signer]), format: 'der', type: 'spki' })
      return verify(null, tx.messageBytes, key, signature)
    } catch {
      return false
    }
  })
}
