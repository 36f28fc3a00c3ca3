import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget'
import { getTransferSolInstruction } from '@solana-program/system'
import {
  getApproveCheckedInstruction,
  getApproveInstruction,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
  getTransferInstruction,
} from '@solana-program/token'
import { AccountRole, type Address } from '@solana/kit'
import { describe, expect, test } from 'vitest'
import {
  filled,
  type TestTransaction,
  writeTransaction,
} from '../../../methods/solana/wire-transaction.test-support.ts'
import {
  decodeSolanaTransaction,
  decodeSolanaTransactionBase64,
  describeSolanaMessage,
  describeSolanaTransaction,
  SolanaDecodeError,
  type SolanaTransactionContext,
} from './index.ts'
import { TOKEN_2022_PROGRAM_ADDRESS, UNLIMITED_SPL_WARNING } from './token.ts'
import { addr, base64Of, BLOCKHASH, buildTransaction, bytesOf, signer } from './transactions.test-support.ts'
import { U64_MAX } from './format.ts'

const ME = addr(1)
const OTHER = addr(2)
const MINT = addr(3)
const MY_TOKENS = addr(4)
const THEIR_TOKENS = addr(5)
const DELEGATE = addr(6)
const env = {
  cluster: 'solana:devnet1',
  network: 'solana-devnet',
  accounts: [{ address: ME, index: 0, label: 'main' }],
}
const row = (v: { rows: { label: string; value: string; detail?: string }[] }, label: string) =>
  v.rows.find((r) => r.label === label || r.label.startsWith(label))

describe('decoding', () => {
  test('a system transfer: fee payer, signers, blockhash, one instruction', () => {
    const tx = buildTransaction(ME, [getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 5n })])
    const d = decodeSolanaTransactionBase64(tx)
    expect(d).toMatchObject({ feePayer: ME, signers: [ME], recentBlockhash: BLOCKHASH, version: 'legacy' })
    expect(d.signatures).toEqual([null])
    expect(d.instructions).toHaveLength(1)
    expect(decodeSolanaTransaction(bytesOf(tx)).feePayer).toBe(ME)
  })

  const valid: TestTransaction = {
    signatures: [filled(64, 0)],
    version: 'legacy',
    header: [1, 0, 1],
    accountKeys: [filled(32, 1), filled(32, 2), filled(32, 0)],
    blockhash: filled(32, 9),
    instructions: [{ program: 2, accounts: [0, 1], data: Uint8Array.of(2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0) }],
    lookups: [],
  }
  const refused: [string, unknown, RegExp][] = [
    ['not base64', 'not base64!', /not valid base64/],
    ['not a string', 42, /must be a base64 string/],
    ['empty', '', /empty/],
    ['truncated', base64Of(writeTransaction(valid).slice(0, 80)), /truncated or malformed/],
    [
      'two signatures for one signer',
      base64Of(writeTransaction({ ...valid, signatures: [filled(64, 0), filled(64, 0)] })),
      /signature/i,
    ],
    ['no signer', base64Of(writeTransaction({ ...valid, signatures: [], header: [0, 0, 1] })), /no fee payer/],
    [
      'account index out of range',
      base64Of(
        writeTransaction({ ...valid, instructions: [{ program: 2, accounts: [0, 7], data: new Uint8Array() }] }),
      ),
      /account index 7, out of range/,
    ],
    [
      'program index out of range',
      base64Of(writeTransaction({ ...valid, instructions: [{ program: 9, accounts: [], data: new Uint8Array() }] })),
      /program account 9/,
    ],
    [
      'fee payer as program',
      base64Of(writeTransaction({ ...valid, instructions: [{ program: 0, accounts: [], data: new Uint8Array() }] })),
      /fee payer as a program/,
    ],
    [
      'an account twice',
      base64Of(writeTransaction({ ...valid, accountKeys: [filled(32, 1), filled(32, 1), filled(32, 0)] })),
      /listed twice/,
    ],
    ['read-only fee payer', base64Of(writeTransaction({ ...valid, header: [1, 1, 1] })), /read-only/],
    ['trailing bytes', base64Of(Uint8Array.from([...writeTransaction(valid), 0, 0])), /2 unexpected bytes/],
    ['too large', base64Of(new Uint8Array(1300)), /too large|more than the 1232/],
    ['version 1 envelope', base64Of(Uint8Array.from([0x81, ...writeTransaction(valid)])), /unsupported/],
    [
      'more than 256 accounts',
      base64Of(
        writeTransaction({
          ...valid,
          version: 0,
          lookups: [
            { table: filled(32, 7), writable: [...Array(200).keys()], readonly: [] },
            { table: filled(32, 8), writable: [], readonly: [...Array(100).keys()] },
          ],
        }),
      ),
      /303 accounts, more than 256/,
    ],
  ]
  test.each(refused)('refuses %s with a SolanaDecodeError', (_, input, message) => {
    expect(() => decodeSolanaTransactionBase64(input)).toThrow(SolanaDecodeError)
    expect(() => decodeSolanaTransactionBase64(input)).toThrow(message)
    // The view never throws: it says the transaction cannot be shown.
    const v = describeSolanaTransaction(input as string, undefined, env)
    expect(v.signers).toEqual([])
    expect(v.warnings[0]).toMatch(/Do not approve it/)
  })
})

