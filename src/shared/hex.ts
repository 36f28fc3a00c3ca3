/**
 * Hex strings as JSON-RPC defines them (https://ethereum.org/en/developers/docs/apis/json-rpc/#hex-encoding), on
 * viem's `isHex`. Off the measured per-request path only: the hot-path checks (cache rules, the block and log
 * validators) keep their compiled regular expressions.
 */
import type { Hex } from 'viem'
import { isHex } from 'viem/utils'

/** A QUANTITY: `0x` and at least one digit, no leading zeros (`0x0` is zero); any case. */
export function isQuantity(value: unknown): value is Hex {
  return isHex(value) && value.length > 2 && (value.length === 3 || value[2] !== '0')
}

/** DATA: `0x` and whole bytes (two digits each), at least one. */
export function isHexBytes(value: unknown): value is Hex {
  return isHex(value) && value.length > 2 && value.length % 2 === 0
}
