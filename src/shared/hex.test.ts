import { expect, test } from 'vitest'
import { isHexBytes, isQuantity } from './hex.ts'

test('a quantity has digits and no leading zero; case is free', () => {
  for (const ok of ['0x0', '0x1', '0x1b4', '0xABCdef', '0x10']) expect(isQuantity(ok), ok).toBe(true)
  for (const bad of ['0x', '0x00', '0x01', '1b4', '0xg', 'latest', '', 1, null, undefined, ' 0x1', '0X1'])
    expect(isQuantity(bad), String(bad)).toBe(false)
})

test('bytes are whole pairs of hex digits after 0x', () => {
  for (const ok of ['0x00', '0xdeadBEEF', '0x0102']) expect(isHexBytes(ok), ok).toBe(true)
  for (const bad of ['0x', '0x0', '0x123', 'dead', '0xzz', 7]) expect(isHexBytes(bad), String(bad)).toBe(false)
})