describe('transaction view', () => {
  test('System transfer in SOL from a labelled own account, base fee', () => {
    const tx = buildTransaction(ME, [
      getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 1_500_000_000n }),
    ])
    const v = describeSolanaTransaction(tx, undefined, env)
    expect(row(v, 'Network')!.value).toBe('solana-devnet (solana:devnet1)')
    expect(row(v, 'Fee payer')!.value).toBe(`${ME} (your account #0 "main")`)
    expect(row(v, '#1 System Program')).toEqual({
      label: '#1 System Program',
      value: 'Transfer 1.5 SOL',
      detail: `from ${ME} (your account #0 "main") to ${OTHER}`,
    })
    expect(row(v, 'Network fee')!.value).toBe('0.000005 SOL')
    expect(row(v, 'Simulation')!.value).toBe('not run')
    expect(v.warnings).toEqual([])
    expect(v).toMatchObject({ feePayer: ME, signers: [ME], recentBlockhash: BLOCKHASH })
  })

  test('SPL transfer: decimals unknown without a read, from the token account read with one', () => {
    const tx = buildTransaction(ME, [
      getTransferInstruction({
        source: MY_TOKENS,
        destination: THEIR_TOKENS,
        authority: signer(ME),
        amount: 1_500_000n,
      }),
    ])
    expect(row(describeSolanaTransaction(tx, undefined, env), '#1 Token Program')!.value).toBe(
      'Transfer 1,500,000 base units (decimals unknown)',
    )
    const ctx: SolanaTransactionContext = {
      tokenAccounts: { [MY_TOKENS]: { mint: MINT, owner: ME, decimals: 6, amount: '9000000' } },
    }
    const r = row(describeSolanaTransaction(tx, ctx, env), '#1 Token Program')!
    expect(r.value).toBe(`Transfer 1.5 of token ${MINT}`)
    expect(r.detail).toBe(
      `from ${MY_TOKENS} (owner: ${ME} (your account #0 "main")) to ${THEIR_TOKENS}; signed by ${ME} (your account #0 "main")`,
    )
  })

  test('transferChecked takes the decimals from the instruction, Token-2022 alike', () => {
    for (const programAddress of [undefined, TOKEN_2022_PROGRAM_ADDRESS as Address]) {
      const tx = buildTransaction(ME, [
        getTransferCheckedInstruction(
          { source: MY_TOKENS, mint: MINT, destination: THEIR_TOKENS, authority: signer(ME), amount: 25n, decimals: 2 },
          programAddress ? { programAddress } : undefined,
        ),
      ])
      const v = describeSolanaTransaction(tx, undefined, env)
      expect(v.rows.find((r) => r.label.startsWith('#1'))!.value).toBe(`Transfer 0.25 of token ${MINT}`)
      expect(v.warnings).toEqual([])
    }
  })

  test('approve of u64 max is flagged unlimited; a bounded approveChecked is not', () => {
    const unlimited = describeSolanaTransaction(
      buildTransaction(ME, [
        getApproveInstruction({ source: MY_TOKENS, delegate: DELEGATE, owner: signer(ME), amount: U64_MAX }),
      ]),
      undefined,
      env,
    )
    expect(row(unlimited, '#1')!.value).toBe(`Approve ${DELEGATE} to spend an UNLIMITED amount`)
    expect(unlimited.warnings).toEqual([UNLIMITED_SPL_WARNING])
    const bounded = describeSolanaTransaction(
      buildTransaction(ME, [
        getApproveCheckedInstruction({
          source: MY_TOKENS,
          mint: MINT,
          delegate: DELEGATE,
          owner: signer(ME),
          amount: 5n,
          decimals: 1,
        }),
      ]),
      undefined,
      env,
    )
    expect(row(bounded, '#1')!.value).toBe(`Approve ${DELEGATE} to spend 0.5 of token ${MINT}`)
    expect(bounded.warnings).toEqual([])
  })

  test('compute budget: limit × price is the priority fee, added to the base fee', () => {
    const tx = buildTransaction(ME, [
      getSetComputeUnitLimitInstruction({ units: 300_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: 10_000n }),
      getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 1n }),
    ])
    const v = describeSolanaTransaction(tx, undefined, env)
    expect(row(v, '#1 Compute Budget Program')!.value).toBe('Compute unit limit 300000')
    expect(row(v, '#2 Compute Budget Program')!.value).toBe('Priority price 10000 micro-lamports per compute unit')
    expect(row(v, '#3 System Program')!.value).toBe('Transfer 0.000000001 SOL')
    // 5,000 base + 300,000 × 10,000 / 1,000,000 = 3,000 priority.
    expect(row(v, 'Network fee')).toMatchObject({ value: '0.000008 SOL' })
    expect(row(v, 'Network fee')!.detail).toContain(
      'priority 0.000003 SOL (300000 compute units × 10000 micro-lamports)',
    )
    expect(v.feeLamports).toBe('8000')
  })

  test('an unknown program is named by id, its data shown as bounded hex, and flagged', () => {
    const program = addr(77)
    const tx = buildTransaction(ME, [
      {
        programAddress: program,
        accounts: [{ address: ME, role: AccountRole.WRITABLE_SIGNER }],
        data: new Uint8Array(100).fill(0xab),
      },
    ])
    const v = describeSolanaTransaction(tx, undefined, env)
    const r = row(v, '#1 Unknown program')!
    expect(r.value).toBe('Unknown program')
    expect(r.detail).toBe(`1 accounts, 100 bytes of data: 0x${'ab'.repeat(64)}… (36 more bytes)`)
    expect(v.warnings).toHaveLength(1)
    expect(v.warnings[0]).toContain(program)
  })

  test('an instruction its program client cannot decode is shown as bytes and flagged', () => {
    const tx = buildTransaction(ME, [
      {
        programAddress: '11111111111111111111111111111111' as Address,
        accounts: [],
        data: Uint8Array.of(2, 0, 0, 0, 1),
      },
    ])
    const v = describeSolanaTransaction(tx, undefined, env)
    expect(row(v, '#1 System Program')!.value).toBe('System Program instruction that could not be decoded')
    expect(v.warnings[0]).toMatch(/Instruction #1 \(System Program, 1{32}\) could not be decoded/)
  })

  test('associated token account creation', () => {
    const tx = buildTransaction(ME, [
      getCreateAssociatedTokenIdempotentInstruction({ payer: signer(ME), ata: THEIR_TOKENS, owner: OTHER, mint: MINT }),
    ])
    const r = row(describeSolanaTransaction(tx, undefined, env), '#1 Associated Token Account Program')!
    expect(r.value).toBe(`Create the token account for token ${MINT} (if missing)`)
    expect(r.detail).toBe(`account ${THEIR_TOKENS} of ${OTHER}; rent paid by ${ME} (your account #0 "main")`)
  })

  test('v0 with a lookup table: table and entry until the table is read, then the address', () => {
    const table = addr(50)
    const tx = buildTransaction(
      ME,
      [getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 2n })],
      { version: 0, lookupTables: { [table]: [addr(60), OTHER] } },
    )
    const d = decodeSolanaTransactionBase64(tx)
    expect(d.version).toBe(0)
    expect(d.lookups).toEqual([{ table, writableIndexes: [1], readonlyIndexes: [] }])
    const v = describeSolanaTransaction(tx, undefined, env)
    expect(row(v, '#1')!.detail).toBe(`from ${ME} (your account #0 "main") to entry 1 of lookup table ${table}`)
    expect(row(v, 'Version')!.value).toBe('v0 with 1 address lookup table')
    expect(v.warnings).toEqual([expect.stringMatching(/^1 account comes from address lookup tables/)])
    const resolved = describeSolanaTransaction(tx, { lookupTables: { [table]: { 1: OTHER } } }, env)
    expect(row(resolved, '#1')!.detail).toBe(`from ${ME} (your account #0 "main") to ${OTHER}`)
    expect(resolved.warnings).toEqual([])
  })

  test('simulation: balance changes (own first), a failure as a warning, expired blockhash, damaged context', () => {
    const tx = buildTransaction(ME, [
      getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 10n }),
    ])
    const ok = describeSolanaTransaction(
      tx,
      {
        balances: { [ME]: '1000000000', [OTHER]: '0' },
        tokenAccounts: { [MY_TOKENS]: { mint: MINT, owner: ME, decimals: 2, amount: '500' } },
        simulation: {
          ok: true,
          logs: ['Program 11111111111111111111111111111111 success'],
          unitsConsumed: 150,
          balancesAfter: { [OTHER]: '10', [ME]: '999994990' },
          tokenAccountsAfter: { [MY_TOKENS]: { mint: MINT, owner: ME, decimals: 2, amount: '400' } },
        },
      },
      env,
    )
    expect(row(ok, 'Simulation')).toEqual({ label: 'Simulation', value: 'succeeds', detail: '150 compute units used' })
    expect(ok.rows.filter((r) => r.label === 'Balance change')).toEqual([
      { label: 'Balance change', value: '-0.00000501 SOL', detail: `${ME} (your account #0 "main")` },
      { label: 'Balance change', value: '+0.00000001 SOL', detail: OTHER },
    ])
    expect(row(ok, 'Token balance change')).toEqual({
      label: 'Token balance change',
      value: `-1 of token ${MINT}`,
      detail: `token account ${MY_TOKENS} (owner: ${ME} (your account #0 "main"))`,
    })
    expect(ok.logs).toEqual(['Program 11111111111111111111111111111111 success'])
    const failed = describeSolanaTransaction(
      tx,
      {
        blockhashValid: false,
        simulation: { ok: false, error: 'instruction #1 failed: insufficient funds', logs: ['boom'] },
      },
      env,
    )
    expect(row(failed, 'Simulation')!.value).toBe('fails: instruction #1 failed: insufficient funds')
    expect(failed.warnings).toEqual([
      'The simulation failed: instruction #1 failed: insufficient funds. Sending it would most likely fail and still ' +
        'cost the fee. Last log line: boom',
      'The recent blockhash has expired: sending will fail. Ask the dapp to build the transaction again.',
    ])
    // Stored JSON damaged: fields of the wrong shape are ignored, the view still renders.
    const damaged = describeSolanaTransaction(
      tx,
      { balances: 7, simulation: { ok: true, logs: 'x', balancesAfter: { [ME]: 'lots' } }, mints: [] } as never,
      env,
    )
    expect(row(damaged, 'Simulation')!.value).toBe('succeeds')
    expect(damaged.rows.some((r) => r.label === 'Balance change')).toBe(false)
  })
})

describe('messages', () => {
  test('UTF-8 text is shown as text', () => {
    const m = describeSolanaMessage(Buffer.from('Sign in to dapp.example\nNonce: 42').toString('base64'))
    expect(m).toMatchObject({ text: 'Sign in to dapp.example\nNonce: 42', warnings: [] })
    expect(m.hex).toMatch(/^0x5369676e/)
  })
  test('binary bytes are hex with a warning; a transaction message is called out; bad base64 is refused', () => {
    const bin = describeSolanaMessage(base64Of(Uint8Array.of(0, 1, 2, 255)))
    expect(bin).toMatchObject({ hex: '0x000102ff', bytes: 4 })
    expect(bin.text).toBeUndefined()
    expect(bin.warnings[0]).toMatch(/binary data/)
    const tx = bytesOf(
      buildTransaction(ME, [getTransferSolInstruction({ source: signer(ME), destination: OTHER, amount: 1n })]),
    )
    const asMessage = describeSolanaMessage(base64Of(tx.subarray(65)))
    expect(asMessage.warnings[0]).toMatch(/Solana transaction message/)
    expect(describeSolanaMessage('%%%').warnings[0]).toMatch(/not valid base64/)
  })
})
