/**
 * Base58 (Bitcoin's alphabet), the text form of Solana's public keys, signatures and blockhashes
 * (https://solana.com/docs/rpc). Own code rather than @scure/base's generic radix conversion, which is the reference
 * it is tested against (test/fuzz/solana-transaction.fuzz.test.ts): measured here on Node 22, @scure/base took 26 ms
 * to decode the longest base58 transaction a node takes (1683 characters) and 150 µs to encode one 32-byte key,
 * this code about 1 ms and 2 µs — and a client chooses how many it sends. Neither function throws.
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const DIGITS = new Int8Array(128).fill(-1)
for (let i = 0; i < ALPHABET.length; i++) DIGITS[ALPHABET.charCodeAt(i)] = i

/** 24-bit limbs: a limb times 58^4 plus a carry stays below 2^53, exact in a double. */
const LIMB = 0x1000000
/** Base58 digits per byte, rounded up (log 256 / log 58 = 1.3657…). */
const DIGITS_PER_BYTE = 1.3658

/**
 * The bytes of base58 text, or undefined when it holds a character outside the alphabet or more than `maxBytes`
 * bytes. The text's length is checked first, so a long text costs nothing.
 */
export function base58Decode(text: string, maxBytes: number): Uint8Array | undefined {
  const n = text.length
  if (n > Math.ceil(maxBytes * DIGITS_PER_BYTE)) return undefined
  let zeros = 0
  while (zeros < n && text.charCodeAt(zeros) === 0x31 /* 1 */) zeros++
  const limbs: number[] = []
  let i = zeros
  while (i < n) {
    // Up to four digits at a time: one pass over the limbs per four characters.
    let mul = 1
    let add = 0
    for (let k = 0; k < 4 && i < n; k++, i++) {
      const c = text.charCodeAt(i)
      const d = c < 128 ? DIGITS[c]! : -1
      if (d < 0) return undefined
      mul *= 58
      add = add * 58 + d
    }
    let carry = add
    for (let j = 0; j < limbs.length; j++) {
      const v = limbs[j]! * mul + carry
      carry = Math.floor(v / LIMB)
      limbs[j] = v - carry * LIMB
    }
    while (carry > 0) {
      limbs.push(carry % LIMB)
      carry = Math.floor(carry / LIMB)
    }
  }
  // Little-endian limbs to big-endian bytes, without the high zero bytes of the top limb.
  let size = limbs.length * 3
  const top = limbs.length > 0 ? limbs[limbs.length - 1]! : 0
  if (top < 0x10000) size--
  if (top < 0x100) size--
  if (limbs.length === 0) size = 0
  if (zeros + size > maxBytes) return undefined
  const out = new Uint8Array(zeros + size)
  let at = out.length - 1
  for (let j = 0; j < limbs.length; j++) {
    const l = limbs[j]!
    for (let b = 0; b < 3 && at >= zeros; b++, at--) out[at] = (l >>> (8 * b)) & 0xff
  }
  return out
}

/** The base58 text of bytes. */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++
  const digits = new Uint8Array(Math.ceil((bytes.length - zeros) * DIGITS_PER_BYTE) + 1)
  let used = 0
  for (let i = zeros; i < bytes.length; i++) {
    let carry = bytes[i]!
    for (let j = 0; j < used; j++) {
      carry += digits[j]! * 256
      digits[j] = carry % 58
      carry = (carry / 58) | 0
    }
    while (carry > 0) {
      digits[used++] = carry % 58
      carry = (carry / 58) | 0
    }
  }
  let text = '1'.repeat(zeros)
  for (let j = used - 1; j >= 0; j--) text += ALPHABET[digits[j]!]
  return text
}

/** A 32-byte public key's base58 text is 32 to 44 characters. */
const MIN_PUBKEY = 32
const MAX_PUBKEY = 44

/** The 32 bytes of a base58 public key (an account, a program, a mint), or undefined. */
export function pubkeyBytes(value: unknown): Uint8Array | undefined {
  if (!isPubkey(value)) return undefined
  return base58Decode(value, 32)
}

/**
 * 256^k in base58, k = 0…32: a number of k + 1 bytes lies in [256^k, 256^(k+1)). Base58's alphabet is in ASCII
 * order, so two texts of one length without leading '1's compare as their values do.
 */
const POWERS_OF_256 = Array.from({ length: 33 }, (_, k) => {
  const bytes = new Uint8Array(k + 1)
  bytes[0] = 1
  return base58Encode(bytes)
})

/** The sign of (the digits of `text` after its `zeros` leading 1s) − `than` (base58, `than` without a leading 1). */
function compareDigits(text: string, zeros: number, than: string): number {
  const n = text.length - zeros
  if (n !== than.length) return n - than.length
  for (let i = 0; i < n; i++) {
    const d = text.charCodeAt(zeros + i) - than.charCodeAt(i)
    if (d !== 0) return d
  }
  return 0
}

/**
 * Whether a value is a base58 public key (32 bytes): what base58Decode(value, 32) gives 32 bytes for, known without
 * the arithmetic (every Solana account read checks one: docs/benchmarks.md). Decoded, `zeros` leading '1's are as many
 * zero bytes and the rest is a number of 32 − zeros bytes, none when zeros is 32: every character in the alphabet
 * and that number between two powers of 256, compared as text.
 */
export function isPubkey(value: unknown): value is string {
  if (typeof value !== 'string') return false
  const n = value.length
  if (n < MIN_PUBKEY || n > MAX_PUBKEY) return false
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c >= 128 || DIGITS[c]! < 0) return false
  }
  let zeros = 0
  while (zeros < n && value.charCodeAt(zeros) === 0x31 /* 1 */) zeros++
  const bytes = 32 - zeros
  if (bytes <= 0) return bytes === 0 && zeros === n
  return (
    compareDigits(value, zeros, POWERS_OF_256[bytes - 1]!) >= 0 &&
    compareDigits(value, zeros, POWERS_OF_256[bytes]!) < 0
  )
}
