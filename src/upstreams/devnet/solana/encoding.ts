/**
 * How the devnet writes accounts, SPL token state and transaction errors on the wire, in the shapes of Agave's
 * RPC (https://solana.com/docs/rpc/json-structures): UiAccount with base58/base64/base64+zstd/jsonParsed data,
 * UiTokenAmount, and TransactionError as serde serializes it.
 */
import * as zlib from 'node:zlib'
import { encodeBase58, encodeBase64, invalidParams } from './codec.ts'

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb'
export const NATIVE_MINT = 'So11111111111111111111111111111111111111112'
/** Agave writes u64::MAX since rent collection ended (SIMD-0267). */
export const RENT_EPOCH = 18446744073709551615n

export interface AccountState {
  lamports: bigint
  owner: string
  executable: boolean
  data: Uint8Array
}

export type AccountEncoding = 'binary' | 'base58' | 'base64' | 'base64+zstd' | 'jsonParsed'
export interface DataSlice {
  offset: number
  length: number
}

const ENCODINGS = new Set(['binary', 'base58', 'base64', 'base64+zstd', 'jsonParsed'])

export function parseAccountEncoding(value: unknown): AccountEncoding | undefined {
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || !ENCODINGS.has(value))
    throw invalidParams(
      `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, ` +
        '`jsonParsed`, `base64+zstd`.',
    )
  return value as AccountEncoding
}

/** Agave refuses base58 for data over 128 bytes (base58 is quadratic to encode). */
export function checkBase58Size(account: AccountState | undefined, encoding: AccountEncoding, slice?: DataSlice) {
  if (!account || (encoding !== 'binary' && encoding !== 'base58')) return
  const length = slice ? Math.max(0, Math.min(account.data.length - slice.offset, slice.length)) : account.data.length
  if (length > 128)
    throw invalidParams('Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.')
}

function encodeData(data: Uint8Array, encoding: AccountEncoding): unknown {
  switch (encoding) {
    case 'binary':
      return encodeBase58(data)
    case 'base58':
      return [encodeBase58(data), 'base58']
    case 'base64+zstd': {
      // node:zlib has zstd from Node 22.15/23.8; without it, answer plain base64 as Agave does when compression fails.
      const compress = (zlib as { zstdCompressSync?: (data: Uint8Array) => Buffer }).zstdCompressSync
      return compress ? [compress(data).toString('base64'), 'base64+zstd'] : [encodeBase64(data), 'base64']
    }
    default:
      return [encodeBase64(data), 'base64']
  }
}

/** An account as UiAccount. `jsonParsed` parses SPL token state and falls back to base64 for the rest. */
export function uiAccount(
  account: AccountState,
  encoding: AccountEncoding,
  slice: DataSlice | undefined,
  mintDecimals: (mint: string) => number | undefined,
): Record<string, unknown> {
  let data: unknown
  if (encoding === 'jsonParsed') {
    const parsed = parseTokenState(account, mintDecimals)
    data = parsed ?? [encodeBase64(account.data), 'base64']
  } else {
    const bytes = slice ? account.data.subarray(slice.offset, slice.offset + slice.length) : account.data
    data = encodeData(bytes, encoding)
  }
  return {
    data,
    executable: account.executable,
    lamports: account.lamports,
    owner: account.owner,
    rentEpoch: RENT_EPOCH,
    space: account.data.length,
  }
}

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

