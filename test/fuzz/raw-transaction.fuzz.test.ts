/**
 * Fuzz suite, the `to` of a raw transaction (src/methods/raw-transaction.ts, key security's address rules for
 * eth_sendRawTransaction) against viem's `parseTransaction`, which it replaced on the gateway path: for every
 * transaction viem serializes (each type, signed or not, EIP-4844 with and without its blobs, any `to` or none) the
 * same `to`; for bytes viem reads after a random cut, flip or splice, the same `to` too; and never a throw.
 * Seeded and bounded (FUZZ_SEED / FUZZ_RUNS to explore).
 */
import fc from 'fast-check'
import { type Hex, parseTransaction, serializeTransaction, type TransactionSerializable } from 'viem'
import { describe, expect, it } from 'vitest'
import { transactionTo } from '../../src/methods/raw-transaction.ts'
import { FUZZ } from './arbitraries.ts'

const hex = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => `0x${Buffer.from(b).toString('hex')}` as Hex)
const quantity = fc.bigInt({ min: 0n, max: 2n ** 64n })
const address = hex(20)
// Legacy transactions carry `v` (27 or 28 here), typed ones `yParity`.
const signature = fc
  .record({ r: hex(32), s: hex(32), yParity: fc.constantFrom(0, 1) })
  .map((sig) => ({ ...sig, v: 27n + BigInt(sig.yParity) }))

/** What viem can serialize: the fields each type needs, `to` present or not. */
const transaction: fc.Arbitrary<TransactionSerializable> = fc
  .oneof(
    fc.record({ type: fc.constant('legacy' as const), nonce: fc.nat(1000), gasPrice: quantity, gas: quantity }),
    fc.record({ type: fc.constant('eip2930' as const), chainId: fc.integer({ min: 1, max: 1e6 }), gasPrice: quantity }),
    fc.record({
      type: fc.constant('eip1559' as const),
      chainId: fc.integer({ min: 1, max: 1e6 }),
      maxFeePerGas: quantity,
      data: fc.option(hex(4), { nil: undefined }),
    }),
    fc.record({
      type: fc.constant('eip7702' as const),
      chainId: fc.integer({ min: 1, max: 1e6 }),
      authorizationList: fc.constant([]),
    }),
  )
  .chain((tx) =>
    fc.record({ to: fc.option(address, { nil: undefined }) }).map((t) => ({ ...tx, ...t }) as TransactionSerializable),
  )

type Rlp = string | Rlp[]

/** viem's answer: the `to` (lowercase) or undefined, or 'throws'. */
function viemTo(raw: string): string | undefined | 'throws' {
  try {
    return parseTransaction(raw as Hex).to?.toLowerCase()
  } catch {
    return 'throws'
  }
}

describe('fuzz: the to of a raw transaction', () => {
  it('is the one viem reads, for every type, signed or not', () => {
    fc.assert(
      fc.property(transaction, fc.option(signature, { nil: undefined }), (tx, sig) => {
        const raw = sig ? serializeTransaction(tx, sig) : serializeTransaction(tx)
        const expected = viemTo(raw)
        expect(expected).not.toBe('throws')
        expect(transactionTo(raw), raw).toBe(expected)
      }),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(1000) },
    )
  })

  it('EIP-4844, bare and in its network form with blobs, is read as viem reads it', () => {
    // A blob transaction by hand (viem serializes one only with real KZG blobs): type 3 and its fields, then the
    // network form wrapping it with blobs, commitments and proofs.
    const rlp = (items: Rlp[]): string => {
      const enc = (x: Rlp): Buffer => {
        if (Array.isArray(x)) {
          const body = Buffer.concat(x.map(enc))
          return Buffer.concat([lengthPrefix(body.length, 0xc0), body])
        }
        const b = Buffer.from(x.slice(2), 'hex')
        if (b.length === 1 && b[0]! < 0x80) return b
        return Buffer.concat([lengthPrefix(b.length, 0x80), b])
      }
      return enc(items).toString('hex')
    }
    const lengthPrefix = (n: number, base: number) => {
      if (n <= 55) return Buffer.from([base + n])
      const len = Buffer.from(n.toString(16).padStart(n.toString(16).length + (n.toString(16).length % 2), '0'), 'hex')
      return Buffer.from([base + 55 + len.length, ...len])
    }
    const to = `0x${'ab'.repeat(20)}`
    const hash = `0x01${'22'.repeat(31)}`
    const body = ['0x01', '0x', '0x01', '0x02', '0x5208', to, '0x', '0x', [], '0x01', [hash]]
    const signed = [...body, '0x01', `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`]
    for (const fields of [body, signed]) {
      const bare = `0x03${rlp(fields)}`
      const [blob, commitment] = [`0x${'00'.repeat(64)}`, `0x${'c0'.repeat(48)}`]
      const wrapped = `0x03${rlp([fields, [blob], [commitment], [commitment]])}`
      for (const raw of [bare, wrapped]) {
        expect(viemTo(raw)).toBe(to)
        expect(transactionTo(raw)).toBe(to)
      }
    }
  })

  it('after a cut, a flipped byte or spliced bytes: the same to whenever viem still reads one, and never a throw', () => {
    let agreed = 0
    fc.assert(
      fc.property(
        transaction,
        fc.option(signature, { nil: undefined }),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        fc.constantFrom('cut', 'flip', 'splice'),
        (tx, sig, at, byte, how) => {
          const b = Buffer.from((sig ? serializeTransaction(tx, sig) : serializeTransaction(tx)).slice(2), 'hex')
          const i = at % b.length
          const mutated =
            how === 'cut'
              ? b.subarray(0, i)
              : how === 'flip'
                ? Buffer.concat([b.subarray(0, i), Buffer.from([byte]), b.subarray(i + 1)])
                : Buffer.concat([b.subarray(0, i), Buffer.from([byte, byte]), b.subarray(i)])
          const raw = `0x${mutated.toString('hex')}`
          const ours = transactionTo(raw)
          const theirs = viemTo(raw)
          if (theirs !== 'throws') {
            agreed++
            expect(ours, raw).toBe(theirs)
          }
        },
      ),
      { seed: FUZZ.seed, numRuns: FUZZ.runs(3000) },
    )
    expect(agreed).toBeGreaterThan(0)
  })

  it('reads nothing from what is not a transaction', () => {
    for (const raw of [undefined, null, 42, '', '0x', '0x0', '0xzz', '0x00', '0x05c0', '0xc0', '0x02c0', `0x${'f8'}`])
      expect(transactionTo(raw)).toBeUndefined()
  })
})
