/**
 * A landed transaction as getTransaction and getBlock answer it (https://solana.com/docs/rpc/json-structures):
 * `json`, `jsonParsed` (System, SPL Token and Associated Token Account instructions parsed, the rest raw),
 * `base64`, `base58`, with its status meta.
 */
import { encodeBase58, encodeBase64, RpcError, tryDecodeBase58 } from './codec.ts'
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM, uiTokenAmount } from './spl-token.ts'
import { isStaticWritable, parseTransaction } from './transaction.ts'
import type { TransactionRecord } from './transaction-history.ts'

export type TransactionEncoding = 'json' | 'jsonParsed' | 'base58' | 'base64' | 'binary'

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const ATA_PROGRAM = 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL'

/** -32015: a v0 transaction asked for without `maxSupportedTransactionVersion` (Agave's exact words). */
export function versionNotSupported(): RpcError {
  return new RpcError(
    -32015,
    'Transaction version (0) is not supported by the requesting client. Please try the request again with the ' +
      'following configuration parameter: "maxSupportedTransactionVersion": 0',
  )
}

export function uiMeta(record: TransactionRecord, parsed: boolean): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: record.computeUnitsConsumed,
    err: record.err,
    fee: record.fee,
    innerInstructions: record.innerInstructions.map((entry) => ({
      index: entry.index,
      instructions: parsed
        ? (
            entry.instructions as Array<{
              programIdIndex: number
              accounts: number[]
              data: string
              stackHeight: number
            }>
          ).map((ix) => parsedInstruction(record, ix.programIdIndex, ix.accounts, ix.data, ix.stackHeight))
        : entry.instructions,
    })),
    logMessages: record.logs,
    postBalances: record.postBalances,
    postTokenBalances: record.postTokenBalances,
    preBalances: record.preBalances,
    preTokenBalances: record.preTokenBalances,
    rewards: [],
    status: record.err === null ? { Ok: null } : { Err: record.err },
  }
  if (!parsed) meta.loadedAddresses = record.loadedAddresses
  if (record.returnData) meta.returnData = record.returnData
  return meta
}

/** The `transaction` field in the asked encoding. */
export function uiTransaction(record: TransactionRecord, encoding: TransactionEncoding): unknown {
  if (encoding === 'base64') return [encodeBase64(record.wire), 'base64']
  if (encoding === 'base58') return [encodeBase58(record.wire), 'base58']
  if (encoding === 'binary') return encodeBase58(record.wire)
  const tx = parseTransaction(record.wire)
  const header = tx.header
  if (encoding === 'json') {
    const message: Record<string, unknown> = {
      accountKeys: tx.staticKeys,
      header,
      instructions: tx.instructions.map((ix) => ({
        accounts: ix.accounts,
        data: encodeBase58(ix.data),
        programIdIndex: ix.programIdIndex,
        stackHeight: null,
      })),
      recentBlockhash: tx.recentBlockhash,
    }
    if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups
    return { message, signatures: tx.signatures }
  }
  const loadedWritable = new Set(record.loadedAddresses.writable)
  const accountKeys = record.accountKeys.map((pubkey, i) => ({
    pubkey,
    signer: i < header.numRequiredSignatures,
    source: i < tx.staticKeys.length ? 'transaction' : 'lookupTable',
    writable: i < tx.staticKeys.length ? isStaticWritable(tx, i) : loadedWritable.has(pubkey),
  }))
  const message: Record<string, unknown> = {
    accountKeys,
    instructions: tx.instructions.map((ix) =>
      parsedInstruction(record, ix.programIdIndex, ix.accounts, encodeBase58(ix.data), null),
    ),
    recentBlockhash: tx.recentBlockhash,
  }
  if (tx.version === 0) message.addressTableLookups = tx.addressTableLookups
  return { message, signatures: tx.signatures }
}

