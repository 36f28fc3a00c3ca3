/**
 * Fuzz suite, the wallet's Solana approval view (src/wallet/describe/solana): hostile transactions (random bytes;
 * cuts, flips and splices of real ones; well-formed ones with too many accounts, bad lengths, out-of-range indexes,
 * unknown programs, and random data and accounts for the System, Token, Token-2022, ATA, Compute Budget and Memo
 * programs), random stored contexts, random chain answers to `prepare…`, and random messages. Invariant: a view
 * (every row and warning a string) or a SolanaDecodeError, quickly; never another error. Seeded and bounded
 * (FUZZ_SEED / FUZZ_RUNS to explore).
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { base58Decode } from '../../src/methods/solana/base58.ts'
import { type TestTransaction, writeTransaction } from '../../src/methods/solana/wire-transaction.test-support.ts'
import {
  decodeSolanaTransaction,
  describeSolanaMessage,
  describeSolanaTransaction,
  prepareSolanaTransactionContext,
  SolanaDecodeError,
} from '../../src/wallet/describe/solana/index.ts'
import { PROGRAM_NAMES } from '../../src/wallet/describe/solana/programs.ts'
import { FUZZ } from './arbitraries.ts'

/** Per input: decoding and describing a transaction of at most 1232 bytes is far below this even on a loaded box. */
const MAX_MS = 250
const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n })
const PROGRAM_KEYS = Object.keys(PROGRAM_NAMES).map((p) => base58Decode(p, 32)!)
const env = { cluster: 'solana:fuzz', network: 'fuzz', accounts: [{ address: '1'.repeat(32), index: 0, label: 'x' }] }

/** Data a program client may half-understand: a likely discriminator, then random bytes of any length. */
const data = fc
  .tuple(
    fc.constantFrom(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 15, 17, 24, 25, 26, 27, 40, 255),
    fc.uint8Array({ maxLength: 90 }),
  )
  .map(([d, rest]) => Uint8Array.from([d, ...rest]))

/** Lookup-table indexes: a few mostly, sometimes enough to pass 256 accounts in all. */
const indexes = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.nat(255), { maxLength: 6 }) },
  { weight: 1, arbitrary: fc.array(fc.nat(255), { maxLength: 140 }) },
)

/** Well-formed in layout (the reader gets to the rules), hostile in content: counts, indexes and data at random. */
const transaction: fc.Arbitrary<TestTransaction> = fc
  .record({
    version: fc.constantFrom('legacy' as const, 0 as const),
    own: fc.uniqueArray(bytes(32), { minLength: 1, maxLength: 12, selector: (k) => Buffer.from(k).toString('hex') }),
    programs: fc.subarray(PROGRAM_KEYS.concat([new Uint8Array(32).fill(7)]), { minLength: 1 }),
    // Mostly a header that holds (so the instructions get decoded), sometimes any bytes.
    header: fc.oneof(
      { weight: 4, arbitrary: fc.tuple(fc.integer({ min: 1, max: 3 }), fc.constant(0), fc.nat(2)) },
      { weight: 1, arbitrary: fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)) },
    ),
    blockhash: bytes(32),
    instructions: fc.array(
      fc.record({ program: fc.nat(300), accounts: fc.array(fc.nat(300), { maxLength: 8 }), data }),
      { maxLength: 5 },
    ),
    lookups: fc.array(
      fc.record({
        table: bytes(32),
        writable: indexes,
        readonly: indexes,
      }),
      { maxLength: 3 },
    ),
    extraSignatures: fc.oneof(
      { weight: 6, arbitrary: fc.constant(0) },
      { weight: 1, arbitrary: fc.constantFrom(-1, 1) },
    ),
  })
  .map((t) => {
    const accountKeys = [...t.own, ...t.programs]
    const n = accountKeys.length
    const signers = Math.min(t.header[0], n)
    const readonlyUnsigned = t.header[1] === 0 ? Math.min(t.header[2], n - signers) : t.header[2]
    // Mostly point at real accounts (so the program clients run), sometimes past the end (bad indexes).
    const index = (i: number) => (i < 280 ? i % n : i)
    return {
      signatures: Array.from({ length: Math.max(0, signers + t.extraSignatures) }, () => new Uint8Array(64)),
      version: t.version,
      header: [signers, t.header[1], readonlyUnsigned] as [number, number, number],
      accountKeys,
      blockhash: t.blockhash,
      instructions: t.instructions.map((ix) => ({
        program: ix.program < 280 ? t.own.length + (ix.program % t.programs.length) : ix.program % 256,
        accounts: ix.accounts.map(index),
        data: ix.data,
      })),
      lookups: t.version === 0 ? t.lookups : [],
    }
  })

/** Decoding and describing: a view or a SolanaDecodeError, and quickly. */
function checkTransaction(input: Uint8Array): void {
  const started = performance.now()
  let decoded = false
  try {
    decodeSolanaTransaction(input)
    decoded = true
  } catch (e) {
    if (!(e instanceof SolanaDecodeError)) throw e
    expect(e.message.length).toBeGreaterThan(10)
  }
  const view = describeSolanaTransaction(Buffer.from(input).toString('base64'), undefined, env)
  expect(view.rows.every((r) => typeof r.label === 'string' && typeof r.value === 'string')).toBe(true)
  expect(view.warnings.every((w) => typeof w === 'string')).toBe(true)
  expect(view.signers.length > 0).toBe(decoded)
  expect(performance.now() - started).toBeLessThan(MAX_MS)
}

