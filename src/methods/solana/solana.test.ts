import { base58 } from '@scure/base'
import { describe, expect, it } from 'vitest'
import { touchedAddresses } from '../../keys/security/addresses.ts'
import { decide, unservedRefusal } from '../policy.ts'
import { defaultServed } from '../served.ts'
import { base58Decode, base58Encode, isPubkey, pubkeyBytes } from './base58.ts'
import { MAX_BASE58_TRANSACTION, parseWireTransaction, readWireTransaction } from './wire-transaction.ts'
import { compactU16, filled, SAMPLE, writeTransaction } from './wire-transaction.test-support.ts'

// Known keys: the Memo program (its bytes as @solana/kit's tests spell them) and the SPL Token program.
const MEMO = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'
const MEMO_HEX = '054a535a992921064d24e87160da387c7c35b5ddbc92bb81e41fa8404105448d'
const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'
const SYSTEM = '11111111111111111111111111111111'

const b64 = (b: Uint8Array) => Buffer.from(b).toString('base64')
const call = (method: string, params: unknown) => ({ id: 1, hasId: true, method, params }) as never
const SOLANA = defaultServed('solana')
const ask = (method: string, params: unknown[], transport: 'http' | 'ws' = 'http') =>
  decide(call(method, params), transport, SOLANA)
const invalid = (method: string, params: unknown[]) => {
  const d = ask(method, params)
  return d.kind === 'error' ? `${d.error.rpcCode} ${d.error.message}` : d.kind
}

describe('base58', () => {
  it('reads and writes keys as @scure/base does', () => {
    expect(Buffer.from(base58Decode(MEMO, 32)!).toString('hex')).toBe(MEMO_HEX)
    expect(base58Encode(Buffer.from(MEMO_HEX, 'hex'))).toBe(MEMO)
    expect(base58Encode(new Uint8Array(32))).toBe(SYSTEM)
    expect(pubkeyBytes(SYSTEM)).toEqual(new Uint8Array(32))
    for (const k of [MEMO, TOKEN, SYSTEM]) expect(base58Encode(pubkeyBytes(k)!)).toBe(k)
    expect(base58Decode('', 10)).toEqual(new Uint8Array(0))
    expect(base58Decode('1', 10)).toEqual(new Uint8Array(1))
    const long = Uint8Array.from({ length: 1232 }, (_, i) => (i * 31 + 7) & 0xff)
    expect(base58Decode(base58.encode(long), 1232)).toEqual(long)
  })

  it('refuses what is not a 32-byte key: another alphabet, another length, a character outside ASCII', () => {
    for (const bad of [
      MEMO.replace('M', '0'), // 0, O, I and l are not base58
      MEMO.slice(1),
      `${MEMO}1`, // a leading zero byte more: 33 bytes
      `1${MEMO}`,
      'x'.repeat(45),
      `${MEMO.slice(0, -1)}é`,
      42,
      null,
    ])
      expect(isPubkey(bad), String(bad)).toBe(false)
    expect(base58Decode('z'.repeat(100), 32)).toBeUndefined() // longer than 32 bytes can be: not decoded at all
  })
})

describe('wire transactions', () => {
  it('reads a legacy transaction: signatures, static keys', () => {
    const tx = parseWireTransaction(writeTransaction(SAMPLE))!
    expect(tx.version).toBe('legacy')
    expect(tx.signatures).toBe(1)
    expect(tx.firstSignature).toEqual(filled(64, 7))
    expect(tx.accountKeys).toEqual(SAMPLE.accountKeys)
    expect(tx.lookups).toBe(0)
  })

  it('reads a v0 transaction, with and without address-table lookups', () => {
    const v0 = { ...SAMPLE, version: 0 as const }
    expect(parseWireTransaction(writeTransaction(v0))).toMatchObject({ version: 0, lookups: 0 })
    const looked = { ...v0, lookups: [{ table: filled(32, 5), writable: [1, 2], readonly: [0] }] }
    expect(parseWireTransaction(writeTransaction(looked))).toMatchObject({ version: 0, lookups: 1 })
    // A version other than 0 does not exist (the node: "expected a valid transaction message version").
    const bytes = writeTransaction(v0)
    bytes[65] = 0x80 | 126
    expect(parseWireTransaction(bytes)).toBeNull()
  })

  it('reads compact-u16 counts of two and three bytes, refuses aliases and overflow', () => {
    expect(compactU16(0x7f)).toEqual([0x7f])
    expect(compactU16(0x80)).toEqual([0x80, 0x01])
    expect(compactU16(0xffff)).toEqual([0xff, 0xff, 0x03])
    const many = { ...SAMPLE, accountKeys: Array.from({ length: 130 }, (_, i) => filled(32, i)) }
    expect(parseWireTransaction(writeTransaction(many))!.accountKeys).toHaveLength(130)
    // 1 signature written as 0x81 0x00 (an alias of 1): refused, as the node does.
    const alias = Uint8Array.from([0x81, 0x00, ...writeTransaction(SAMPLE).subarray(1)])
    expect(parseWireTransaction(alias)).toBeNull()
    expect(parseWireTransaction(Uint8Array.from([0xff, 0xff, 0x04]))).toBeNull()
  })

  it('refuses every cut of a transaction (never reading past the bytes)', () => {
    const bytes = writeTransaction({
      ...SAMPLE,
      version: 0,
      lookups: [{ table: filled(32, 5), writable: [1], readonly: [] }],
    })
    for (let n = 0; n < bytes.length; n++) expect(parseWireTransaction(bytes.subarray(0, n)), String(n)).toBeNull()
    expect(parseWireTransaction(bytes)).not.toBeNull()
  })

  it('reads the text forms: base58 by default (the node’s), base64 when the config says so, bounded', () => {
    const bytes = writeTransaction(SAMPLE)
    expect(readWireTransaction(base58.encode(bytes), undefined)).toMatchObject({ ok: true })
    expect(readWireTransaction(b64(bytes), 'base64')).toMatchObject({ ok: true })
    expect(readWireTransaction(b64(bytes), undefined)).toEqual({
      ok: false,
      why: 'is not valid base58 (the default encoding; send base64 with encoding: "base64")',
    })
    expect(readWireTransaction(`${b64(bytes)}!`, 'base64')).toEqual({ ok: false, why: 'is not valid base64' })
    expect(readWireTransaction(b64(bytes).slice(0, -1), 'base64')).toEqual({ ok: false, why: 'is not valid base64' })
    expect(readWireTransaction('z'.repeat(MAX_BASE58_TRANSACTION + 1), 'base58')).toMatchObject({ ok: false })
    expect(readWireTransaction(b64(new Uint8Array(1233)), 'base64')).toMatchObject({ why: /too large/ })
    expect(readWireTransaction(b64(Uint8Array.from([1, 2, 3])), 'base64')).toEqual({
      ok: false,
      why: 'is not a Solana transaction (legacy or v0)',
    })
    expect(readWireTransaction(7, 'base64')).toMatchObject({ ok: false })
  })
})

