/** The start-up chain id check's two pure parts: reading an `eth_chainId` answer and saying what is wrong. */

/** The chain id in an `eth_chainId` answer (`{"result":"0x…"}`), or undefined when it holds none. */
export function chainIdOf(body: Buffer): number | undefined {
  try {
    const result = (JSON.parse(body.toString()) as { result?: unknown }).result
    if (typeof result !== 'string' || !/^0x[0-9a-fA-F]{1,16}$/.test(result)) return undefined
    const n = Number.parseInt(result, 16)
    return Number.isSafeInteger(n) ? n : undefined
  } catch {
    return undefined
  }
}

const both = (id: number) => `${id} (0x${id.toString(16)})`

/** Names the node (its redacted URL) and both ids, in decimal and hex. */
export function mismatchText(network: string, upstream: string, actual: number, expected: number): string {
  return `network ${network}: upstream ${upstream} answers chain id ${both(actual)}, but the network is declared with chain id ${both(expected)}`
}
