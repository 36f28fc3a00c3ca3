/**
 * Hex strings as JSON-RPC defines them (https://ethereum.org/en/developers/docs/apis/json-rpc/#hex-encoding). Off the
 * measured per-request path only: the hot-path checks (cache rules, the block and log validators) keep their own
 * compiled regular expressions. Written here rather than imported from viem/utils, whose index costs every gateway
 * process ~3.5 MiB of heap (docs/benchmarks.md, "Memory, third pass"); same semantics as viem's strict functions.
 */
import type { Hex } from 'viem'

const HEX = /^0x[0-9a-fA-F]*$/

/** `0x` and hex digits only (none at all is allowed), as viem's strict `isHex`. */
export function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && HEX.test(value)
}

/** The unsigned value of a hex string with at least one digit; throws on `0x` alone, as viem's does. */
export function hexToBigInt(hex: Hex): bigint {
  return BigInt(hex)
}

/** As hexToBigInt, and throws when the value is beyond Number.MAX_SAFE_INTEGER, as viem's does. */
export function hexToNumber(hex: Hex): number {
  const value = Number(BigInt(hex))
  if (!Number.isSafeInteger(value)) throw new RangeError(`${hex} is larger than ${Number.MAX_SAFE_INTEGER}`)
  return value
}

/** A QUANTITY: `0x` and at least one digit, no leading zeros (`0x0` is zero); any case. */
export function isQuantity(value: unknown): value is Hex {
  return isHex(value) && value.length > 2 && (value.length === 3 || value[2] !== '0')
}

/** DATA: `0x` and whole bytes (two digits each), at least one. */
export function isHexBytes(value: unknown): value is Hex {
  return isHex(value) && value.length > 2 && value.length % 2 === 0
}
