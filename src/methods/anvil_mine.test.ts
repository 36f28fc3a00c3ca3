// Mining calls are priced by the blocks they ask (docs/config.md, `devMethods`).
import { describe, expect, it } from 'vitest'
import { MAX_MINED_BLOCKS, minedBlocks, validateMine } from './anvil_mine.ts'
import { ALL_METHODS, anyMethodsWhere } from './catalog.ts'

describe('mining price units', () => {
  it('anvil_mine / hardhat_mine: params[0] blocks (hex or number), default 1', () => {
    expect(minedBlocks(['0x2710'], 'anvil_mine')).toBe(10_000)
    expect(minedBlocks(['0xa', '0x1'], 'hardhat_mine')).toBe(10)
    expect(minedBlocks([3], 'anvil_mine')).toBe(3)
    expect(minedBlocks([], 'anvil_mine')).toBe(1)
    expect(minedBlocks(undefined, 'hardhat_mine')).toBe(1)
    expect(minedBlocks(['0x0'], 'anvil_mine')).toBe(1)
  })

  it('evm_mine: one block, or the blocks of its options object; a bare argument is a timestamp', () => {
    expect(minedBlocks([], 'evm_mine')).toBe(1)
    expect(minedBlocks(['0x65f00000'], 'evm_mine')).toBe(1)
    expect(minedBlocks([{ blocks: '0x5' }], 'evm_mine')).toBe(5)
    expect(minedBlocks([{ timestamp: 1 }], 'evm_mine_detailed')).toBe(1)
  })

  it('is capped (what validation lets through), never below 1 nor NaN', () => {
    expect(minedBlocks([`0x${(MAX_MINED_BLOCKS * 10).toString(16)}`], 'anvil_mine')).toBe(MAX_MINED_BLOCKS)
    for (const bad of [['zz'], [null], [{}], [-5], [Number.NaN], 'x'])
      expect(minedBlocks(bad, 'anvil_mine')).toBeGreaterThanOrEqual(1)
  })

  it('refuses a count beyond 2^53 as too many blocks, not with an internal error', () => {
    const huge = validateMine([`0x${'f'.repeat(20)}`], 'anvil_mine')
    expect(huge?.message).toMatch(/mines at most \d+ blocks per call/)
    expect(validateMine(['0x5'], 'anvil_mine')).toBeUndefined()
  })

  it('every mining method of the catalog has the rule; no other method does', () => {
    expect(anyMethodsWhere((e) => e.units !== undefined).sort()).toEqual(
      anyMethodsWhere((e) => e.mines === true).sort(),
    )
    expect(ALL_METHODS.get('anvil_mine')!.units).toBe(minedBlocks)
    expect(ALL_METHODS.get('eth_call')!.units).toBeUndefined()
  })
})
