/** Shared by the signing methods: the signer for an address the session grants, or 4100. */
import { isAddress, isHex } from 'viem'
import type { HDAccount } from 'viem/accounts'
import { walletErrors } from '../errors.ts'
import { addressOf } from '../scopes.ts'
import type { LocalMethodContext } from './context.ts'

/** 0x and 40 hex digits, any case (no checksum test: dapps send lower-case addresses). */
export const isAddressText = (v: unknown): v is string => typeof v === 'string' && isAddress(v, { strict: false })
/** 0x and 1 to 64 hex digits: leading zeros tolerated, as some dapps pad quantities. */
export const isPaddedQuantity = (v: unknown): v is string => isHex(v) && v.length > 2 && v.length <= 66

export function authorizedSigner(
  ctx: Pick<LocalMethodContext, 'sessionScope' | 'signerFor'>,
  address: unknown,
  path: string,
): HDAccount {
  if (!isAddressText(address))
    throw walletErrors.invalidParams([{ path, problem: 'is not a 0x-prefixed 20-byte address' }])
  const a = address.toLowerCase()
  if (!ctx.sessionScope.accounts.some((acc) => addressOf(acc) === a)) throw walletErrors.unauthorized()
  const signer = ctx.signerFor(a)
  if (!signer) throw walletErrors.unauthorized()
  return signer
}
