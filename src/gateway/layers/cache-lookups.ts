/**
 * chaingate_cache_lookups_total: every look-up of a cacheable call in the answer cache (docs/caching.md), by
 * network, cache rule and result, so an on-call sees a hit ratio fall for the kind of call that normally hits
 * (docs/deploy.md, "Metrics"). The rule is the catalog's cache rule of the method (src/methods/entry.ts CacheRule:
 * `static`, `hash`, `tx`, `block`, `finalized`) or `logs` (an eth_getLogs range at or below the finalized block):
 * every cacheable method is of the `read` method class, so that class would tell nothing here.
 *
 * On the per-request path the counts are plain fields of objects bound once per network and rule (the layers hold
 * them: no label lookup, nothing built per call); they become series only when scraped. The objects belong to this
 * registry, not to a network's layers, so a reload that rebuilds the layers keeps counting on the same ones.
 */
import type { Registry } from 'prom-client'
import { collector, type Series } from '../../observability/histogram.ts'

export type LookupRule = 'static' | 'hash' | 'tx' | 'block' | 'finalized' | 'logs'
const RULES: readonly LookupRule[] = ['static', 'hash', 'tx', 'block', 'finalized', 'logs']

/** One network's and rule's look-ups: found in process, found in the shared Redis tier, found nowhere. */
export interface LookupCounts {
  memory: number
  redis: number
  miss: number
}

export type NetworkLookups = Readonly<Record<LookupRule, LookupCounts>>

export const newNetworkLookups = (): NetworkLookups =>
  Object.fromEntries(RULES.map((r) => [r, { memory: 0, redis: 0, miss: 0 }])) as unknown as NetworkLookups

export interface CacheLookups {
  /** The network's counts, the same objects for the process's life (created at the first ask). */
  of(network: string): NetworkLookups
  /** Registers chaingate_cache_lookups_total; `sharedTier`: a Redis tier stands behind the in-process cache. */
  register(registry: Registry, sharedTier: boolean): void
}

export function createCacheLookups(): CacheLookups {
  const byNetwork = new Map<string, NetworkLookups>()
  return {
    of(network) {
      let l = byNetwork.get(network)
      if (l === undefined) byNetwork.set(network, (l = newNetworkLookups()))
      return l
    },
    register(registry, sharedTier) {
      registry.registerMetric(
        collector(
          'chaingate_cache_lookups_total',
          'Look-ups of cacheable calls in the answer cache, by network, cache rule (static, hash, tx, block, ' +
            'finalized, logs) and result (hit, with the tier that held it: memory or redis; miss: tier none)',
          'counter',
          () => {
            const out: Series[] = []
            for (const [network, rules] of byNetwork)
              for (const rule of RULES) {
                const c = rules[rule]
                // A rule the network never looked up has no series (an EVM network has no `finalized` look-ups).
                if (c.memory + c.redis + c.miss === 0) continue
                out.push({ labels: { network, rule, result: 'hit', tier: 'memory' }, value: c.memory })
                if (sharedTier) out.push({ labels: { network, rule, result: 'hit', tier: 'redis' }, value: c.redis })
                out.push({ labels: { network, rule, result: 'miss', tier: 'none' }, value: c.miss })
              }
            return out
          },
        ),
      )
    },
  }
}
