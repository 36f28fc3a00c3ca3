/** A Network as the registry builds it, for unit tests of the pipeline's steps. */
import type { Network } from './registry.ts'

export const evmNetwork = (name: string, chainId: number, methods: ReadonlySet<string> = new Set()): Network => ({
  name,
  family: 'evm',
  refusesHeavyScans: false,
  chainId,
  chain: `eip155:${chainId}`,
  hosts: [],
  methods,
})
