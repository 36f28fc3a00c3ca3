/** eth_signTypedData_v4 `[address, typedData]` (EIP-712): the domain's chainId must be the scope's chain. */
import type { Hex } from 'viem'
import { walletErrors } from '../errors.ts'
import { isPlainObject } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'
import { authorizedSigner } from './signer.ts'

const toBig = (v: unknown): bigint | undefined => {
  try {
    return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : undefined
  } catch {
    return undefined
  }
}

export async function signTypedDataV4(
  ctx: Pick<
    LocalMethodContext,
    'scope' | 'chainId' | 'sessionScope' | 'signerFor' | 'approve' | 'assertStillAuthorized'
  >,
  params: unknown,
): Promise<Hex> {
  if (!Array.isArray(params) || params.length < 2)
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [address, typedData]' }])
  const signer = authorizedSigner(ctx, params[0], 'request.params.0')
  let data: unknown = params[1]
  if (typeof data === 'string') {
    try {
      data = JSON.parse(data)
    } catch {
      throw walletErrors.invalidParams([{ path: 'request.params.1', problem: 'is not valid JSON typed data' }])
    }
  }
  if (
    !isPlainObject(data) ||
    !isPlainObject(data.types) ||
    typeof data.primaryType !== 'string' ||
    !isPlainObject(data.message)
  )
    throw walletErrors.invalidParams([
      { path: 'request.params.1', problem: 'must have types, primaryType, domain and message' },
    ])
  const domain = isPlainObject(data.domain) ? data.domain : {}
  if (domain.chainId !== undefined && toBig(domain.chainId) !== BigInt(ctx.chainId ?? -1))
    throw walletErrors.invalidParams([
      { path: 'request.params.1.domain.chainId', problem: `does not match the scope's chain ${ctx.chainId}` },
    ])
  const { EIP712Domain: _ignored, ...types } = data.types as Record<string, unknown>
  const from = signer.address.toLowerCase()
  await ctx.approve('eth_signTypedData_v4', { scope: ctx.scope, address: from, typedData: data })
  await ctx.assertStillAuthorized('eth_signTypedData_v4', from)
  try {
    return await signer.signTypedData({ domain, types, primaryType: data.primaryType, message: data.message } as never)
  } catch (e) {
    throw walletErrors.invalidParams([
      { path: 'request.params.1', problem: `cannot be signed: ${(e as Error).message.split('\n')[0]}` },
    ])
  }
}
