/**
 * The wallet's Solana keys: ed25519 from the same BIP-39 seed as its eip155 keys, SLIP-0010 at m/44'/501'/i'/0'
 * (src/shared/derivation-paths.ts; the embedded Solana devnet funds the same accounts). Derivation is
 * micro-key-producer's SLIP-0010, signing @solana/kit's (WebCrypto ed25519). Only addresses leave this file.
 */
import { createKeyPairFromPrivateKeyBytes, getBase58Decoder, signBytes } from '@solana/kit'
import { HDKey } from 'micro-key-producer/slip10.js'
import { solanaDerivationPath } from '../shared/derivation-paths.ts'

export interface SolanaSigner {
  /** base58 public key */
  readonly address: string
  /** ed25519 signature (64 bytes) of `bytes`. */
  sign(bytes: Uint8Array): Promise<Uint8Array>
}

export interface SolanaKeys {
  addressAt(index: number): string
  signer(index: number): SolanaSigner
}

/** Keys derive lazily (an EVM-only session never derives one) and are cached per index. */
export function solanaKeysFromSeed(seed: Uint8Array): SolanaKeys {
  let root: HDKey | undefined
  const derived = new Map<number, { address: string; privateKey: Uint8Array; pair?: Promise<CryptoKeyPair> }>()
  const at = (index: number) => {
    let d = derived.get(index)
    if (!d) {
      root ??= HDKey.fromMasterSeed(seed)
      const key = root.derive(solanaDerivationPath(index))
      d = { address: getBase58Decoder().decode(key.publicKeyRaw), privateKey: key.privateKey }
      derived.set(index, d)
    }
    return d
  }
  return {
    addressAt: (index) => at(index).address,
    signer(index) {
      const d = at(index)
      return {
        address: d.address,
        async sign(bytes) {
          d.pair ??= createKeyPairFromPrivateKeyBytes(d.privateKey)
          return new Uint8Array(await signBytes((await d.pair).privateKey, bytes))
        },
      }
    },
  }
}
