/**
 * Fuzz suite, Solana's wire transactions and base58 (src/methods/solana/wire-transaction.ts, base58.ts; the address
 * rules for sendTransaction/simulateTransaction and their params checks): for random bytes, random cuts, flips and
 * splices of real transactions, and random text in any encoding, the reader never throws and answers null or a
 * transaction whose keys are 32 bytes and lie within the input; every transaction the reference writer builds (legacy
 * or v0, any counts) reads back the same; base58 agrees with @scure/base both ways. Seeded and bounded
 * (FUZZ_SEED / FUZZ_RUNS to explore).
 */
import { base58 } from '@scure/base'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { touchedAddresses } from '../../src/keys/security/addresses.ts'
import { decide } from '../../src/methods/policy.ts'
import { defaultServed } from '../../src/methods/served.ts'
import { base58Decode, base58Encode, isPubkey } from '../../src/methods/solana/base58.ts'
import {
  MAX_TRANSACTION_BYTES,
  parseWireTransaction,
  readWireTransaction,
} from '../../src/methods/solana/wire-transaction.ts'
import { type TestTransaction, writeTransaction } from '../../src/methods/solana/wire-transaction.test-support.ts'
import { FUZZ } from './arbitraries.ts'

const bytes = (n: number) => fc.uint8Array({ minLength: n, maxLength: n })
const small = fc.array(fc.nat(255), { maxLength: 6 })

const transaction: fc.Arbitrary<TestTransaction> = fc.record({
  signatures: fc.array(bytes(64), { maxLength: 3 }),
  version: fc.constantFrom('legacy' as const, 0 as const),
  header: fc.tuple(fc.nat(127), fc.nat(255), fc.nat(255)),
  accountKeys: fc.array(bytes(32), { maxLength: 140 }),
  blockhash: bytes(32),
  instructions: fc.array(
    fc.record({ program: fc.nat(255), accounts: small, data: fc.uint8Array({ maxLength: 200 }) }),
    { maxLength: 4 },
  ),
  lookups: fc.array(fc.record({ table: bytes(32), writable: small, readonly: small }), { maxLength: 3 }),
})

/** The reader's invariants on any bytes: null, or keys of 32 bytes that fit in the input. */
function wellFormed(input: Uint8Array): void {
  const tx = parseWireTransaction(input)
  if (tx === null) return
  expect(tx.accountKeys.every((k) => k.length === 32)).toBe(true)
  expect(tx.accountKeys.length * 32 + tx.signatures * 64).toBeLessThanOrEqual(input.length)
  expect(tx.version === 'legacy' || tx.version === 0).toBe(true)
  if (tx.version === 'legacy') expect(tx.lookups).toBe(0)
}

describe('fuzz: Solana wire transactions', () => {
  it('read back what the reference writer builds, legacy and v0', () => {
    fc.assert(
      fc.property(transaction, (t) => {
        const tx = parseWireTransaction(writeTransaction(t))!
        expect(tx).not.toBeNull()
        expect(tx.signatures).toBe(t.signatures.length)
        expect(tx.version).toBe(t.version)
        expect(tx.accountKeys).toEqual(t.accountKeys)
        expect(tx.lookups).toBe(t.version === 0 ? t.lookups.length : 0)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(500) },
    )
  })

  it('never throw on random bytes, nor on cuts, flips and splices of real transactions', () => {
    const mutated = fc
      .tuple(transaction, fc.nat(), fc.nat(255), fc.uint8Array({ maxLength: 8 }))
      .map(([t, at, flip, splice]) => {
        const b = writeTransaction(t)
        const i = at % (b.length + 1)
        const cut = b.slice(0, i)
        const flipped = b.slice()
        if (flipped.length > 0) flipped[i % flipped.length] ^= flip
        return [cut, flipped, Uint8Array.from([...b.subarray(0, i), ...splice, ...b.subarray(i)])]
      })
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 1400 }).map((b) => [b]),
          mutated,
        ),
        (inputs) => {
          for (const b of inputs) wellFormed(b)
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })

  it('the text reader, the params checks and the address readers never throw on any text or encoding', () => {
    const served = defaultServed('solana')
    const encoding = fc.constantFrom(undefined, null, 'base58', 'base64', 'jsonParsed', 7, {})
    const text = fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({
        unit: fc.constantFrom(...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'),
        maxLength: 1800,
      }),
      transaction.map((t) => Buffer.from(writeTransaction(t)).toString('base64')),
      transaction.map((t) => base58.encode(writeTransaction(t))),
      fc.anything(),
    )
    fc.assert(
      fc.property(text, encoding, fc.constantFrom('sendTransaction', 'simulateTransaction'), (t, e, method) => {
        const read = readWireTransaction(t, e)
        if (read.ok) expect(read.tx.accountKeys.length * 32).toBeLessThanOrEqual(MAX_TRANSACTION_BYTES)
        const params = [t, { encoding: e }]
        const d = decide({ id: 1, hasId: true, method, params } as never, 'http', served)
        expect(['forward', 'error']).toContain(d.kind)
        const touched = touchedAddresses(method, params)
        expect(Array.isArray(touched)).toBe(true)
        if (read.ok && read.tx.lookups === 0 && touched!.length > 0)
          expect(touched!.slice(0, read.tx.accountKeys.length)).toEqual(read.tx.accountKeys.map(base58Encode))
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(500) },
    )
  })
})