function parseTokenState(
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

// litesvm's error enums, in their declaration order (litesvm/dist/internal.d.ts), named as serde writes them.
const TRANSACTION_ERRORS = [
  'AccountInUse',
  'AccountLoadedTwice',
  'AccountNotFound',
  'ProgramAccountNotFound',
  'InsufficientFundsForFee',
  'InvalidAccountForFee',
  'AlreadyProcessed',
  'BlockhashNotFound',
  'CallChainTooDeep',
  'MissingSignatureForFee',
  'InvalidAccountIndex',
  'SignatureFailure',
  'InvalidProgramForExecution',
  'SanitizeFailure',
  'ClusterMaintenance',
  'AccountBorrowOutstanding',
  'WouldExceedMaxBlockCostLimit',
  'UnsupportedVersion',
  'InvalidWritableAccount',
  'WouldExceedMaxAccountCostLimit',
  'WouldExceedAccountDataBlockLimit',
  'TooManyAccountLocks',
  'AddressLookupTableNotFound',
  'InvalidAddressLookupTableOwner',
  'InvalidAddressLookupTableData',
  'InvalidAddressLookupTableIndex',
  'InvalidRentPayingAccount',
  'WouldExceedMaxVoteCostLimit',
  'WouldExceedAccountDataTotalLimit',
  'MaxLoadedAccountsDataSizeExceeded',
  'ResanitizationNeeded',
  'InvalidLoadedAccountsDataSizeLimit',
  'UnbalancedTransaction',
  'ProgramCacheHitMaxLimit',
  'CommitCancelled',
]
const INSTRUCTION_ERRORS = [
  'GenericError',
  'InvalidArgument',
  'InvalidInstructionData',
  'InvalidAccountData',
  'AccountDataTooSmall',
  'InsufficientFunds',
  'IncorrectProgramId',
  'MissingRequiredSignature',
  'AccountAlreadyInitialized',
  'UninitializedAccount',
  'UnbalancedInstruction',
  'ModifiedProgramId',
  'ExternalAccountLamportSpend',
  'ExternalAccountDataModified',
  'ReadonlyLamportChange',
  'ReadonlyDataModified',
  'DuplicateAccountIndex',
  'ExecutableModified',
  'RentEpochModified',
  'NotEnoughAccountKeys',
  'AccountDataSizeChanged',
  'AccountNotExecutable',
  'AccountBorrowFailed',
  'AccountBorrowOutstanding',
  'DuplicateAccountOutOfSync',
  'InvalidError',
  'ExecutableDataModified',
  'ExecutableLamportChange',
  'ExecutableAccountNotRentExempt',
  'UnsupportedProgramId',
  'CallDepth',
  'MissingAccount',
  'ReentrancyNotAllowed',
  'MaxSeedLengthExceeded',
  'InvalidSeeds',
  'InvalidRealloc',
  'ComputationalBudgetExceeded',
  'PrivilegeEscalation',
  'ProgramEnvironmentSetupFailure',
  'ProgramFailedToComplete',
  'ProgramFailedToCompile',
  'Immutable',
  'IncorrectAuthority',
  'AccountNotRentExempt',
  'InvalidAccountOwner',
  'ArithmeticOverflow',
  'UnsupportedSysvar',
  'IllegalOwner',
  'MaxAccountsDataAllocationsExceeded',
  'MaxAccountsExceeded',
  'MaxInstructionTraceLengthExceeded',
  'BuiltinProgramsMustConsumeComputeUnits',
  'BorshIoError',
]

/** A TransactionError as JSON: `"BlockhashNotFound"`, `{ InstructionError: [0, { Custom: 1 }] }`, … */
export type TransactionErrorJson = string | Record<string, unknown>

/** litesvm's error object (see litesvm/dist/internal.d.ts) → the validator's JSON. */
export function transactionErrorJson(err: unknown): TransactionErrorJson {
  if (typeof err === 'number') return TRANSACTION_ERRORS[err] ?? 'SanitizeFailure'
  const e = err as { index?: number; accountIndex?: number; err?: () => unknown; constructor: { name: string } }
  switch (e.constructor.name) {
    case 'TransactionErrorInstructionError': {
      const inner = e.err?.()
      let detail: unknown
      if (typeof inner === 'number') detail = INSTRUCTION_ERRORS[inner] ?? 'GenericError'
      else if (inner && (inner as { constructor: { name: string } }).constructor.name === 'InstructionErrorCustom')
        detail = { Custom: (inner as { code: number }).code }
      else detail = 'BorshIoError'
      return { InstructionError: [e.index, detail] }
    }
    case 'TransactionErrorDuplicateInstruction':
      return { DuplicateInstruction: e.index }
    case 'TransactionErrorInsufficientFundsForRent':
      return { InsufficientFundsForRent: { account_index: e.accountIndex } }
    case 'TransactionErrorProgramExecutionTemporarilyRestricted':
      return { ProgramExecutionTemporarilyRestricted: { account_index: e.accountIndex } }
    default:
      return 'SanitizeFailure'
  }
}

/** Errors of a transaction that never lands (no fee, no record), as opposed to one that fails on chain. */
export function isDroppedError(err: TransactionErrorJson): boolean {
  return typeof err === 'string'
}

const TRANSACTION_ERROR_TEXT: Record<string, string> = {
  AccountInUse: 'Account in use',
  AccountLoadedTwice: 'Account loaded twice',
  AccountNotFound: 'Attempt to debit an account but found no record of a prior credit.',
  ProgramAccountNotFound: 'Attempt to load a program that does not exist',
  InsufficientFundsForFee: 'Insufficient funds for fee',
  InvalidAccountForFee: 'This account may not be used to pay transaction fees',
  AlreadyProcessed: 'This transaction has already been processed',
  BlockhashNotFound: 'Blockhash not found',
  SignatureFailure: 'Transaction did not pass signature verification',
  SanitizeFailure: 'Transaction failed to sanitize accounts offsets correctly',
  InvalidProgramForExecution: 'Attempt to load a program that does not exist',
  UnsupportedVersion: 'Transaction version is unsupported',
  AddressLookupTableNotFound: "Transaction loads an address table account that doesn't exist",
}

const INSTRUCTION_ERROR_TEXT: Record<string, string> = {
  GenericError: 'generic instruction error',
  InvalidArgument: 'invalid program argument',
  InvalidInstructionData: 'invalid instruction data',
  InvalidAccountData: 'invalid account data for instruction',
  AccountDataTooSmall: 'account data too small for instruction',
  InsufficientFunds: 'insufficient funds for instruction',
  IncorrectProgramId: 'incorrect program id for instruction',
  MissingRequiredSignature: 'missing required signature for instruction',
  AccountAlreadyInitialized: 'instruction requires an uninitialized account',
  UninitializedAccount: 'instruction requires an initialized account',
  NotEnoughAccountKeys: 'insufficient account keys for instruction',
  ComputationalBudgetExceeded: 'Computational budget exceeded',
  PrivilegeEscalation: 'Cross-program invocation with unauthorized signer or writable account',
  InvalidAccountOwner: 'Invalid account owner',
  ArithmeticOverflow: 'Program arithmetic overflowed',
  IllegalOwner: 'Provided owner is not allowed',
}

/** The Display text of a TransactionError, as the validator puts it in "Transaction simulation failed: …". */
export function transactionErrorText(err: TransactionErrorJson): string {
  if (typeof err === 'string') return TRANSACTION_ERROR_TEXT[err] ?? err
  if ('InstructionError' in err) {
    const [index, detail] = err.InstructionError as [number, unknown]
    const text =
      typeof detail === 'string'
        ? (INSTRUCTION_ERROR_TEXT[detail] ?? detail)
        : `custom program error: 0x${((detail as { Custom: number }).Custom >>> 0).toString(16)}`
    return `Error processing Instruction ${index}: ${text}`
  }
  if ('InsufficientFundsForRent' in err) {
    const index = (err.InsufficientFundsForRent as { account_index: number }).account_index
    return `Transaction results in an account (${index}) with insufficient funds for rent`
  }
  if ('DuplicateInstruction' in err)
    return `Transaction contains a duplicate instruction (${err.DuplicateInstruction}) that is not allowed`
  return JSON.stringify(err)
}
