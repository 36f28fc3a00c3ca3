/** What a session can hold: the methods and notifications the wallet answers per scope (docs/wallet.md). */

/**
 * eip155 methods the wallet answers, in MetaMask's order minus what chaingate does not implement
 * (wallet_watchAsset, wallet_sendCalls & co, eth_decrypt, eth_getEncryptionPublicKey, the execution permissions).
 */
export const EIP155_SIGNING_METHODS = ['personal_sign', 'eth_signTypedData_v4', 'eth_sendTransaction'] as const
export const EIP155_METHODS: readonly string[] = [
  'personal_sign',
  'eth_signTypedData_v4',
  'eth_sendTransaction',
  'web3_clientVersion',
  'eth_subscribe',
  'eth_unsubscribe',
  'eth_blockNumber',
  'eth_call',
  'eth_chainId',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getFilterChanges',
  'eth_getFilterLogs',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_getUncleCountByBlockHash',
  'eth_getUncleCountByBlockNumber',
  'eth_newBlockFilter',
  'eth_newFilter',
  'eth_newPendingTransactionFilter',
  'eth_sendRawTransaction',
  'eth_syncing',
  'eth_uninstallFilter',
]
export const EIP155_NOTIFICATIONS: readonly string[] = ['eth_subscription']
/** MetaMask's wallet-level eip155 scope (`{wallet: {references: ["eip155"]}}`): it carries wallet_addEthereumChain. */
export const WALLET_EIP155 = 'wallet:eip155'
export const WALLET_EIP155_METHODS: readonly string[] = ['wallet_addEthereumChain']
