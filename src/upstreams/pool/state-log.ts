/**
 * One log line per change of a node's state (down, back, lagging, caught up, cordoned), for an on-call reading the
 * log: the network, the node (its URL without credentials) and why. Sampled by the pool's once-a-second
 * bookkeeping, off the call path; a node failing for less than that (one cool-down) may go unnoticed here, as it
 * does in /healthz.
 */
import type { Member } from './member.ts'
import { lagOf, memberState, type UpstreamStatus } from './selection.ts'
import type { PoolState } from './state.ts'

type State = UpstreamStatus['state']

/** The check to run each second; logs nothing before start-up's own check is done (it reports its own). */
export function createStateLog(pool: PoolState): () => void {
  const last = new Map<Member, State>()
  return () => {
    const log = pool.log
    if (log === undefined || !pool.started) return
    const now = Date.now()
    for (const m of pool.members) {
      const { state, cause, reason } = memberState(pool, m, now)
      const before = last.get(m)
      // The first look after start-up: its own check already reported the nodes it found out of service.
      if (before === undefined) last.set(m, state)
      if (before === undefined || state === before) continue
      last.set(m, state)
      const fields = { network: pool.network, upstream: m.label, state, previous: before }
      if (state === 'down') log.warn({ ...fields, cause, reason }, 'node down')
      else if (state === 'cordoned') log.warn({ ...fields, cause, reason }, 'node out of rotation')
      else if (state === 'lagging') log.warn({ ...fields, lagBlocks: lagOf(pool, m), reason }, 'node lagging')
      else log.info({ ...fields, head: m.head }, before === 'lagging' ? 'node caught up' : 'node back')
    }
  }
}
