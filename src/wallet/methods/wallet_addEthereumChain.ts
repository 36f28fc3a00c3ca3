/**
 * wallet_addEthereumChain `[{ chainId, … }]` (EIP-3085) through the `wallet:eip155` scope. The wallet serves the
 * gateway's networks and cannot add others: a chain it already serves answers null (EIP-3085's success), any
 * other chain 4902.
 */
import { type Hex, hexToNumber } from 'viem'
import { isQuantity } from '../../shared/hex.ts'
import { walletErrors } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'

/** A non-zero quantity of at most 16 hex digits (64 bits). */
const isChainId = (v: unknown): v is Hex => isQuantity(v) && v !== '0x0' && v.length <= 18

export async function walletAddEthereumChain(
  ctx: Pick<LocalMethodContext, 'servedChainIds'>,
  params: unknown,
): Promise<null> {
  const p = Array.isArray(params) ? params[0] : undefined
  const chainId = isPlainObject(p) ? p.chainId : undefined
  if (!isChainId(chainId))
    throw walletErrors.invalidParams([
      { path: 'request.params.0.chainId', problem: 'is not a 0x-prefixed hex chain ID without leading zeros' },
    ])
  if (!ctx.servedChainIds().has(hexToNumber(chainId))) throw walletErrors.unrecognizedChain(chainId)
  return null
}
