/**
 * The network registry: name ↔ chain ID ↔ hostnames, and how a request picks its network (Host header, or the
 * path form `/networks/<name>/...` for clients that cannot set Host).
 */
import type { NetworkConfig } from '../config/schema.ts'
import { servedMethods } from '../methods/served.ts'
import type { ChainFamily } from '../shared/chain-family.ts'
import { defaultHostname } from '../shared/rpc-paths.ts'

export interface Network {
  name: string
  family: ChainFamily
  /** EVM networks: the chain id (eth_chainId); undefined for other families. */
  chainId: number | undefined
  /**
   * The CAIP-2 id (`eip155:1`, `solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp`): a Solana network's is taken from its nodes
   * at start when the config names none (undefined until then).
   */
  chain: string | undefined
  hosts: string[]
  /** The JSON-RPC methods this network serves (src/methods/served.ts), built once. */
  methods: ReadonlySet<string>
}

export interface NetworkRegistry {
  readonly all: Network[]
  byName(name: string): Network | undefined
  /** An EVM network by its chain id. */
  byChainId(chainId: number): Network | undefined
  /** A network by its CAIP-2 id. */
  byChain(caip2: string): Network | undefined
  /** Host header → network; matches `host:port` first, then the bare host. */
  byHost(host: string | undefined): Network | undefined
  /** A sentence naming the known networks with the path form of the transport asked on, for 404 answers. */
  describe(transport?: 'http' | 'ws'): string
}

/** A registry whose networks can be replaced at once (`chaingate reload`): readers see the old or the new set. */
export interface SwappableNetworkRegistry extends NetworkRegistry {
  swap(configs: NetworkConfig[]): void
}

export function createSwappableNetworkRegistry(configs: NetworkConfig[]): SwappableNetworkRegistry {
  let current = createNetworkRegistry(configs)
  return {
    get all() {
      return current.all
    },
    byName: (name) => current.byName(name),
    byChainId: (id) => current.byChainId(id),
    byChain: (caip2) => current.byChain(caip2),
    byHost: (host) => current.byHost(host),
    describe: (transport) => current.describe(transport),
    swap(next) {
      current = createNetworkRegistry(next)
    },
  }
}

export function createNetworkRegistry(configs: NetworkConfig[]): NetworkRegistry {
  const all: Network[] = configs.map((c) => ({
    name: c.name,
    family: c.family,
    chainId: c.chainId,
    chain: c.chainId !== undefined ? `eip155:${c.chainId}` : c.chain,
    hosts: c.hosts ?? [defaultHostname(c.name)],
    // Devnet methods: on by default for an embedded chain only (an external node is someone else's to rewind).
    methods: servedMethods(c.methods, c.devMethods ?? c.embedded !== undefined, c.family),
  }))
  const names = new Map(all.map((n) => [n.name, n]))
  const chainIds = new Map(all.filter((n) => n.chainId !== undefined).map((n) => [n.chainId!, n]))
  const chains = new Map(all.filter((n) => n.chain !== undefined).map((n) => [n.chain!, n]))
  const hosts = new Map<string, Network>()
  for (const n of all) for (const h of n.hosts) hosts.set(h, n)
  return {
    all,
    byName: (name) => names.get(name),
    byChainId: (id) => chainIds.get(id),
    byChain: (caip2) => chains.get(caip2),
    byHost(host) {
      if (!host) return undefined
      const asSent = hosts.get(host) // the common case, without building a lowercased copy
      if (asSent) return asSent
      const h = host.toLowerCase()
      const exact = hosts.get(h)
      if (exact) return exact
      const colon = h.lastIndexOf(':')
      return colon > 0 && !h.endsWith(']') ? hosts.get(h.slice(0, colon)) : undefined
    },
    describe(transport = 'http') {
      const form = transport === 'ws' ? 'ws/v3' : 'v3'
      return all.map((n) => `${n.name} (host ${n.hosts.join(', ')}; path /networks/${n.name}/${form}/<key>)`).join('; ')
    },
  }
}
