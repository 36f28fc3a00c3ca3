/**
 * Which addresses a call touches, for the contract-address allowlist (I§4.3 "Contract addresses"): the `to` of
 * eth_call / eth_estimateGas, the `address` filter of eth_getLogs (a string or an array), and the first param of
 * eth_getBalance, eth_getCode, eth_getStorageAt, eth_getTransactionCount. Other methods are not address-checked.
 */

/** Methods the address allowlist applies to. */
export const ADDRESS_CHECKED_METHODS: ReadonlySet<string> = new Set([
  'eth_call',
  'eth_estimateGas',
  'eth_getLogs',
  'eth_getBalance',
  'eth_getCode',
  'eth_getStorageAt',
  'eth_getTransactionCount',
])

const ADDRESS = /^0x[0-9a-fA-F]{40}$/

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && ADDRESS.test(value)
}

/**
 * The lowercase addresses a call queries, or null when the method is not address-checked.
 * An empty array means the call queries no specific address (eth_getLogs without an address filter, eth_call
 * without `to`), or its params could not be read: such calls query addresses "that aren't in the allowlist" and
 * are rejected when the list is set.
 */
export function touchedAddresses(method: string, params: unknown): string[] | null {
  if (!ADDRESS_CHECKED_METHODS.has(method)) return null
  const first = Array.isArray(params) ? params[0] : undefined
  switch (method) {
    case 'eth_call':
    case 'eth_estimateGas': {
      const to = isObject(first) ? first.to : undefined
      return isAddress(to) ? [to.toLowerCase()] : []
    }
    case 'eth_getLogs': {
      const address = isObject(first) ? first.address : undefined
      if (isAddress(address)) return [address.toLowerCase()]
      if (Array.isArray(address) && address.length > 0 && address.every(isAddress))
        return address.map((a) => a.toLowerCase())
      return []
    }
    default:
      return isAddress(first) ? [first.toLowerCase()] : []
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
