/**
 * What the parts of one pool share (src/upstreams/pool/pool.ts composes them): its nodes, policy and the few values
 * one part writes and another reads — one object per pool, created once, so the call path allocates nothing for it.
 */
import type { FamilyRules } from './family-rules.ts'
import type { HeadTracker } from './heads.ts'
import type { Member } from './member.ts'
import type { SendSettings, PoolLog, UpstreamPolicy } from './types.ts'
import type { RelayedTransactions } from './retry-policy.ts'

export interface PoolState {
  readonly network: string
  readonly members: Member[]
  readonly policy: UpstreamPolicy
  readonly settings: SendSettings
  /** What the pool asks its nodes: chain identity, heads, liveness (per chain family). */
  readonly rules: FamilyRules
  /**
   * The network's CAIP-2 chain id, checked against every node; undefined: not known yet (`checksChain`: taken from
   * the first node that answers, then checked against the others) or trusted (an embedded chain chaingate started).
   */
  expected: string | undefined
  /** Nodes are checked before they serve (false: trusted, an embedded chain chaingate started). */
  readonly checksChain: boolean
  readonly heads: HeadTracker
  readonly relayed: RelayedTransactions
  readonly log: PoolLog | undefined
  /** Calls since start (the one-node path counts too: one increment): head polling stops when it stops moving. */
  calls: number
  /** No call for `headIdleMs`: heads are not polled until the next call (which then takes the slow path). */
  headsIdle: boolean
  /** Set once start-up's own check is done: later mismatches are logged (start-up reports its own). */
  started: boolean
  closed: boolean
  /** The hedge delay now (ms), recomputed once a second (src/upstreams/pool/selection.ts bookkeeping). */
  hedgeDelayMs: number
  /** How many of the nodes the last select() returned are healthy (the rest are last resorts). */
  selectedHealthy: number
}
