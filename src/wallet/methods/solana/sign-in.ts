/**
 * signIn: Sign-In With Solana (https://github.com/phantom/sign-in-with-solana). The wallet writes the message
 * from the dapp's fields (the ABNF of that spec, as @solana/wallet-standard-util's createSignInMessageText does),
 * fills `domain` from the dapp's origin and `address` from the session when absent, and the console warns when
 * the domain is not the dapp's own.
 */
import { getBase58Decoder } from '@solana/kit'
import { walletErrors } from '../../errors.ts'
import type { SolanaMethodContext } from './context.ts'
import { badParam, inSession, paramsObject } from './params.ts'

const TEXT_FIELDS = [
  'domain',
  'address',
  'statement',
  'uri',
  'version',
  'chainId',
  'nonce',
  'issuedAt',
  'expirationTime',
  'notBefore',
  'requestId',
] as const

type SignInFields = Partial<Record<(typeof TEXT_FIELDS)[number], string>> & { resources?: string[] }

export function signInMessageText(f: SignInFields & { domain: string; address: string }): string {
  let text = `${f.domain} wants you to sign in with your Solana account:\n${f.address}`
  if (f.statement) text += `\n\n${f.statement}`
  const lines: string[] = []
  const add = (label: string, v: string | undefined) => v && lines.push(`${label}: ${v}`)
  add('URI', f.uri)
  add('Version', f.version)
  add('Chain ID', f.chainId)
  add('Nonce', f.nonce)
  add('Issued At', f.issuedAt)
  add('Expiration Time', f.expirationTime)
  add('Not Before', f.notBefore)
  add('Request ID', f.requestId)
  if (f.resources?.length) lines.push(`Resources:\n${f.resources.map((r) => `- ${r}`).join('\n')}`)
  return lines.length > 0 ? `${text}\n\n${lines.join('\n')}` : text
}

function readFields(params: unknown): SignInFields {
  const p = params === undefined || params === null ? {} : paramsObject(params)
  const out: SignInFields = {}
  for (const k of TEXT_FIELDS) {
    const v = p[k]
    if (v === undefined) continue
    // A line break would let one field forge another line of the message.
    if (typeof v !== 'string' || /[\r\n]/.test(v)) throw badParam(`request.params.${k}`, 'is not a one-line string')
    out[k] = v
  }
  if (p.resources !== undefined) {
    if (!Array.isArray(p.resources) || !p.resources.every((r) => typeof r === 'string' && !/[\r\n]/.test(r)))
      throw badParam('request.params.resources', 'is not of a type(s) array of one-line strings')
    out.resources = p.resources
  }
  return out
}

export async function signIn(
  ctx: Pick<
    SolanaMethodContext,
    'origin' | 'scope' | 'sessionScope' | 'signerFor' | 'approve' | 'assertStillAuthorized'
  >,
  params: unknown,
) {
  const fields = readFields(params)
  let host: string
  try {
    host = new URL(ctx.origin).host
  } catch {
    host = ctx.origin
  }
  const address = fields.address ?? ctx.sessionScope.accounts[0]?.split(':')[2]
  const signer = address !== undefined && inSession(ctx, address) ? ctx.signerFor(address) : undefined
  if (!signer) throw walletErrors.unauthorized()
  const domain = fields.domain ?? host
  const text = signInMessageText({ ...fields, domain, address: signer.address })
  const bytes = new TextEncoder().encode(text)
  const message = Buffer.from(bytes).toString('base64')
  await ctx.approve('signIn', {
    scope: ctx.scope,
    address: signer.address,
    message,
    signIn: { fields: { ...fields }, domainMatches: domain === host, origin: ctx.origin },
  })
  await ctx.assertStillAuthorized('signIn', signer.address)
  const signature = await signer.sign(bytes)
  return {
    account: { address: signer.address },
    signedMessage: message,
    signature: getBase58Decoder().decode(signature),
    signatureType: 'ed25519' as const,
  }
}
