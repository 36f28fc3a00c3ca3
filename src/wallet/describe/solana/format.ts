/** Amounts and bytes as the Solana approval shows them: lamports as SOL, token units with their mint's decimals. */
import { formatUnits } from 'viem'
import { grouped } from '../format.ts'

export const LAMPORTS_PER_SOL_DECIMALS = 9
/** Solana's base fee: 5,000 lamports per signature (https://solana.com/docs/core/fees). */
export const LAMPORTS_PER_SIGNATURE = 5000n
/** u64::MAX: an SPL approval of this amount never runs out. */
export const U64_MAX = (1n << 64n) - 1n
/** How many bytes of undecoded instruction data the view shows. */
export const MAX_DATA_SHOWN = 64

/** `0.5 SOL`; exact (9 decimals at most), never rounded to zero. */
export function sol(lamports: bigint): string {
  return `${formatUnits(lamports, LAMPORTS_PER_SOL_DECIMALS)} SOL`
}

/** A signed change: `+0.5 SOL`, `-0.000005 SOL`. */
export function signedSol(delta: bigint): string {
  return delta < 0n ? `-${sol(-delta)}` : `+${sol(delta)}`
}

/** Token units: `1.5` with the mint's decimals, else `1,500,000 base units (decimals unknown)`. */
export function tokenAmount(raw: bigint, decimals: number | undefined): string {
  if (decimals === undefined || !Number.isInteger(decimals) || decimals < 0 || decimals > 255)
    return `${grouped(raw)} base units (decimals unknown)`
  return formatUnits(raw, decimals)
}

export function signedToken(delta: bigint, decimals: number | undefined): string {
  return delta < 0n ? `-${tokenAmount(-delta, decimals)}` : `+${tokenAmount(delta, decimals)}`
}

/** `0x0102…` of at most MAX_DATA_SHOWN bytes, saying how many were left out. */
export function hexPreview(bytes: Uint8Array): string {
  const shown = Buffer.from(bytes.subarray(0, MAX_DATA_SHOWN)).toString('hex')
  return bytes.length > MAX_DATA_SHOWN ? `0x${shown}… (${bytes.length - MAX_DATA_SHOWN} more bytes)` : `0x${shown}`
}

/** Untrusted text for one line: control characters escaped, at most `max` characters. */
export function oneLine(text: string, max = 200): string {
  const escaped = JSON.stringify(text).slice(1, -1)
  return escaped.length > max ? `${escaped.slice(0, max)}…` : escaped
}
