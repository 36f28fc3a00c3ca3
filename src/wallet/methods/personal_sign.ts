/** personal_sign `[message, address]` (EIP-191): asks the user, re-checks the session, signs. */
import { hexToString, isHex, type Hex } from 'viem'
import { walletErrors } from '../errors.ts'
import type { LocalMethodContext } from './context.ts'
import { authorizedSigner } from './signer.ts'

export async function personalSign(
  ctx: Pick<LocalMethodContext, 'scope' | 'sessionScope' | 'signerFor' | 'approve' | 'assertStillAuthorized'>,
  params: unknown,
): Promise<Hex> {
  if (!Array.isArray(params) || params.length < 2)
    throw walletErrors.invalidParams([{ path: 'request.params', problem: 'must be [message, address]' }])
  const [message, address] = params
  if (typeof message !== 'string')
    throw walletErrors.invalidParams([{ path: 'request.params.0', problem: 'is not of a type(s) string' }])
  const signer = authorizedSigner(ctx, address, 'request.params.1')
  const hex = isHex(message)
  let text: string | undefined = message
  if (hex) {
    try {
      text = hexToString(message)
      if (/[\u0000-\u0008\u000e-\u001f\ufffd]/.test(text)) text = undefined
    } catch {
      text = undefined
    }
  }
  const from = signer.address.toLowerCase()
  await ctx.approve('personal_sign', {
    scope: ctx.scope,
    address: from,
    message: text,
    messageHex: hex ? message : undefined,
  })
  await ctx.assertStillAuthorized('personal_sign', from)
  return signer.signMessage({ message: hex ? { raw: message } : message })
}
