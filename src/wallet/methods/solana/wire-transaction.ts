/**
 * The parts of a wire transaction the Solana methods check before asking the user (fee payer, signers, blockhash)
 * and the signing itself, with @solana/kit's codecs. Anything malformed is -32602 naming the field; the console's
 * description of the transaction is src/wallet/describe's.
 */
import {
  getBase58Decoder,
  getBase64Decoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  type Address,
  type SignatureBytes,
  type Transaction,
} from '@solana/kit'
import type { SolanaSigner } from '../../solana-keys.ts'
import { badParam } from './params.ts'

/** The protocol's limit on a serialized transaction (PACKET_DATA_SIZE). */
const MAX_TRANSACTION_BYTES = 1232

export interface WireTransaction {
  transaction: Transaction
  feePayer: string
  /** Addresses that must sign, in order. */
  signers: string[]
  recentBlockhash: string
}

const instructionsOf = (m: object): { programAddressIndex: number }[] =>
  (m as { instructions?: { programAddressIndex: number }[] }).instructions ?? []

export function readWireTransaction(bytes: Uint8Array, path: string): WireTransaction {
  if (bytes.length > MAX_TRANSACTION_BYTES)
    throw badParam(path, `is not a Solana transaction: ${bytes.length} bytes, at most ${MAX_TRANSACTION_BYTES}`)
  try {
    const transaction = getTransactionDecoder().decode(bytes)
    const [message, end] = getCompiledTransactionMessageDecoder().read(transaction.messageBytes, 0)
    const n = message.header.numSignerAccounts
    const signers = message.staticAccounts.slice(0, n)
    const ok =
      end === transaction.messageBytes.length &&
      n >= 1 &&
      signers.length === n &&
      Object.keys(transaction.signatures).length === n &&
      instructionsOf(message).every((i) => i.programAddressIndex < message.staticAccounts.length)
    if (!ok) throw new Error('inconsistent header')
    return {
      transaction,
      feePayer: signers[0]!,
      signers,
      recentBlockhash: String(message.lifetimeToken),
    }
  } catch {
    throw badParam(path, 'is not a Solana transaction (legacy or v0 wire format)')
  }
}

/** The transaction with `signer`'s signature added (other signatures kept), as base64 wire bytes. */
export async function signWireTransaction(wire: WireTransaction, signer: SolanaSigner): Promise<string> {
  const signature = (await signer.sign(wire.transaction.messageBytes as unknown as Uint8Array)) as SignatureBytes
  const signed: Transaction = {
    ...wire.transaction,
    signatures: { ...wire.transaction.signatures, [signer.address as Address]: signature },
  }
  return getBase64Decoder().decode(getTransactionEncoder().encode(signed))
}

/** The transaction's id: its first (the fee payer's) signature, base58. */
export function firstSignature(base64: string, path: string): string {
  const tx = readWireTransaction(new Uint8Array(Buffer.from(base64, 'base64')), path)
  const sig = tx.transaction.signatures[tx.feePayer as Address]
  return sig ? getBase58Decoder().decode(sig) : ''
}
