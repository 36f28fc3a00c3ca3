/**
 * personal_sign messages (EIP-191): shown as text when the bytes are valid UTF-8 without control characters, else as
 * hex.
 */
import { hexToBytes, isHex } from 'viem'

const UTF8 = new TextDecoder('utf-8', { fatal: true })

export interface MessageView {
  /** Readable text; undefined when the message is binary. */
  text?: string
  /** The hex the dapp sent, when it sent hex. */
  hex?: string
  bytes: number
}

export function describeMessage(message: string): MessageView {
  if (!isHex(message)) return { text: message, bytes: new TextEncoder().encode(message).length }
  const bytes = hexToBytes(message)
  try {
    const text = UTF8.decode(bytes)
    // Control characters (other than tab/newline/carriage return) mean binary data, e.g. a hash to sign.
    if (!/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text)) return { text, hex: message, bytes: bytes.length }
  } catch {}
  return { hex: message, bytes: bytes.length }
}
