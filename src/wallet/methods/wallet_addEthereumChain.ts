/**
 * wallet_addEthereumChain `[{ chainId, … }]` (EIP-3085) through the `wallet:eip155` scope. The wallet serves the
 * gateway's networks and cannot add others: a chain it already serves answers null (EIP-3085's success), any
 * other chain 4902.
 */
import { walletErrors } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'

const CHAIN_ID = /^0x[1-9a-fA-F][0-9a-fA-F]{0,15}$/

export async function walletAddEthereumChain(
  ctx: Pick<LocalMethodContext, 'servedChainIds'>,
  params: unknown,
): Promise<null> {
  const p = Array.isArray(params) ? params[0] : undefined
  if (!isPlainObject(p) || typeof p.chainId !== 'string' || !CHAIN_ID.test(p.chainId))
    throw walletErrors.invalidParams([
      { path: 'request.params.0.chainId', problem: 'is not a 0x-prefixed hex chain ID without leading zeros' },
    ])
  if (!ctx.servedChainIds().has(Number.parseInt(p.chainId, 16))) throw walletErrors.unrecognizedChain(p.chainId)
  return null
}
