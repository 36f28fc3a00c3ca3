/**
 * The devnet's SPL token methods (getTokenAccountsByOwner/ByDelegate, getTokenAccountBalance, getTokenSupply,
 * getTokenLargestAccounts), read from Token and Token-2022 state (spl-token.ts).
 */
import { invalidParams, parsePubkey } from './codec.ts'
import { accountConfig, encodeAccount } from './rpc-accounts.ts'
import {
  asObject,
  contextSlot,
  type Handler,
  type Params,
  required,
  type RpcContext,
  withContext,
} from './rpc-params.ts'
import { isTokenProgram, readTokenAccount, readTokenMint, uiTokenAmount } from './spl-token.ts'

function tokenAccounts(ctx: RpcContext, params: Params, field: 'owner' | 'delegate'): unknown {
  const who = parsePubkey(required(params, 0, 'at least 2 parameters'))
  const filter = asObject(required(params, 1, 'at least 2 parameters'), 'RpcTokenAccountsFilter')
  const config = accountConfig(ctx, params[2])
  let programs: string[]
  let mint: string | undefined
  if (typeof filter.mint === 'string' && filter.programId === undefined) {
    mint = parsePubkey(filter.mint)
    const mintAccount = ctx.chain.getAccount(mint)
    if (!mintAccount || !isTokenProgram(mintAccount.owner)) throw invalidParams('Invalid param: could not find mint')
    programs = [mintAccount.owner]
  } else if (typeof filter.programId === 'string' && filter.mint === undefined) {
    const program = parsePubkey(filter.programId)
    if (!isTokenProgram(program)) throw invalidParams('Invalid param: unrecognized Token program id')
    programs = [program]
  } else throw invalidParams('Invalid params: expected exactly one of `mint` or `programId`.')
  const value = []
  for (const program of programs) {
    for (const { pubkey, account } of ctx.chain.programAccounts(program)) {
      const token = readTokenAccount(account)
      if (!token || (mint && token.mint !== mint)) continue
      if ((field === 'owner' ? token.owner : token.delegate) !== who) continue
      value.push({ account: encodeAccount(ctx, account, config), pubkey })
    }
  }
  return withContext(config.slot, value)
}

/** `[mint, config?]`: the mint's address, account and state, and the context slot (getTokenSupply, …Largest…). */
function mintParam(params: Params, ctx: RpcContext) {
  const address = parsePubkey(required(params, 0, 'at least 1 parameter'))
  const slot = contextSlot(ctx.chain, asObject(params[1], 'RpcContextConfig'))
  const account = ctx.chain.getAccount(address)
  if (!account) throw invalidParams('Invalid param: could not find account')
  const mint = readTokenMint(account)
  if (!mint) throw invalidParams('Invalid param: not a Token mint')
  return { address, slot, account, mint }
}

export const tokenMethods: Record<string, Handler> = {
  getTokenAccountsByOwner: (p, ctx) => tokenAccounts(ctx, p, 'owner'),
  getTokenAccountsByDelegate: (p, ctx) => tokenAccounts(ctx, p, 'delegate'),
  getTokenAccountBalance: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    const account = ctx.chain.getAccount(address)
    if (!account) throw invalidParams('Invalid param: could not find account')
    const token = readTokenAccount(account)
    const decimals = token && (token.isNative !== null ? 9 : ctx.chain.mintDecimals(token.mint))
    if (!token || decimals === undefined) throw invalidParams('Invalid param: not a Token account')
    return withContext(slot, uiTokenAmount(token.amount, decimals))
  },
  getTokenSupply: (p, ctx) => {
    const { slot, mint } = mintParam(p, ctx)
    return withContext(slot, uiTokenAmount(mint.supply, mint.decimals))
  },
  getTokenLargestAccounts: (p, ctx) => {
    const { address, slot, account, mint } = mintParam(p, ctx)
    const holders = ctx.chain
      .programAccounts(account.owner)
      .map(({ pubkey, account: a }) => ({ pubkey, token: readTokenAccount(a) }))
      .filter((h) => h.token?.mint === address)
      .sort((a, b) => (a.token!.amount < b.token!.amount ? 1 : a.token!.amount > b.token!.amount ? -1 : 0))
      .slice(0, 20)
    return withContext(
      slot,
      holders.map((h) => ({ address: h.pubkey, ...uiTokenAmount(h.token!.amount, mint.decimals) })),
    )
  },
}
