/**
 * A custom devnet mnemonic's accounts, funded without ever passing the mnemonic to anvil (its command line is
 * readable by every local user through `ps`).
 */
import { pbkdf2Sync } from 'node:crypto'
import { english, HDKey, hdKeyToAccount } from 'viem/accounts'
import { AnvilError } from './errors.ts'

/** anvil's defaults: 10 accounts at m/44'/60'/0'/0/i with 10,000 ETH each. */
const FUNDED_ACCOUNTS = 10
const FUNDED_BALANCE = `0x${(10_000n * 10n ** 18n).toString(16)}`

export function deriveAddresses(mnemonic: string): string[] {
  const words = mnemonic.normalize('NFKD').trim().toLowerCase().split(/\s+/)
  if (![12, 15, 18, 21, 24].includes(words.length) || !words.every((w) => english.includes(w)))
    throw new AnvilError(
      'ANVIL_BAD_MNEMONIC',
      'the embedded chain mnemonic is not a BIP-39 mnemonic (12-24 words of the english wordlist)',
    )
  // BIP-39 seed: PBKDF2-HMAC-SHA512, 2048 rounds, salt "mnemonic" (no passphrase), as anvil derives it.
  const root = HDKey.fromMasterSeed(pbkdf2Sync(words.join(' '), 'mnemonic', 2048, 64, 'sha512'))
  return Array.from({ length: FUNDED_ACCOUNTS }, (_, i) => hdKeyToAccount(root, { addressIndex: i }).address)
}

/**
 * Gives each address anvil's default balance, only when it is untouched (no balance, no transaction), so state
 * loaded from the state file is never overwritten.
 */
export async function fundAccounts(url: string, addresses: string[]): Promise<void> {
  const rpc = async (method: string, params: unknown[]): Promise<unknown> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    })
    const body = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (body.error) throw new Error(`${method}: ${body.error.message}`)
    return body.result
  }
  for (const address of addresses) {
    const [balance, nonce] = await Promise.all([
      rpc('eth_getBalance', [address, 'latest']),
      rpc('eth_getTransactionCount', [address, 'latest']),
    ])
    if (BigInt(balance as string) === 0n && BigInt(nonce as string) === 0n)
      await rpc('anvil_setBalance', [address, FUNDED_BALANCE])
  }
}
