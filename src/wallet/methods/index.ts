/**
 * Methods the wallet answers itself inside wallet_invokeMethod (exactly the EVM catalog's wallet-answered methods:
 * ./local-methods.ts); every other granted method goes to the scope's chain through ChainAccess.
 */
import type { LocalMethod } from './context.ts'
import { localMethodsFor } from './local-methods.ts'
import { signTypedDataV4 } from './eth_signTypedData_v4.ts'
import { sendTransaction } from './eth_sendTransaction.ts'
import { ethSubscribe } from './eth_subscribe.ts'
import { ethUnsubscribe } from './eth_unsubscribe.ts'
import { personalSign } from './personal_sign.ts'
import { walletAddEthereumChain } from './wallet_addEthereumChain.ts'

export const WALLET_CLIENT_VERSION = 'chaingate/0.1.0'

export const LOCAL_METHODS: Readonly<Record<string, LocalMethod>> = localMethodsFor('evm', {
  personal_sign: personalSign,
  eth_signTypedData_v4: signTypedDataV4,
  eth_sendTransaction: sendTransaction,
  eth_subscribe: ethSubscribe,
  eth_unsubscribe: ethUnsubscribe,
  wallet_addEthereumChain: walletAddEthereumChain,
  web3_clientVersion: async () => WALLET_CLIENT_VERSION,
  eth_chainId: async (ctx) => `0x${ctx.chainId!.toString(16)}`,
})

export type { LocalMethod, LocalMethodContext } from './context.ts'
