/**
 * How the subscription hub (src/upstreams/subscriptions/hub.ts) speaks to a node of each chain family: which call
 * opens and ends a node subscription, how the node's notifications name it, which subscriptions end by themselves,
 * how a new connection's node is identified and how a quiet one is asked whether it is still there. Everything else
 * — sharing one node subscription between clients, the order of events, failover and planned moves — is the hub's
 * and the same for every family.
 *
 * The hub's `params` are the kind first, then the kind's parameters: EVM `['logs', filter]` (eth_subscribe's own
 * params), Solana `['account', pubkey, config]` for accountSubscribe(pubkey, config).
 * - EVM (https://geth.ethereum.org/docs/interacting-with-geth/rpc/pubsub): eth_subscribe / eth_unsubscribe, hex
 *   string ids, `eth_subscription` notifications; a new node is identified by eth_chainId.
 * - Solana (https://solana.com/docs/rpc/websocket): `<kind>Subscribe` / `<kind>Unsubscribe`, integer ids,
 *   `<kind>Notification` notifications; signatureSubscribe ends with its notification (the node drops it); which
 *   cluster a node is on is the pool's finding (getGenesisHash over HTTP), a quiet one is asked getVersion (the one
 *   call besides subscriptions a validator's PubSub answers).
 */
import type { SubscriptionKindName } from '../../methods/catalog.ts'
import type { ChainFamily } from '../../shared/chain-family.ts'
import { isHex } from '../../shared/hex.ts'
import { FAMILY_RULES } from '../pool/family-rules.ts'

export interface SubscriptionProtocol {
  readonly family: ChainFamily
  /** The node call that opens the shared subscription of `params`. */
  subscribe(params: unknown[]): { method: string; params: unknown[] }
  /** The node call that ends the node subscription `nodeId` (as `nodeIdOf` keyed it) of `kind`. */
  unsubscribe(kind: SubscriptionKindName, nodeId: string): { method: string; params: unknown[] }
  /** The node's subscription id in its answer to `subscribe`, as the hub keys it. */
  nodeIdOf(result: unknown): string
  /** A notification's node subscription id, or undefined when the message is not one of this family's. */
  notificationId(msg: { method?: string; params?: unknown }): string | undefined
  /** The same parameters (as the node understands them) give the same key. */
  key(params: unknown[]): string
  /** The call that shows a quiet node is still there (the heartbeat). */
  readonly liveness: { method: string; params: unknown[] }
}

/** The same key for the same value whatever the order of its object members (and, EVM, the case of its hex). */
const canonical = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(canonical)
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
    )
  return isHex(v) ? v.toLowerCase() : v
}

export const EVM_PROTOCOL: SubscriptionProtocol = {
  family: 'evm',
  subscribe: (params) => ({ method: 'eth_subscribe', params }),
  unsubscribe: (_kind, nodeId) => ({ method: 'eth_unsubscribe', params: [nodeId] }),
  nodeIdOf: (result) => String(result),
  notificationId(msg) {
    const id = (msg.params as { subscription?: unknown } | undefined)?.subscription
    return msg.method === 'eth_subscription' && typeof id === 'string' ? id : undefined
  },
  key: (params) => JSON.stringify(canonical(params)),
  liveness: FAMILY_RULES.evm.liveness,
}

const NOTIFICATION = 'Notification'

const config = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

/**
 * A Solana subscription's parameters with the node's defaults written out, so that two clients asking the same
 * thing share one node subscription: Agave fills in commitment `finalized`, encoding `binary`, no received
 * notification, and ignores `minContextSlot` (agave rpc/src/rpc_pubsub.rs). Agave itself hands the same id to equal
 * parameters on one connection, so two shared subscriptions it counts as one would share a node id here.
 */
function solanaKeyParams(params: unknown[]): unknown[] {
  const [kind, first, second] = params
  const c = config(second)
  const commitment = c.commitment ?? 'finalized'
  switch (kind) {
    case 'account':
      return [kind, first, { commitment, encoding: c.encoding ?? 'binary', dataSlice: c.dataSlice ?? null }]
    case 'program':
      return [
        kind,
        first,
        {
          commitment,
          encoding: c.encoding ?? 'binary',
          dataSlice: c.dataSlice ?? null,
          filters: Array.isArray(c.filters) && c.filters.length > 0 ? c.filters : null,
          withContext: c.withContext === true,
        },
      ]
    case 'logs':
      return [kind, first, { commitment }]
    case 'signature':
      return [kind, first, { commitment, enableReceivedNotification: c.enableReceivedNotification === true }]
    case 'slot':
    case 'root':
      return [kind]
    default:
      return params
  }
}

export const SOLANA_PROTOCOL: SubscriptionProtocol = {
  family: 'solana',
  subscribe: (params) => ({ method: `${String(params[0])}Subscribe`, params: params.slice(1) }),
  // Solana's ids are integers (u64); the hub keys them as their decimal digits.
  unsubscribe: (kind, nodeId) => ({ method: `${kind}Unsubscribe`, params: [Number(nodeId)] }),
  nodeIdOf: (result) => String(result),
  notificationId(msg) {
    const id = (msg.params as { subscription?: unknown } | undefined)?.subscription
    return typeof msg.method === 'string' && msg.method.endsWith(NOTIFICATION) && Number.isSafeInteger(id)
      ? String(id)
      : undefined
  },
  key: (params) => JSON.stringify(canonical(solanaKeyParams(params))),
  // A validator's PubSub socket answers subscriptions and getVersion only (agave rpc/src/rpc_pubsub.rs), not the
  // pool's getHealth.
  liveness: { method: 'getVersion', params: [] },
}

export const PROTOCOLS: Readonly<Record<ChainFamily, SubscriptionProtocol>> = {
  evm: EVM_PROTOCOL,
  solana: SOLANA_PROTOCOL,
}

/**
 * Whether a notification is the last of its subscription: Solana's signatureSubscribe ends once the signature
 * reached the commitment asked (the node drops it, https://solana.com/docs/rpc/websocket/signaturesubscribe); a
 * `receivedSignature` notification (enableReceivedNotification) comes before that one and does not end it.
 */
export function isFinalNotification(family: ChainFamily, kind: SubscriptionKindName, result: unknown): boolean {
  return (
    family === 'solana' &&
    kind === 'signature' &&
    (result as { value?: unknown } | null | undefined)?.value !== 'receivedSignature'
  )
}
