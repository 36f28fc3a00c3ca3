/**
 * anvil_mine / hardhat_mine `[blocks?, interval?]` and evm_mine / *_mine_detailed `[{timestamp?, blocks?}?]`
 * (devnet methods, docs/config.md `devMethods`): one call can ask anvil to mine any number of blocks, and a huge
 * count ties the embedded chain up for every key. The count is capped here.
 */
import { errors } from '../errors/index.ts'
import { hexToBigInt, isQuantity } from '../shared/hex.ts'

/** More blocks than any test needs in one call; anvil mines about this many in a second. */
export const MAX_MINED_BLOCKS = 10_000

/**
 * Blocks a valid mining call asks for (its price units): anvil_mine / hardhat_mine `[blocks]` (default 1), evm_mine
 * `[{ blocks }]` (a bare evm_mine argument is a timestamp: 1 block); at least 1, at most MAX_MINED_BLOCKS.
 */
export function minedBlocks(params: unknown, method: string): number {
  const first: unknown = Array.isArray(params) ? params[0] : undefined
  const blocks = first !== null && typeof first === 'object' ? (first as { blocks?: unknown }).blocks : first
  if (first === blocks && method.startsWith('evm_')) return 1
  const n = typeof blocks === 'number' ? blocks : typeof blocks === 'string' ? Number.parseInt(blocks, 16) : Number.NaN
  return Number.isFinite(n) ? Math.min(Math.max(1, n), MAX_MINED_BLOCKS) : 1
}

export function validateMine(params: unknown, method: string) {
  if (params === undefined) return undefined
  if (!Array.isArray(params)) return errors.invalidParams(`${method} takes [blocks, interval], both optional`)
  const first: unknown = params[0]
  const blocks = first !== null && typeof first === 'object' ? (first as { blocks?: unknown }).blocks : first
  // evm_mine's single argument may also be a bare timestamp, not a count.
  if (blocks === undefined || blocks === null || (first === blocks && method.startsWith('evm_'))) return undefined
  const n =
    typeof blocks === 'number' && Number.isSafeInteger(blocks)
      ? blocks
      : isQuantity(blocks)
        ? Number(hexToBigInt(blocks)) // beyond 2^53: still refused below, by its size
        : Number.NaN
  if (!(n >= 0)) return errors.invalidParams(`parameter 1 (blocks) of ${method} must be a hex quantity such as "0xa"`)
  if (n > MAX_MINED_BLOCKS)
    return errors.invalidParams(`${method} mines at most ${MAX_MINED_BLOCKS} blocks per call (asked for ${n})`)
  return undefined
}
