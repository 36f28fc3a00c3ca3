/**
 * Subscription events charged per API key and event, not per subscriber (src/gateway/pipeline/client-subscriptions.ts):
 * every client subscription of one key, network and kind is in one fan-out group (src/upstreams/subscriptions/
 * fanout.ts). Before an event reaches the group's subscribers, what all of them could cost is reserved in one
 * `chargeWithin` (never beyond the day's balance); each subscriber then takes its price from that reservation as it
 * is delivered — the one that uses it up pays what was left, those after it get nothing and are not sent the event —
 * and after the last one, what was not delivered is refunded in one `adjust` and the delivered events are written
 * to the usage ledger in one record. The credits and ledger totals are exactly those of charging each subscriber on
 * its own, in the same order (when an account's balance runs out mid-event, its keys' groups are served one after
 * another: docs/subscriptions.md).
 */
import type { KeyEntry } from '../../keys/snapshot.ts'
import {
  type ChainFamily,
  type SubscriptionKind,
  type SubscriptionKindName,
  subscriptionKinds,
} from '../../methods/catalog.ts'
import type { EventGroup } from '../../upstreams/subscriptions/hub.ts'
import type { SubscriptionDeps } from './types.ts'
import type { Settle } from './steps/settle.ts'

/** One event's notification, the same for every subscriber but for the subscription id. */
export interface Notification {
  /** The notification after the subscription id: `","result":<result>}}`, made once per event. */
  readonly tail: string
  /**
   * Solana: the notification before the subscription id (`{…,"params":{"result":<result>,"subscription":`, the id
   * last and a number, as a validator sends it; `tail` is then `}}`); EVM: undefined (FRAME_HEAD).
   */
  readonly head?: string | undefined
  /** The notification as a WebSocket frame, made for the first subscriber (src/gateway/http/ws-send.ts). */
  wire?: { frame: Buffer; at: number } | undefined
  /** Solana: one frame per length of the integer ids it is sent to (index: the id's length), made as needed. */
  wires?: ({ frame: Buffer; at: number } | undefined)[] | undefined
}

/** One event for one group: the reservation and what its subscribers took of it. */
export interface Round extends Notification {
  entry: KeyEntry | undefined
  /** The event's price for a subscriber it is due for (docs/errors.md, event table). */
  price: number
  now: number
  /** Reserved before the fan-out; `used` of it is what the delivered events cost. */
  budget: number
  used: number
  delivered: number
  /** Whose `exhausted` to call after the event: the balance ran out (`short`: a subscriber could not pay). */
  notify: (() => void) | undefined
  short: boolean
}

export interface ChargeGroup extends EventGroup<Round> {
  members: number
}

/** The notification before the subscription id. */
export const FRAME_HEAD = '{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"'

/** Each family's kinds by name: their event price, ledger label and notification (the catalogs'). */
const KINDS: Readonly<Record<ChainFamily, ReadonlyMap<SubscriptionKindName, SubscriptionKind>>> = {
  evm: new Map(subscriptionKinds('evm').map((k) => [k.kind, k])),
  solana: new Map(subscriptionKinds('solana').map((k) => [k.kind, k])),
}

/**
 * How a family's events of `kind` are priced (credits.events), recorded (the usage ledger's method) and written:
 * EVM `newHeads` priced as `newHeads`, recorded as `eth_subscription:newHeads`; Solana `account` priced and
 * recorded as `accountNotification`, the notification's own method, and written with its own frame head.
 */
function eventOf(
  family: ChainFamily | undefined,
  kind: SubscriptionKindName,
): { price: string; label: string; head?: string } {
  const k = KINDS[family ?? 'evm'].get(kind)
  if (k === undefined || family !== 'solana')
    return { price: k?.price ?? kind, label: k?.label ?? `eth_subscription:${kind}` }
  return { price: k.price, label: k.label, head: `{"jsonrpc":"2.0","method":"${k.notification}","params":{"result":` }
}

const registries = new WeakMap<SubscriptionDeps, Map<string, ChargeGroup>>()

/** The group of `keyId`'s `kind` subscriptions on `network`, shared by its connections; `release` when leaving. */
export function joinGroup(
  deps: SubscriptionDeps,
  settle: Settle,
  owner: { accountId: string; keyId: string; network: string; family?: ChainFamily | undefined },
  kind: SubscriptionKindName,
): { group: ChargeGroup; release(): void } {
  let groups = registries.get(deps)
  if (groups === undefined) registries.set(deps, (groups = new Map()))
  const id = `${owner.network}\n${owner.keyId}\n${kind}`
  let group = groups.get(id)
  if (group === undefined) groups.set(id, (group = createGroup(deps, settle, owner, kind)))
  group.members++
  const joined = group
  let released = false
  return {
    group: joined,
    release() {
      if (released) return
      released = true
      if (--joined.members === 0 && groups.get(id) === joined) groups.delete(id)
    },
  }
}

function createGroup(
  deps: SubscriptionDeps,
  settle: Settle,
  { accountId, keyId, network, family }: { accountId: string; keyId: string; network: string; family?: ChainFamily },
  kind: SubscriptionKindName,
): ChargeGroup {
  const event = eventOf(family, kind)
  const head = event.head
  return {
    members: 0,
    begin(listeners, _result, json) {
      const entry = deps.keys.byId(keyId)
      const now = deps.clock.now()
      const price = deps.costs.event(event.price)
      const round: Round = {
        entry,
        price,
        now,
        budget: 0,
        used: 0,
        delivered: 0,
        tail: head === undefined ? `","result":${json}}}` : '}}',
        head: head === undefined ? undefined : `${head}${json},"subscription":`,
        wire: undefined,
        notify: undefined,
        short: false,
      }
      if (entry === undefined || price === 0) return round
      const reserved = deps.limits.chargeWithin(entry.limits, price * listeners, now)
      if (typeof reserved === 'number') {
        round.budget = reserved
        return round
      }
      return reserved.then((r) => {
        round.budget = r
        return round
      })
    },
    end(round) {
      const { entry, now } = round
      if (entry === undefined) return
      if (round.budget > round.used) deps.limits.adjust(accountId, keyId, round.used - round.budget, now)
      if (round.delivered > 0)
        settle.event({ entry, network, label: event.label, credits: round.used, now, events: round.delivered })
      if (round.notify === undefined) return
      if (round.short || deps.limits.usedToday(accountId, now) >= entry.plan.creditsPerDay) round.notify()
    },
  }
}

/**
 * What one subscriber pays for the event out of the round's reservation, or undefined when the balance cannot pay
 * it (then it is not sent the event, and its connection is told once the event is through).
 */
export function take(round: Round, due: boolean, exhausted: () => void): number | undefined {
  if (!due || round.price === 0) return 0
  const left = round.budget - round.used
  if (left <= 0) {
    round.short = true
    round.notify = exhausted
    return undefined
  }
  return Math.min(left, round.price)
}

/** Counts a delivered event and what it cost. */
export function delivered(round: Round, charged: number, exhausted: () => void): void {
  round.used += charged
  round.delivered++
  if (!round.short) round.notify = exhausted
}
