/** Shared by the signing methods: the signer for an address the session grants, or 4100. */
import type { HDAccount } from 'viem/accounts'
import { walletErrors } from '../errors.ts'
import { addressOf } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'

export const ADDRESS = /^0x[0-9a-fA-F]{40}$/
export const QUANTITY = /^0x[0-9a-fA-F]{1,64}$/ // leading zeros tolerated: some dapps pad quantities

export function authorizedSigner(
  ctx: Pick<LocalMethodContext, 'sessionScope' | 'signerFor'>,
  address: unknown,
  path: string,
): HDAccount {
  if (typeof address !== 'string' || !ADDRESS.test(address))
    throw walletErrors.invalidParams([{ path, problem: 'is not a 0x-prefixed 20-byte address' }])
  const a = address.toLowerCase()
  if (!ctx.sessionScope.accounts.some((acc) => addressOf(acc) === a)) throw walletErrors.unauthorized()
  const signer = ctx.signerFor(a)
  if (!signer) throw walletErrors.unauthorized()
  return signer
}
