/** Number formatting for the console: wei as ETH/gwei with a bounded number of digits, never in scientific notation. */
import { formatEther, formatGwei } from 'viem'

/** At least 2^128: no real token supply comes near it, so an allowance this large means "unlimited". */
export const UNLIMITED_THRESHOLD = 1n << 128n

const trim = (s: string, digits: number): string => {
  const [int, frac = ''] = s.split('.')
  const f = frac.slice(0, digits).replace(/0+$/, '')
  return f ? `${int}.${f}` : int!
}

export const toBigIntOrUndefined = (v: unknown): bigint | undefined => {
  try {
    return typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint' ? BigInt(v) : undefined
  } catch {
    return undefined
  }
}

/** `1.5 ETH`; tiny non-zero amounts keep up to 18 digits so they never read as 0. */
export function eth(wei: bigint, symbol = 'ETH'): string {
  const s = formatEther(wei)
  return `${wei !== 0n && wei < 10n ** 12n ? s : trim(s, 6)} ${symbol}`
}

export function gwei(wei: bigint): string {
  return `${trim(formatGwei(wei), 4)} gwei`
}

/** Integer with thousands separators (token units whose decimals are unknown). */
export function grouped(n: bigint): string {
  return n.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