/** `{ transaction, meta, version? }` as one entry of getBlock or the body of getTransaction. */
export function uiTransactionWithMeta(
  record: TransactionRecord,
  encoding: TransactionEncoding,
  maxSupportedVersion: number | undefined,
): Record<string, unknown> {
  if (record.version === 0 && maxSupportedVersion === undefined) throw versionNotSupported()
  const out: Record<string, unknown> = {
    meta: uiMeta(record, encoding === 'jsonParsed'),
    transaction: uiTransaction(record, encoding),
  }
  if (maxSupportedVersion !== undefined) out.version = record.version
  return out
}

function readU64(data: Uint8Array, offset: number): bigint | undefined {
  if (data.length < offset + 8) return undefined
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(offset, true)
}

/** One instruction in jsonParsed form: parsed where the program is known, else `{ programId, accounts, data }`. */
function parsedInstruction(
  record: TransactionRecord,
  programIdIndex: number,
  accountIndexes: number[],
  dataBase58: string,
  stackHeight: number | null,
): Record<string, unknown> {
  const keys = record.accountKeys
  const programId = keys[programIdIndex] ?? ''
  const accounts = accountIndexes.map((i) => keys[i] ?? '')
  const raw = { accounts, data: dataBase58, programId, stackHeight }
  const data = tryDecodeBase58(dataBase58)
  if (typeof data === 'string') return raw
  const parsed = parseKnown(programId, accounts, data)
  return parsed ? { ...parsed, programId, stackHeight } : raw
}

function parseKnown(
  programId: string,
  accounts: string[],
  data: Uint8Array,
): { parsed: unknown; program: string } | undefined {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  if (programId === SYSTEM_PROGRAM && data.length >= 4) {
    const kind = view.getUint32(0, true)
    if (kind === 2 && data.length >= 12)
      return {
        program: 'system',
        parsed: {
          info: { destination: accounts[1], lamports: Number(readU64(data, 4)), source: accounts[0] },
          type: 'transfer',
        },
      }
    if (kind === 0 && data.length >= 52)
      return {
        program: 'system',
        parsed: {
          info: {
            lamports: Number(readU64(data, 4)),
            newAccount: accounts[1],
            owner: encodeBase58(data.subarray(20, 52)),
            source: accounts[0],
            space: Number(readU64(data, 12)),
          },
          type: 'createAccount',
        },
      }
    return undefined
  }
  if (programId === TOKEN_PROGRAM || programId === TOKEN_2022_PROGRAM) {
    const program = programId === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022'
    const amount = readU64(data, 1)
    switch (data[0]) {
      case 3: // Transfer
        if (amount === undefined) return undefined
        return {
          program,
          parsed: {
            info: { amount: amount.toString(), authority: accounts[2], destination: accounts[1], source: accounts[0] },
            type: 'transfer',
          },
        }
      case 7: // MintTo
        if (amount === undefined) return undefined
        return {
          program,
          parsed: {
            info: { account: accounts[1], amount: amount.toString(), mint: accounts[0], mintAuthority: accounts[2] },
            type: 'mintTo',
          },
        }
      case 12: // TransferChecked
        if (amount === undefined || data.length < 10) return undefined
        return {
          program,
          parsed: {
            info: {
              authority: accounts[3],
              destination: accounts[2],
              mint: accounts[1],
              source: accounts[0],
              tokenAmount: uiTokenAmount(amount, data[9] as number),
            },
            type: 'transferChecked',
          },
        }
      case 14: // MintToChecked
        if (amount === undefined || data.length < 10) return undefined
        return {
          program,
          parsed: {
            info: {
              account: accounts[1],
              mint: accounts[0],
              mintAuthority: accounts[2],
              tokenAmount: uiTokenAmount(amount, data[9] as number),
            },
            type: 'mintToChecked',
          },
        }
      default:
        return undefined
    }
  }
  if (programId === ATA_PROGRAM && (data.length === 0 || data[0] === 0 || data[0] === 1)) {
    return {
      program: 'spl-associated-token-account',
      parsed: {
        info: {
          account: accounts[1],
          mint: accounts[3],
          source: accounts[0],
          systemProgram: accounts[4],
          tokenProgram: accounts[5],
          wallet: accounts[2],
        },
        type: data[0] === 1 ? 'createIdempotent' : 'create',
      },
    }
  }
  return undefined
}
