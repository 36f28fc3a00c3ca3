/** signMessage `{ account: { address }, message }` (base64) → `{ signature, signedMessage, signatureType }`. */
import { getBase58Decoder } from '@solana/kit'
import type { SolanaMethodContext } from './context.ts'
import { accountSigner, base64Bytes, paramsObject } from './params.ts'

export async function signMessage(
  ctx: Pick<SolanaMethodContext, 'scope' | 'sessionScope' | 'signerFor' | 'approve' | 'assertStillAuthorized'>,
  params: unknown,
) {
  const p = paramsObject(params)
  const signer = accountSigner(ctx, p.account)
  const bytes = base64Bytes(p.message, 'request.params.message')
  await ctx.approve('signMessage', { scope: ctx.scope, address: signer.address, message: p.message as string })
  await ctx.assertStillAuthorized('signMessage', signer.address)
  const signature = await signer.sign(bytes)
  return {
    signature: getBase58Decoder().decode(signature),
    signedMessage: p.message as string,
    signatureType: 'ed25519',
  }
}
