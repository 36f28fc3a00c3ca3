/**
 * Filters (docs/upstreams.md, "Filters"). A filter lives on the node that created it: another node answers
 * "filter not found". So:
 *
 * - `eth_newFilter`, `eth_newBlockFilter`, `eth_newPendingTransactionFilter` go to the node selection picks (retried
 *   only when the node surely never got the request, like any node-local method) and the id in the answer is
 *   rewritten to name that node (src/upstreams/pool/filter-ids.ts: stateless, the same in every replica and worker);
 * - `eth_getFilterChanges`, `eth_getFilterLogs`, `eth_uninstallFilter` go to the node their id names, with the
 *   node's own id, and to no other node. The node's answer comes back verbatim.
 * - an id this gateway did not hand out to the calling key (another key's, forged, malformed, minted under another
 *   config), or whose node is out of rotation, has its breaker open or does not answer: `FILTER_NOT_FOUND`, the
 *   node's own error for an unknown filter (`-32000 filter not found`, free: nothing was delivered), never another
 *   node. Another key's id gets exactly what an unknown id gets.
 *
 * Ids are bound to the API key that created them (the pipeline passes its id as the opaque `owner`), on every
 * network, one node (an embedded chain) included, so a key cannot poll, read or remove another key's filter.
 */
import { ChaingateError, errors } from '../../errors/index.ts'
import { anyMethodsWhere } from '../../methods/catalog.ts'
import { run } from './attempts.ts'
import { decodeFilterId, encodeFilterId, nodeFingerprint } from './filter-ids.ts'
import { CancelledError, counted, type Member, type UpstreamAnswer } from './member.ts'
import type { CallOrigin, SendOptions } from './types.ts'
import type { PoolState } from './state.ts'
import { select } from './selection.ts'

/** Methods that create a filter on the node that answers them (src/methods/catalog.ts). */
const CREATE: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.filter === 'create'))
/** Methods that take a filter id as their first parameter. */
const USE: ReadonlySet<string> = new Set(anyMethodsWhere((e) => e.filter === 'use'))

const ANY: ReadonlySet<string> = new Set([...CREATE, ...USE])
/** Whether a method creates or uses a node's filter (so it must reach one node in particular). */
export const isFilterMethod = (method: string): boolean => ANY.has(method)

export interface FilterRouting {
  /** One filter call (a single JSON-RPC call; `o.method` is a filter method). */
  send(
    body: string | Buffer,
    o: SendOptions & { method: string },
    origin: CallOrigin | undefined,
    now: number,
  ): Promise<UpstreamAnswer>
}

const attemptsOf = (err: unknown): number => {
  const n = (err as { attempts?: unknown } | null)?.attempts
  return typeof n === 'number' ? n : 0
}

/** The node's answer to a filter creation, with the id that names the node; untouched when it holds no id. */
function pinned(answer: UpstreamAnswer, position: number, fingerprint: string, owner: string): UpstreamAnswer {
  if (answer.isError === true) return answer
  let reply: unknown
  try {
    reply = JSON.parse(answer.body.toString())
  } catch {
    return answer
  }
  if (typeof reply !== 'object' || reply === null || Array.isArray(reply)) return answer
  const r = reply as { result?: unknown }
  if (typeof r.result !== 'string') return answer
  r.result = encodeFilterId(position, fingerprint, r.result, owner)
  return { ...answer, body: Buffer.from(JSON.stringify(r)) }
}

export function createFilterRouting(pool: PoolState, totalTimeoutMs: number): FilterRouting {
  const { members } = pool
  // Computed once: the same in every process that has the same config.
  const fingerprints = members.map((m) => nodeFingerprint(pool.network, m.label))

  const anyNode = (
    body: string | Buffer,
    o: SendOptions,
    origin: CallOrigin | undefined,
    now: number,
    onWinner?: (m: Member) => void,
  ) => run({ pool, body, o, origin, now, order: select(pool, now, undefined), totalTimeoutMs, onWinner })

  const create = (
    body: string | Buffer,
    o: SendOptions,
    origin: CallOrigin | undefined,
    now: number,
  ): Promise<UpstreamAnswer> => {
    let position = -1
    return anyNode(body, o, origin, now, (m) => (position = members.indexOf(m))).then((answer) =>
      position < 0 ? answer : pinned(answer, position, fingerprints[position]!, o.owner ?? ''),
    )
  }

  const notFound = (attempts: number) => Promise.reject(counted(errors.filterNotFound(), attempts))

  const use = (
    body: string | Buffer,
    o: SendOptions,
    origin: CallOrigin | undefined,
    now: number,
  ): Promise<UpstreamAnswer> => {
    let call: { params?: unknown }
    try {
      call = JSON.parse(body.toString()) as { params?: unknown }
    } catch {
      return notFound(0) // the pipeline sends only calls it parsed: not reached
    }
    const params = call.params
    const id: unknown = Array.isArray(params) ? params[0] : undefined
    // Not an id at all (missing, a number): no filter to reach; any node judges the parameters (invalid params).
    if (typeof id !== 'string') return anyNode(body, o, origin, now)
    const d = decodeFilterId(id, o.owner ?? '')
    const m =
      d !== undefined && d.position < members.length && fingerprints[d.position] === d.fingerprint
        ? members[d.position]
        : undefined
    // Out of rotation (provider back-off, wrong chain id) or breaker open: the filter cannot be reached now.
    if (m === undefined || !m.usable || !m.breaker.wouldAllow(now)) return notFound(0)
    ;(params as unknown[])[0] = d!.nodeId
    const order = [m]
    return run({ pool, body: JSON.stringify(call), o, origin, now, order, totalTimeoutMs }).catch((err: unknown) => {
      // The client went away, or the body is too large for any node: not the filter's business.
      if (err instanceof CancelledError || (err instanceof ChaingateError && err.code === 'BODY_TOO_LARGE')) throw err
      throw counted(errors.filterNotFound(), attemptsOf(err))
    })
  }

  return {
    send(body, o, origin, now) {
      return CREATE.has(o.method) ? create(body, o, origin, now) : use(body, o, origin, now)
    },
  }
}
