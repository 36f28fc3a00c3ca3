/**
 * What a session can hold: the methods and notifications the wallet answers per scope (docs/wallet.md), read from
 * the method catalog (src/methods/catalog.ts): MetaMask's eip155 list minus what chaingate does not implement
 * (wallet_watchAsset, wallet_sendCalls & co, eth_decrypt, eth_getEncryptionPublicKey, the execution permissions) and
 * minus what the gateway does not serve (eth_newPendingTransactionFilter: Infura does not serve it).
 */
import { methodsWhere } from '../methods/catalog.ts'

/**
 * Methods of a `solana:<ref>` scope: MetaMask's (signIn, signMessage, signTransaction, signAllTransactions,
 * signAndSendTransaction), all answered by the wallet after the user approves; a Solana scope has no notifications.
 */
export const SOLANA_METHODS: readonly string[] = methodsWhere('solana', (e) => e.wallet === 'approval')
export const SOLANA_NOTIFICATIONS: readonly string[] = []

/** Methods the wallet answers only after the user approves. */
export const EIP155_SIGNING_METHODS: readonly string[] = methodsWhere('evm', (e) => e.wallet === 'approval')
/** Methods of an `eip155:<n>` scope: forwarded to the chain, or answered by the wallet itself. */
export const EIP155_METHODS: readonly string[] = methodsWhere(
  'evm',
  (e) => e.wallet === 'chain' || e.wallet === 'wallet' || e.wallet === 'approval',
)
export const EIP155_NOTIFICATIONS: readonly string[] = ['eth_subscription']
/** MetaMask's wallet-level eip155 scope (`{wallet: {references: ["eip155"]}}`): it carries wallet_addEthereumChain. */
export const WALLET_EIP155 = 'wallet:eip155'
export const WALLET_EIP155_METHODS: readonly string[] = methodsWhere('evm', (e) => e.wallet === 'wallet-scope')