describe('solana params checks', () => {
  const tx64 = b64(writeTransaction(SAMPLE))
  it('lets well-formed calls through', () => {
    for (const [method, params] of [
      ['getBalance', [MEMO]],
      ['getBalance', [MEMO, { commitment: 'confirmed' }]],
      ['getAccountInfo', [MEMO, { encoding: 'jsonParsed' }]],
      ['getAccountInfo', [MEMO, null]],
      ['getMultipleAccounts', [Array(100).fill(MEMO), { encoding: 'base64' }]],
      ['getProgramAccounts', [TOKEN, { filters: [{ dataSize: 165 }] }]],
      ['getTokenAccountsByOwner', [MEMO, { programId: TOKEN }, { encoding: 'jsonParsed' }]],
      ['getBlock', [1234, { encoding: 'json', maxSupportedTransactionVersion: 0 }]],
      ['getSlot', []],
      ['getLatestBlockhash', [{ commitment: 'finalized' }]],
      ['sendTransaction', [tx64, { encoding: 'base64' }]],
      ['sendTransaction', [base58.encode(writeTransaction(SAMPLE))]],
      ['simulateTransaction', [tx64, { encoding: 'base64', sigVerify: false }]],
      ['requestAirdrop', [MEMO, 1_000_000_000]],
    ] as const)
      expect([method, ask(method, [...params]).kind]).toEqual([method, 'forward'])
  })

  it('refuses a malformed key, too many keys, a config that is not an object, an unknown encoding', () => {
    expect(invalid('getBalance', ['0xabc'])).toBe(
      '-32602 Invalid params: parameter 1 (pubkey) must be a base58 public key (32 bytes)',
    )
    expect(invalid('getBalance', [])).toBe(
      '-32602 Invalid params: parameter 1 (pubkey) must be a base58 public key (32 bytes)',
    )
    expect(invalid('getProgramAccounts', [`${TOKEN}x`])).toMatch(/parameter 1 \(programId\) must be a base58/)
    expect(invalid('getMultipleAccounts', [Array(101).fill(MEMO)])).toBe(
      '-32602 Invalid params: parameter 1 (pubkeys) holds 101 keys: at most 100',
    )
    expect(invalid('getMultipleAccounts', [[MEMO, 'nope']])).toBe(
      '-32602 Invalid params: parameter 1 (pubkeys): entry 2 must be a base58 public key (32 bytes)',
    )
    expect(invalid('getMultipleAccounts', [MEMO])).toMatch(/must be an array of base58 public keys/)
    expect(invalid('getBalance', [MEMO, 'finalized'])).toBe(
      '-32602 Invalid params: parameter 2 (config) must be an object',
    )
    expect(invalid('getSlot', [[1]])).toBe('-32602 Invalid params: parameter 1 (config) must be an object')
    expect(invalid('getAccountInfo', [MEMO, { encoding: 'hex' }])).toBe(
      '-32602 Invalid params: parameter 2 (config): encoding must be one of base58, base64, base64+zstd, jsonParsed',
    )
    expect(invalid('getTransaction', ['sig', { encoding: 'base64+zstd' }])).toMatch(
      /encoding must be one of json, jsonParsed, base58, base64/,
    )
    expect(invalid('sendTransaction', [tx64, { encoding: 'jsonParsed' }])).toMatch(
      /encoding must be one of base58, base64/,
    )
    expect(invalid('getTokenAccountsByOwner', [MEMO, { mint: TOKEN, programId: TOKEN }])).toMatch(
      /parameter 2 \(filter\) must be \{ mint \} or \{ programId \}/,
    )
  })

  it('refuses a transaction that is not one, naming the parameter', () => {
    expect(invalid('sendTransaction', [tx64])).toBe(
      '-32602 Invalid params: parameter 1 (transaction) is not valid base58 (the default encoding; send base64 with ' +
        'encoding: "base64")',
    )
    expect(invalid('sendTransaction', ['AAAA', { encoding: 'base64' }])).toBe(
      '-32602 Invalid params: parameter 1 (transaction) is not a Solana transaction (legacy or v0)',
    )
    expect(invalid('simulateTransaction', [{}, { encoding: 'base64' }])).toMatch(/must be an encoded transaction/)
  })

  it('subscriptions are WebSocket only; by-name params are the node’s to judge', () => {
    expect(invalid('accountSubscribe', [MEMO])).toBe(
      '-32601 accountSubscribe is only available over WebSocket: connect to /ws/v3/<key>',
    )
    expect(ask('accountSubscribe', [MEMO], 'ws').kind).toBe('forward')
    expect(invalid('accountSubscribe', ['x'])).toMatch(/only available over WebSocket/)
    expect(decide(call('getBalance', { pubkey: MEMO }), 'http', SOLANA).kind).toBe('forward')
  })

  it("answers another family's method with a -32601 naming both families", () => {
    const e = unservedRefusal('getBalance', 'evm', 'devnet-a')
    expect([e.code, e.rpcCode, e.message]).toEqual([
      'METHOD_WRONG_FAMILY',
      -32601,
      'getBalance is a Solana method; this network (devnet-a) is EVM',
    ])
    expect(unservedRefusal('eth_call', 'solana', 'sol').message).toBe(
      'eth_call is an EVM method; this network (sol) is Solana',
    )
    expect(unservedRefusal('getFoo', 'solana', 'sol').message).toBe('The method getFoo does not exist/is not available')
    expect(unservedRefusal(`eth_${'x'.repeat(1 << 16)}`, 'solana', 'sol').message.length).toBeLessThan(300)
  })
})

