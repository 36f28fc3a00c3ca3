import fc from 'fast-check'
import { hexToBigInt as viemBigInt, hexToNumber as viemNumber, isHex as viemIsHex } from 'viem'
import { describe, expect, it, test } from 'vitest'
import { hexToBigInt, hexToNumber, isHex, isHexBytes, isQuantity } from './hex.ts'

test('a quantity has digits and no leading zero; case is free', () => {
  for (const ok of ['0x0', '0x1', '0x1b4', '0xABCdef', '0x10']) expect(isQuantity(ok), ok).toBe(true)
  for (const bad of ['0x', '0x00', '0x01', '1b4', '0xg', 'latest', '', 1, null, undefined, ' 0x1', '0X1'])
    expect(isQuantity(bad), String(bad)).toBe(false)
})

test('bytes are whole pairs of hex digits after 0x', () => {
  for (const ok of ['0x00', '0xdeadBEEF', '0x0102']) expect(isHexBytes(ok), ok).toBe(true)
  for (const bad of ['0x', '0x0', '0x123', 'dead', '0xzz', 7]) expect(isHexBytes(bad), String(bad)).toBe(false)
})

/** viem's result, or 'throws'. */
const outcome = <T>(f: () => T): T | 'throws' => {
  try {
    return f()
  } catch {
    return 'throws'
  }
}

describe('hex helpers: the same answers as the viem functions they replace', () => {
  const text = fc.oneof(
    fc.string({ maxLength: 8 }),
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFxg '), maxLength: 24 }).map((s) => `0x${s}`),
    fc.bigInt({ min: 0n, max: 2n ** 80n }).map((n) => `0x${n.toString(16)}`),
  )
  it('isHex, hexToBigInt, hexToNumber', () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(isHex(s)).toBe(viemIsHex(s))
        if (!isHex(s)) return
        expect(outcome(() => hexToBigInt(s))).toEqual(outcome(() => viemBigInt(s)))
        expect(outcome(() => hexToNumber(s))).toEqual(outcome(() => viemNumber(s)))
      }),
      { seed: 20261127, numRuns: 2000 },
    )
    for (const v of [undefined, null, 1, {}, '', '0x', '0X1', '0x00', `0x${'f'.repeat(14)}`, `0x${'f'.repeat(13)}`])
      expect(isHex(v)).toBe(viemIsHex(v))
    expect(hexToNumber('0x1fffffffffffff')).toBe(Number.MAX_SAFE_INTEGER)
    expect(() => hexToNumber('0x20000000000000')).toThrow(RangeError)
  })
})