describe('fuzz: base58 against @scure/base', () => {
  it('encodes and decodes the same bytes, leading zeros included', () => {
    const data = fc
      .tuple(fc.nat(4), fc.uint8Array({ maxLength: 80 }))
      .map(([z, b]) => Uint8Array.from([...Array(z).fill(0), ...b]))
    fc.assert(
      fc.property(data, (b) => {
        const text = base58.encode(b)
        expect(base58Encode(b)).toBe(text)
        expect(base58Decode(text, b.length)).toEqual(b)
        if (b.length > 0) expect(base58Decode(text, b.length - 1)).toBeUndefined()
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })

  it('isPubkey: exactly the texts base58Decode reads as 32 bytes', () => {
    // Keys (leading zero bytes and large values included), then an edit: a digit more or less, a '1' in front, a
    // character outside the alphabet or outside ASCII.
    const key = fc
      .tuple(fc.nat(3), fc.uint8Array({ minLength: 29, maxLength: 34 }), fc.boolean())
      .map(([z, b, high]) => Uint8Array.from([...Array(z).fill(0), ...(high ? b.map(() => 0xff) : b)]))
      .map((b) => base58.encode(b))
    const edit = fc.constantFrom('', 'drop', 'one', 'z', '0', 'é', 'lead')
    fc.assert(
      fc.property(key, edit, (k, e) => {
        const t = e === 'drop' ? k.slice(1) : e === 'lead' ? `1${k}` : e === 'one' ? `${k}1` : e === '' ? k : `${k}${e}`
        const decoded = t.length >= 32 && t.length <= 44 ? base58Decode(t, 32) : undefined
        expect(isPubkey(t), t).toBe(decoded?.length === 32)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
    // Each side of every power of 256 near 32 bytes, after 0 to 2 zero bytes.
    for (let k = 28; k <= 34; k++)
      for (let z = 0; z <= 2; z++) {
        const power = Uint8Array.from([...Array(z).fill(0), 1, ...Array(k).fill(0)])
        const below = Uint8Array.from([...Array(z + 1).fill(0), ...Array(k).fill(0xff)])
        for (const t of [base58.encode(power), base58.encode(below)])
          expect(isPubkey(t), t).toBe(t.length >= 32 && t.length <= 44 && base58Decode(t, 32)?.length === 32)
      }
    expect(isPubkey('z'.repeat(44))).toBe(false)
    expect(isPubkey('1'.repeat(32))).toBe(true)
    expect(isPubkey(base58.encode(new Uint8Array(32).fill(0xff)))).toBe(true)
  })

  it('refuses exactly the texts @scure/base refuses', () => {
    const text = fc.string({ unit: fc.constantFrom(...'1239AZaz0OIl+/ é'), maxLength: 30 })
    fc.assert(
      fc.property(text, (t) => {
        let expected: Uint8Array | undefined
        try {
          expected = base58.decode(t)
        } catch {
          expected = undefined
        }
        expect(base58Decode(t, 64)).toEqual(expected !== undefined && expected.length <= 64 ? expected : undefined)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(2000) },
    )
  })
})