describe('fuzz: the wallet decoding Solana transactions', () => {
  it('a view or a SolanaDecodeError for well-formed layouts with hostile counts, indexes, programs and data', () => {
    fc.assert(
      fc.property(transaction, (t) => {
        const b = writeTransaction(t)
        if (b.length <= 1232) checkTransaction(b)
        else expect(() => decodeSolanaTransaction(b)).toThrow(SolanaDecodeError)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(400) },
    )
  })

  it('a view or a SolanaDecodeError for random bytes and for cuts, flips and splices of transactions', () => {
    const mutated = fc
      .tuple(transaction, fc.nat(), fc.nat(255), fc.uint8Array({ maxLength: 8 }))
      .map(([t, at, flip, splice]) => {
        const b = writeTransaction(t).slice(0, 1232)
        const i = at % (b.length + 1)
        const flipped = b.slice()
        if (flipped.length > 0) flipped[i % flipped.length]! ^= flip
        return [b.slice(0, i), flipped, Uint8Array.from([...b.subarray(0, i), ...splice, ...b.subarray(i)])]
      })
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 1400 }).map((b) => [b]),
          mutated,
        ),
        (inputs) => {
          for (const b of inputs) checkTransaction(b)
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(600) },
    )
  })

  it('describing never throws, whatever the stored context holds', () => {
    const base = writeTransaction({
      signatures: [new Uint8Array(64)],
      version: 0,
      header: [1, 0, 1],
      accountKeys: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2), PROGRAM_KEYS[2]!],
      blockhash: new Uint8Array(32).fill(3),
      instructions: [{ program: 2, accounts: [0, 1, 3], data: Uint8Array.of(3, 1, 0, 0, 0, 0, 0, 0, 0) }],
      lookups: [{ table: new Uint8Array(32).fill(4), writable: [0], readonly: [] }],
    })
    const tx = Buffer.from(base).toString('base64')
    const context = fc.oneof(
      fc.anything(),
      fc.record(
        {
          lookupTables: fc.anything(),
          tokenAccounts: fc.dictionary(fc.string(), fc.anything()),
          mints: fc.anything(),
          balances: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.bigInt().map(String))),
          blockhashValid: fc.anything(),
          simulation: fc.record(
            { ok: fc.anything(), logs: fc.anything(), balancesAfter: fc.anything(), error: fc.anything() },
            { requiredKeys: [] },
          ),
          unavailable: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    )
    fc.assert(
      fc.property(context, (ctx) => {
        const view = describeSolanaTransaction(tx, ctx as never, env)
        expect(view.signers).toHaveLength(1)
        expect(view.rows.every((r) => typeof r.value === 'string')).toBe(true)
        expect(view.warnings.every((w) => typeof w === 'string')).toBe(true)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(500) },
    )
  })

  it('prepare never throws on any chain answer and returns a context that survives JSON', async () => {
    const tx = Buffer.from(
      writeTransaction({
        signatures: [new Uint8Array(64)],
        version: 0,
        header: [1, 0, 1],
        accountKeys: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2), PROGRAM_KEYS[2]!],
        blockhash: new Uint8Array(32).fill(3),
        instructions: [{ program: 2, accounts: [0, 1, 3], data: Uint8Array.of(3, 1, 0, 0, 0, 0, 0, 0, 0) }],
        lookups: [{ table: new Uint8Array(32).fill(4), writable: [0], readonly: [] }],
      }),
    ).toString('base64')
    const answer = fc.oneof(
      fc.anything(),
      fc.record({ value: fc.array(fc.anything(), { maxLength: 4 }) }),
      fc.record({
        value: fc.record({
          err: fc.anything(),
          logs: fc.anything(),
          accounts: fc.anything(),
          unitsConsumed: fc.anything(),
        }),
      }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.oneof(answer, fc.constant(new Error('down'))), { minLength: 4, maxLength: 4 }),
        async (answers) => {
          let i = 0
          const reads = {
            rpc: async () => {
              const a = answers[i++ % answers.length]
              if (a instanceof Error) throw a
              return a
            },
          }
          const ctx = await prepareSolanaTransactionContext(tx, reads)
          const stored = JSON.parse(JSON.stringify(ctx))
          const view = describeSolanaTransaction(tx, stored, env)
          expect(view.warnings.every((w) => typeof w === 'string')).toBe(true)
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(300) },
    )
  })

  it('messages: any text gives a view (text, or hex with a warning), never a throw', () => {
    const message = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.uint8Array({ maxLength: 600 }).map((b) => Buffer.from(b).toString('base64')),
      fc.string({ unit: 'grapheme', maxLength: 100 }).map((s) => Buffer.from(s).toString('base64')),
      transaction.map((t) =>
        Buffer.from(writeTransaction(t).subarray(1 + 64 * t.signatures.length)).toString('base64'),
      ),
    )
    fc.assert(
      fc.property(message, (m) => {
        const view = describeSolanaMessage(m)
        expect(typeof view.hex).toBe('string')
        if (view.text === undefined) expect(view.warnings.length).toBeGreaterThan(0)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(1000) },
    )
  })
})
