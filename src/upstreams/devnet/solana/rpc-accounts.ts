/**
 * The devnet's account methods (getBalance, getAccountInfo, getMultipleAccounts, getProgramAccounts and its
 * filters, getMinimumBalanceForRentExemption), answered as UiAccount (ui-account.ts).
 */
import { invalidParams, parsePubkey, tryDecodeBase58, tryDecodeBase64, typeName } from './codec.ts'
import {
  asObject,
  contextSlot,
  type Handler,
  optionalBool,
  parseU64,
  pubkeyList,
  required,
  type RpcContext,
  withContext,
} from './rpc-params.ts'
import { readTokenAccount } from './spl-token.ts'
import type { AccountState } from './account-state.ts'
import { type AccountEncoding, checkBase58Size, type DataSlice, parseAccountEncoding, uiAccount } from './ui-account.ts'

const MAX_MULTIPLE_ACCOUNTS = 100
const MAX_FILTERS = 4

function parseDataSlice(value: unknown): DataSlice | undefined {
  if (value === undefined || value === null) return undefined
  const slice = asObject(value, 'UiDataSliceConfig')
  return { offset: parseU64(slice.offset, 'usize'), length: parseU64(slice.length, 'usize') }
}

interface AccountConfig {
  encoding: AccountEncoding
  slice: DataSlice | undefined
  slot: number
}

export function accountConfig(ctx: RpcContext, value: unknown, fallback: AccountEncoding = 'binary'): AccountConfig {
  const config = asObject(value, 'RpcAccountInfoConfig')
  const encoding = parseAccountEncoding(config.encoding) ?? fallback
  return { encoding, slice: parseDataSlice(config.dataSlice), slot: contextSlot(ctx.chain, config) }
}

export function encodeAccount(ctx: RpcContext, account: AccountState | undefined, config: AccountConfig): unknown {
  if (!account) return null
  checkBase58Size(account, config.encoding, config.slice)
  return uiAccount(account, config.encoding, config.slice, ctx.chain.mintDecimals)
}

interface Filter {
  match(account: AccountState): boolean
}

export function parseFilters(value: unknown): Filter[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value))
    throw invalidParams(`Invalid params: invalid type: ${typeName(value)}, expected a sequence.`)
  if (value.length > MAX_FILTERS) throw invalidParams(`Too many filters provided; max ${MAX_FILTERS}`)
  return value.map((entry): Filter => {
    const filter = asObject(entry, 'RpcFilterType')
    if ('dataSize' in filter) {
      const size = parseU64(filter.dataSize)
      return { match: (a) => a.data.length === size }
    }
    if ('memcmp' in filter) {
      const memcmp = asObject(filter.memcmp, 'Memcmp')
      const offset = parseU64(memcmp.offset, 'usize')
      if (typeof memcmp.bytes !== 'string')
        throw invalidParams(`Invalid params: invalid type: ${typeName(memcmp.bytes)}, expected a string.`)
      const encoding = memcmp.encoding ?? 'base58'
      if (encoding === 'base58' && memcmp.bytes.length > 175) throw invalidParams('Invalid param: DataTooLarge')
      const bytes = encoding === 'base64' ? tryDecodeBase64(memcmp.bytes) : tryDecodeBase58(memcmp.bytes)
      if (encoding !== 'base58' && encoding !== 'base64')
        throw invalidParams(
          `Invalid params: unknown variant \`${String(encoding)}\`, expected \`base58\` or \`base64\`.`,
        )
      if (typeof bytes === 'string') throw invalidParams(`Invalid param: DecodeError(${bytes})`)
      if (bytes.length > 128) throw invalidParams('Invalid param: DataTooLarge')
      return {
        match: (a) => a.data.length >= offset + bytes.length && bytes.every((b, i) => a.data[offset + i] === b),
      }
    }
    if ('tokenAccountState' in filter) return { match: (a) => readTokenAccount(a) !== undefined }
    throw invalidParams('Invalid params: unknown variant, expected one of `dataSize`, `memcmp`, `tokenAccountState`.')
  })
}

export const accountMethods: Record<string, Handler> = {
  getBalance: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const slot = contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return withContext(slot, ctx.chain.getAccount(address)?.lamports ?? 0n)
  },
  getAccountInfo: (p, ctx) => {
    const address = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const config = accountConfig(ctx, p[1])
    return withContext(config.slot, encodeAccount(ctx, ctx.chain.getAccount(address), config))
  },
  getMultipleAccounts: (p, ctx) => {
    const addresses = pubkeyList(required(p, 0, 'at least 1 parameter'), MAX_MULTIPLE_ACCOUNTS)
    const config = accountConfig(ctx, p[1])
    return withContext(
      config.slot,
      addresses.map((a) => encodeAccount(ctx, ctx.chain.getAccount(a), config)),
    )
  },
  getProgramAccounts: (p, ctx) => {
    const program = parsePubkey(required(p, 0, 'at least 1 parameter'))
    const raw = asObject(p[1], 'RpcProgramAccountsConfig')
    const config = accountConfig(ctx, raw)
    const filters = parseFilters(raw.filters)
    const value = ctx.chain
      .programAccounts(program)
      .filter(({ account }) => filters.every((f) => f.match(account)))
      .map(({ pubkey, account }) => ({ account: encodeAccount(ctx, account, config), pubkey }))
    return optionalBool(raw.withContext, false) ? withContext(config.slot, value) : value
  },
  getMinimumBalanceForRentExemption: (p, ctx) => {
    const length = parseU64(p[0] ?? 0, 'usize')
    contextSlot(ctx.chain, asObject(p[1], 'RpcContextConfig'))
    return ctx.chain.svm.minimumBalanceForRentExemption(BigInt(length))
  },
}
