/**
 * Solana keys from the wallet's BIP-39 mnemonic: SLIP-0010 ed25519 at m/44'/501'/i'/0', the path Phantom,
 * Solflare and MetaMask derive (https://github.com/satoshilabs/slips/blob/master/slip-0010.md), with
 * micro-key-producer's SLIP-0010 implementation.
 */
import { pbkdf2Sync } from 'node:crypto'
import { solanaDerivationPath } from '../../../shared/derivation-paths.ts'
import { SolanaDevnetError } from './errors.ts'

/** How many of the mnemonic's accounts the devnet funds (like anvil's 10). */
export const SOLANA_FUNDED_ACCOUNTS = 10
/** 1,000 SOL each. */
export const SOLANA_FUNDED_LAMPORTS = 1_000n * 1_000_000_000n

export interface SolanaAccount {
  index: number
  /** m/44'/501'/i'/0' */
  path: string
  /** base58 public key */
  address: string
}

async function seedOf(mnemonic: string): Promise<Uint8Array> {
  const words = mnemonic.normalize('NFKD').trim().toLowerCase().split(/\s+/)
  // viem is a dependency already (the EVM side); its wordlist is only loaded here, when a Solana devnet runs.
  const { english } = await import('viem/accounts')
  if (![12, 15, 18, 21, 24].includes(words.length) || !words.every((w) => english.includes(w)))
    throw new SolanaDevnetError(
      'SOLANA_DEVNET_BAD_MNEMONIC',
      'the embedded chain mnemonic is not a BIP-39 mnemonic (12-24 words of the english wordlist)',
    )
  // BIP-39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" (no passphrase).
  return pbkdf2Sync(words.join(' '), 'mnemonic', 2048, 64, 'sha512')
}

/**
 * The 32-byte ed25519 private key (seed) and base58 address of accounts `0 … count-1`. The keys never leave the
 * caller: the devnet process is given addresses only.
 */
export async function deriveSolanaKeys(
  mnemonic: string,
  count = SOLANA_FUNDED_ACCOUNTS,
): Promise<Array<SolanaAccount & { privateKey: Uint8Array }>> {
  const seed = await seedOf(mnemonic)
  const [{ HDKey }, { getBase58Decoder }] = await Promise.all([
    import('micro-key-producer/slip10.js'),
    import('@solana/kit'),
  ])
  const base58 = getBase58Decoder()
  const root = HDKey.fromMasterSeed(seed)
  return Array.from({ length: count }, (_, index) => {
    const path = solanaDerivationPath(index)
    const key = root.derive(path)
    return { index, path, address: base58.decode(key.publicKeyRaw), privateKey: key.privateKey }
  })
}

/** The mnemonic's first `count` Solana addresses (the devnet's funded accounts, for the banner). */
export async function deriveSolanaAccounts(mnemonic: string, count = SOLANA_FUNDED_ACCOUNTS): Promise<SolanaAccount[]> {
  return (await deriveSolanaKeys(mnemonic, count)).map(({ index, path, address }) => ({ index, path, address }))
}
