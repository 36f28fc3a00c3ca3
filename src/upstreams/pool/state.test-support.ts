/**
 * A pool's shared state (./state.ts) built as createUpstreamPool builds it, without its timers, head polling or
 * chain checks: for the unit tests of the parts that read and write it (selection, attempts). Its nodes' undici
 * pools are closed after each test.
 */
import { afterEach } from 'vitest'
import { FAMILY_RULES } from './family-rules.ts'
import { createHeadTracker } from './heads.ts'
import type { Member } from './member.ts'
import { newMember } from './new-member.ts'
import { DEFAULT_UPSTREAM_POLICY, type UpstreamEndpoint, type UpstreamPolicy } from './pool.ts'
import { RelayedTransactions } from './retry-policy.ts'
import type { PoolState } from './state.ts'

/** `poolState(endpoints)`: confirmed nodes (usable at once) unless `checked`; closed after each test. */
export function poolStateHarness() {
  const members: Member[] = []
  afterEach(async () => {
    await Promise.all(members.splice(0).map((m) => m.pool?.destroy().catch(() => undefined)))
  })
  return function poolState(
    endpoints: UpstreamEndpoint[],
    policy: Partial<UpstreamPolicy> = {},
    o: { timeoutMs?: number; checked?: boolean; chainId?: number } = {},
  ): PoolState {
    const p: UpstreamPolicy = { ...DEFAULT_UPSTREAM_POLICY, ...policy }
    const made = endpoints.map((e) =>
      newMember(e, {
        network: 'net',
        timeoutMs: o.timeoutMs ?? 5000,
        connections: undefined,
        checked: o.checked ?? false,
        policy: p,
      }),
    )
    members.push(...made)
    return {
      network: 'net',
      members: made,
      policy: p,
      settings: { network: 'net', cooldownMs: 2000, maxResponseBytes: 1024 * 1024 },
      rules: FAMILY_RULES.evm,
      expected: o.chainId === undefined ? undefined : `eip155:${o.chainId}`,
      checksChain: o.checked ?? false,
      heads: createHeadTracker(),
      relayed: new RelayedTransactions(),
      log: undefined,
      calls: 0,
      headsIdle: false,
      started: true,
      closed: false,
      hedgeDelayMs: p.hedge.delayMs ?? p.hedge.maxDelayMs,
      selectedHealthy: 0,
    }
  }
}
