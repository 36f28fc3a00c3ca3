/**
 * What the hub (./hub.ts) shares with the parts it drives (the node link, heartbeat, switch, replay and Solana
 * events): its options and the state of one shared subscription. Here rather than in hub.ts, which imports those
 * parts, so that they do not import it back.
 */
import type { SubscriptionKind, SubscriptionKindName } from '../../methods/catalog.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import type { Histogram } from '../../observability/histogram.ts'
import type { FanoutListener, Yield } from './fanout.ts'

/**
 * dropped: the connection closed; hung: no heartbeat answer; unhealthy: the pool found the node lagging, failing or
 * cordoned; preferred: back to the node ranked first (after failbackMs); removed: `chaingate reload` took the node out.
 */
export type MoveReason = 'dropped' | 'hung' | 'unhealthy' | 'preferred' | 'removed' | 'gave-up'

export interface HubOptions {
  timeoutMs: number
  /** The nodes' WebSocket URLs, best first; read again at every (re)connection. */
  wsUrls: () => readonly string[]
  /** After a drop, how long to keep trying to reach a node before clients are told (gateway.subscriptionFailoverMs). */
  failoverMs: number
  /**
   * How often the node carrying subscriptions is asked something (eth_chainId) while it holds any: no answer within
   * max(1 s, this) (and at most timeoutMs) counts as a drop, so a node that keeps its socket open but stops
   * answering is left too (gateway.subscriptionHeartbeatMs; 0: never).
   */
  heartbeatMs?: number
  /**
   * Whether the pool counts a node healthy (not lagging, down or cordoned). At the heartbeat, a subscription node
   * found unhealthy twice in a row is moved off to a healthy one, make before break (undefined: never for that).
   */
  isHealthy?: (url: string) => boolean
  /**
   * While the subscriptions are on another node than the first of wsUrls() (healthy), that node is asked eth_chainId
   * on a fresh WebSocket every failbackMs / 4 (at most 15 s; failbackMs after a check it failed); once it has
   * answered every check for this long, the subscriptions move back to it, make before break
   * (gateway.subscriptionFailbackMs; 0 or undefined: never).
   */
  failbackMs?: number
  /** The network's chain id: a node answering another one is not used (undefined: not checked, embedded chains). */
  chainId?: number | undefined
  /** The network's chain family (default evm): how its nodes are spoken to (./protocol.ts). */
  family?: ChainFamily | undefined
  /**
   * Solana: whether the pool found the node on another cluster (its genesis hash, asked over HTTP: a validator's
   * PubSub socket answers no such call); such a node is not used (undefined: not checked).
   */
  wrongChain?: ((url: string) => boolean) | undefined
  /** URL → the form logs may show (no credentials). */
  label?: (url: string) => string
  log?: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void }
  /**
   * Distinct node subscriptions (kind and filter) held at once (gateway.maxUpstreamSubscriptionsPerNetwork): a new
   * filter beyond it is refused (UPSTREAM_SUBSCRIPTION_LIMIT); joining one already held is not. Undefined: no cap.
   */
  maxSubscriptions?: number
  /** Clients per chunk of an event's fan-out, and the pause between chunks (tests; default 500, setImmediate). */
  fanoutChunk?: number
  fanoutYield?: Yield
}

export interface Listener extends FanoutListener {
  onLost(reason: string): void
}

export interface Shared {
  key: string
  params: unknown[]
  kind: SubscriptionKindName
  /** What is replayed after a lost node connection: its kind's rule in the family's catalog. */
  replay: SubscriptionKind['replay']
  listeners: Set<Listener>
  /** Subscribed at a node (false while the first eth_subscribe is under way). */
  live: boolean
  ready: Promise<void>
  /** The node's id on the current connection. */
  nodeId: string | undefined
  /** Live events and gap fills, in order: one task at a time. */
  tasks: (() => void | Promise<void>)[]
  running: boolean
  /** newHeads: number of the last head sent to clients. */
  lastHead: bigint | undefined
  /**
   * newHeads (Solana: account, program, logs): after a switch, until the new node passes lastHead (lastSlot), its
   * older events are duplicates.
   */
  catchingUp: boolean
  /** logs: block of the last log sent, and the logs of that block already sent (logIndex:removed). */
  lastLogBlock: bigint | undefined
  lastLogKeys: Set<string>
  /** logs: first block the subscription is responsible for (node head at subscribe + 1). */
  firstBlock: bigint | undefined
  /** logs: at a drop, the first block the old node may not have covered. */
  resumeFrom: bigint | undefined
  /** logs: after a gap fill, through this block live logs are checked against `filled`. */
  filledThrough: bigint | undefined
  filled: Set<string>
  /**
   * Solana slot and root: the last slot sent to clients (older or equal ones are dropped); account, program, logs:
   * the context slot of the last notification sent, and what was sent for it (`slotKeys`: program pubkeys, logs
   * signatures), for the duplicates of a new node while `catchingUp` after a move.
   */
  lastSlot: number | undefined
  slotKeys: Set<string>
  /** Solana signature: its `receivedSignature` notification was sent (a new node's again is dropped). */
  received: boolean
  /** Its kind's fan-out time histogram, bound once (./replay.ts createQueue observes it per notification). */
  fanout: Histogram
  /** Notifications fanned out to its clients so far (a notification dropped as a duplicate sends none). */
  sent: number
}
