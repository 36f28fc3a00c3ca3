/**
 * A traced call's span, from the request to its outcome (docs/deploy.md, "Traces"): steps are events on it,
 * upstream attempts its children (src/upstreams/pool/attempts.ts), and the credit decision its last attributes.
 * Only reached when tracing is on and the call is sampled: the untraced path never calls into this file.
 */
import { capLabel } from '../../methods/labels.ts'
import type { MaybePromise } from '../../shared/types.ts'
import type { TraceSpan } from '../../observability/tracing.ts'
import type { Outcome } from './types.ts'

const finish = (span: TraceSpan, o: Outcome): Outcome => {
  span.set('rpc.system', 'jsonrpc')
  // The client's text, as long as the body allows: cut like the ledger's and /metrics' labels.
  span.set('rpc.method', capLabel(o.method))
  span.set('chaingate.calls', o.calls)
  span.set('chaingate.credits.charged', o.credits)
  if (o.source !== undefined) span.set('chaingate.answer.source', o.source)
  if (o.code !== undefined) span.set('chaingate.refusal.code', o.code)
  span.event('settle', { credits: o.credits })
  span.end(o.code)
  return o
}

/** Ends `span` with the outcome's method, credits charged, answer source and refusal code. */
export function traced(span: TraceSpan, out: MaybePromise<Outcome>): MaybePromise<Outcome> {
  if (!(out instanceof Promise)) return finish(span, out)
  return out.then(
    (o) => finish(span, o),
    (err: unknown) => {
      span.end(err instanceof Error ? err.message : String(err))
      throw err
    },
  )
}
