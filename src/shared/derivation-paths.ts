/**
 * HD derivation paths both the wallet (its keys) and the embedded devnets (their funded accounts) derive, so that the
 * devnet funds exactly the wallet's accounts.
 */

/**
 * Solana account `index`: SLIP-0010 ed25519 at m/44'/501'/i'/0', the path of Phantom, Solflare and MetaMask
 * (https://github.com/satoshilabs/slips/blob/master/slip-0010.md).
 */
export const solanaDerivationPath = (index: number) => `m/44'/501'/${index}'/0'`
