/** One attempt of a call at one node (src/upstreams/pool/attempts.ts): its request, start and trace span. */
import type { TraceSpan } from '../../observability/tracing.ts'
import type { Member, RequestControl } from './member.ts'

export interface Attempt {
  m: Member
  ctl: RequestControl
  startedAt: number
  /** Traced calls only: this attempt's span (node, attempt number, retry or hedge, outcome). */
  span: TraceSpan | undefined
}

/** Ends a traced attempt's span with how it ended. */
export const endAttempt = (a: Attempt, outcome: string, error?: string) => {
  if (a.span === undefined) return
  a.span.set('chaingate.upstream.outcome', outcome)
  a.span.end(error)
}

/** A traced attempt's span, a child of the call's. */
export const attemptSpan = (call: TraceSpan, m: Member, n: number, hedge: boolean) =>
  call.child('upstream attempt', {
    'chaingate.upstream.node': m.label,
    'chaingate.upstream.attempt': n,
    'chaingate.upstream.kind': n === 1 ? 'first' : hedge ? 'hedge' : 'retry',
  })