describe('solana address readers (key allowlists)', () => {
  it('reads the account a call names, base58 as written', () => {
    expect(touchedAddresses('getBalance', [MEMO])).toEqual([MEMO])
    expect(touchedAddresses('getAccountInfo', [MEMO, { encoding: 'base64' }])).toEqual([MEMO])
    expect(touchedAddresses('getProgramAccounts', [TOKEN])).toEqual([TOKEN])
    expect(touchedAddresses('getTokenAccountsByOwner', [MEMO, { mint: TOKEN }])).toEqual([MEMO])
    expect(touchedAddresses('getSignaturesForAddress', [MEMO])).toEqual([MEMO])
    expect(touchedAddresses('getMultipleAccounts', [[MEMO, TOKEN]])).toEqual([MEMO, TOKEN])
    expect(touchedAddresses('getMultipleAccounts', [[MEMO, 'bad']])).toEqual([])
    expect(touchedAddresses('accountSubscribe', [MEMO])).toEqual([MEMO])
    expect(touchedAddresses('logsSubscribe', [{ mentions: [MEMO] }])).toEqual([MEMO])
    expect(touchedAddresses('logsSubscribe', ['all'])).toEqual([])
    expect(touchedAddresses('getRecentPrioritizationFees', [])).toBeNull()
    expect(touchedAddresses('getRecentPrioritizationFees', [[MEMO]])).toEqual([MEMO])
    for (const m of ['getSlot', 'getBlock', 'getTransaction', 'getLatestBlockhash', 'getLargestAccounts'])
      expect(touchedAddresses(m, []), m).toBeNull()
    expect(touchedAddresses('getBalance', ['nope'])).toEqual([])
  })

  it("reads a sent transaction's static account keys; lookups or unreadable bytes may reach any account", () => {
    const keys = SAMPLE.accountKeys.map((k) => base58.encode(k))
    const bytes = writeTransaction(SAMPLE)
    expect(touchedAddresses('sendTransaction', [b64(bytes), { encoding: 'base64' }])).toEqual(keys)
    expect(touchedAddresses('sendTransaction', [base58.encode(bytes)])).toEqual(keys)
    const looked = writeTransaction({
      ...SAMPLE,
      version: 0,
      lookups: [{ table: filled(32, 5), writable: [3], readonly: [] }],
    })
    expect(touchedAddresses('sendTransaction', [b64(looked), { encoding: 'base64' }])).toEqual([])
    expect(touchedAddresses('sendTransaction', ['AAAA', { encoding: 'base64' }])).toEqual([])
    expect(
      touchedAddresses('simulateTransaction', [b64(bytes), { encoding: 'base64', accounts: { addresses: [TOKEN] } }]),
    ).toEqual([...keys, TOKEN])
  })
})
