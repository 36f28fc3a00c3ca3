/** Solana transactions built with @solana/kit for the describer's tests and fuzz suite (base64 wire form). */
import {
  type Address,
  appendTransactionMessageInstructions,
  compileTransaction,
  compressTransactionMessageUsingAddressLookupTables,
  createNoopSigner,
  createTransactionMessage,
  getAddressDecoder,
  getBase64EncodedWireTransaction,
  type Blockhash,
  type Instruction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type TransactionSigner,
} from '@solana/kit'

/** A valid address made of one repeated byte (distinct bytes give distinct addresses). */
export const addr = (byte: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(byte))
export const signer = (a: Address): TransactionSigner => createNoopSigner(a)
export const BLOCKHASH = addr(200) as unknown as Blockhash

/** The wire transaction (signature slots zeroed) of `instructions` paid by `feePayer`. */
export function buildTransaction(
  feePayer: Address,
  instructions: Instruction[],
  options: { version?: 'legacy' | 0; lookupTables?: Record<Address, Address[]>; blockhash?: Blockhash } = {},
): string {
  const message = pipe(
    createTransactionMessage({ version: options.version ?? 'legacy' }),
    (m) => setTransactionMessageFeePayerSigner(signer(feePayer), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: options.blockhash ?? BLOCKHASH, lastValidBlockHeight: 1000n },
        m,
      ),
    (m) => appendTransactionMessageInstructions(instructions, m),
  )
  const compressed =
    options.lookupTables && options.version === 0
      ? compressTransactionMessageUsingAddressLookupTables(message as never, options.lookupTables)
      : message
  return getBase64EncodedWireTransaction(compileTransaction(compressed as never))
}

export const bytesOf = (base64: string) => new Uint8Array(Buffer.from(base64, 'base64'))
export const base64Of = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64')
