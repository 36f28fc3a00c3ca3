/** Shared by the Solana methods: the params object, the session's signer for `account`, base64 fields. */
import { getBase64Encoder } from '@solana/kit'
import { walletErrors } from '../../errors.ts'
import { addressOf, isPlainObject } from '../../scopes.ts'
import type { SolanaSigner } from '../../solana-keys.ts'
import type { SolanaMethodContext } from './context.ts'

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

export const badParam = (path: string, problem: string) => walletErrors.invalidParams([{ path, problem }])

export function paramsObject(params: unknown): Record<string, unknown> {
  if (!isPlainObject(params)) throw badParam('request.params', 'is not of a type(s) object')
  return params
}

/** Whether the session grants `address` in the invoked scope. */
export const inSession = (ctx: Pick<SolanaMethodContext, 'sessionScope'>, address: string): boolean =>
  ctx.sessionScope.accounts.some((a) => addressOf(a) === address)

/** `account: { address }` → the wallet's signer, when the session grants that account (else 4100). */
export function accountSigner(
  ctx: Pick<SolanaMethodContext, 'sessionScope' | 'signerFor'>,
  account: unknown,
  path = 'request.params.account',
): SolanaSigner {
  if (!isPlainObject(account) || typeof account.address !== 'string')
    throw badParam(path, 'is not of a type(s) object with a string address')
  const signer = inSession(ctx, account.address) ? ctx.signerFor(account.address) : undefined
  if (!signer) throw walletErrors.unauthorized()
  return signer
}

/** A base64 field's bytes (standard alphabet, padded, as MetaMask's client sends them). */
export function base64Bytes(value: unknown, path: string): Uint8Array {
  if (typeof value !== 'string' || value.length === 0 || !BASE64.test(value)) throw badParam(path, 'is not base64')
  return new Uint8Array(getBase64Encoder().encode(value))
}
