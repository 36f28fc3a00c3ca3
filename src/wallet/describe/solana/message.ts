/**
 * A Solana signMessage request: the base64 bytes shown as text when they are printable UTF-8 (the same rule as
 * personal_sign, ../message.ts), else as hex with a warning. Bytes that decode as a transaction message are flagged:
 * an ed25519 signature over them is that transaction's signature.
 */
import { bytesToHex } from 'viem'
import { describeMessage } from '../message.ts'
import { decodeBase64, decodeSolanaTransaction } from './decode.ts'

/** More than any dapp's sign-in or message text needs; bounds what the console shows. */
export const MAX_MESSAGE_BASE64 = 64 * 1024

export interface SolanaMessageView {
  text?: string
  hex: string
  bytes: number
  warnings: string[]
}

export const BINARY_MESSAGE_WARNING =
  'The message is binary data, not text: sign it only if you know what it is (it may be a transaction or a hash).'

/** Would a node take `[0x01, 64 zero bytes, ...message]` as a one-signature transaction? */
function looksLikeTransactionMessage(message: Uint8Array): boolean {
  if (message.length + 65 > 1232) return false
  try {
    decodeSolanaTransaction(Uint8Array.from([1, ...new Uint8Array(64), ...message]))
    return true
  } catch {
    return false
  }
}

/** Never throws: a message that is not base64 gives a view that says so. */
export function describeSolanaMessage(messageBase64: string): SolanaMessageView {
  let bytes: Uint8Array
  try {
    bytes = decodeBase64(messageBase64, 'message', MAX_MESSAGE_BASE64)
  } catch (e) {
    return { hex: '0x', bytes: 0, warnings: [`${(e as Error).message} Do not sign it.`] }
  }
  const hex = bytesToHex(bytes)
  const m = describeMessage(hex)
  const warnings: string[] = []
  if (looksLikeTransactionMessage(bytes))
    warnings.push(
      'These bytes are a Solana transaction message: signing them signs that transaction. Do not sign it as a message.',
    )
  else if (m.text === undefined) warnings.push(BINARY_MESSAGE_WARNING)
  return { ...(m.text !== undefined ? { text: m.text } : {}), hex, bytes: bytes.length, warnings }
}
