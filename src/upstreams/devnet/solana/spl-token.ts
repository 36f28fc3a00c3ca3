/**
 * SPL Token and Token-2022 state read from account data (mints, token accounts) and written as Agave's RPC does:
 * UiTokenAmount, and jsonParsed account data (https://solana.com/docs/rpc/json-structures).
 */
import { encodeBase58 } from './codec.ts'
import type { AccountState } from './account-state.ts'

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112'

export function isTokenProgram(owner: string): boolean {
  return owner === TOKEN_PROGRAM || owner === TOKEN_2022_PROGRAM
}

export interface TokenAccount {
  mint: string
  owner: string
  amount: bigint
  delegate: string | null
  state: 'uninitialized' | 'initialized' | 'frozen'
  isNative: bigint | null
  delegatedAmount: bigint
  closeAuthority: string | null
}

export interface TokenMint {
  mintAuthority: string | null
  supply: bigint
  decimals: number
  isInitialized: boolean
  freezeAuthority: string | null
}

const u64 = (data: Uint8Array, offset: number) =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
const u32 = (data: Uint8Array, offset: number) =>
  new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(offset, true)
const key = (data: Uint8Array, offset: number) => encodeBase58(data.subarray(offset, offset + 32))
const optionKey = (data: Uint8Array, offset: number) => (u32(data, offset) === 1 ? key(data, offset + 4) : null)

/** SPL Token layout: an account is 165 bytes, a mint 82; Token-2022 adds an account-type byte at 165. */
function tokenKind(account: AccountState): 'account' | 'mint' | undefined {
  if (!isTokenProgram(account.owner)) return undefined
  const length = account.data.length
  if (length === 165) return 'account'
  if (length === 82) return 'mint'
  if (account.owner === TOKEN_2022_PROGRAM && length > 165) {
    const type = account.data[165]
    return type === 2 ? 'account' : type === 1 ? 'mint' : undefined
  }
  return undefined
}

export function readTokenAccount(account: AccountState | undefined): TokenAccount | undefined {
  if (!account || tokenKind(account) !== 'account') return undefined
  const d = account.data
  const state = d[108]
  if (state === 0 || state === undefined || state > 2) return undefined
  return {
    mint: key(d, 0),
    owner: key(d, 32),
    amount: u64(d, 64),
    delegate: optionKey(d, 72),
    state: state === 2 ? 'frozen' : 'initialized',
    isNative: u32(d, 109) === 1 ? u64(d, 113) : null,
    delegatedAmount: u64(d, 121),
    closeAuthority: optionKey(d, 129),
  }
}

export function readTokenMint(account: AccountState | undefined): TokenMint | undefined {
  if (!account || tokenKind(account) !== 'mint') return undefined
  const d = account.data
  if (d[45] !== 1) return undefined
  return {
    mintAuthority: optionKey(d, 0),
    supply: u64(d, 36),
    decimals: d[44] as number,
    isInitialized: true,
    freezeAuthority: optionKey(d, 46),
  }
}

/** Agave's UiTokenAmount: uiAmount as a float, uiAmountString trimmed of trailing zeros. */
export function uiTokenAmount(amount: bigint, decimals: number): Record<string, unknown> {
  const digits = amount.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  const uiAmountString = fraction ? `${whole}.${fraction}` : whole
  return { amount: amount.toString(), decimals, uiAmount: Number(uiAmountString), uiAmountString }
}

/** A token account or mint as jsonParsed account data; undefined for anything else. */
export function parseTokenState(
  account: AccountState,
  mintDecimals: (mint: string) => number | undefined,
): Record<string, unknown> | undefined {
  const program = account.owner === TOKEN_2022_PROGRAM ? 'spl-token-2022' : 'spl-token'
  const tokenAccount = readTokenAccount(account)
  if (tokenAccount) {
    const decimals = tokenAccount.isNative !== null ? 9 : mintDecimals(tokenAccount.mint)
    if (decimals === undefined) return undefined
    const info: Record<string, unknown> = {
      isNative: tokenAccount.isNative !== null,
      mint: tokenAccount.mint,
      owner: tokenAccount.owner,
      state: tokenAccount.state,
      tokenAmount: uiTokenAmount(tokenAccount.amount, decimals),
    }
    if (tokenAccount.delegate) {
      info.delegate = tokenAccount.delegate
      info.delegatedAmount = uiTokenAmount(tokenAccount.delegatedAmount, decimals)
    }
    if (tokenAccount.closeAuthority) info.closeAuthority = tokenAccount.closeAuthority
    if (tokenAccount.isNative !== null) info.rentExemptReserve = uiTokenAmount(tokenAccount.isNative, 9)
    return { program, parsed: { info, type: 'account' }, space: account.data.length }
  }
  const mint = readTokenMint(account)
  if (mint) {
    const info = {
      decimals: mint.decimals,
      freezeAuthority: mint.freezeAuthority,
      isInitialized: mint.isInitialized,
      mintAuthority: mint.mintAuthority,
      supply: mint.supply.toString(),
    }
    return { program, parsed: { info, type: 'mint' }, space: account.data.length }
  }
  return undefined
}
