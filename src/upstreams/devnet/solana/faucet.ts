/**
 * The devnet's faucet for requestAirdrop: an Ed25519 key derived from the genesis hash (stable across restarts,
 * unique per devnet), and the System transfer it signs.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign } from 'node:crypto'
import { encodeBase58, tryDecodeBase58 } from './codec.ts'
import { type ParsedTransaction, parseTransaction } from './transaction.ts'

export const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n
// RFC 8410's PKCS#8 prefix for a raw 32-byte Ed25519 seed.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

export interface Faucet {
  key: KeyObject
  address: string
}

export function faucetFromSeed(seed: Uint8Array): Faucet {
  const key = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' })
  return { key, address: encodeBase58(createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-32)) }
}

/** A System transfer of `lamports` from the faucet to `to`, signed by the faucet. */
export function airdropTransaction(faucet: Faucet, to: string, lamports: bigint, blockhash: string): ParsedTransaction {
  const data = Buffer.alloc(12)
  data.writeUInt32LE(2, 0) // SystemInstruction::Transfer
  data.writeBigUInt64LE(lamports, 4)
  const message = Buffer.concat([
    Uint8Array.of(1, 0, 1, 3), // header, then 3 account keys: faucet, recipient, System program
    tryDecodeBase58(faucet.address) as Uint8Array,
    tryDecodeBase58(to) as Uint8Array,
    new Uint8Array(32),
    tryDecodeBase58(blockhash) as Uint8Array,
    Uint8Array.of(1, 2, 2, 0, 1, 12),
    data,
  ])
  const signature = sign(null, message, faucet.key)
  return parseTransaction(Buffer.concat([Uint8Array.of(1), signature, message]))
}
