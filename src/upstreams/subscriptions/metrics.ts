/**
 * /metrics of the subscription hubs (docs/subscriptions.md, docs/deploy.md "Metrics"), read when scraped: nothing is
 * counted on subscribe or unsubscribe, the hubs' own sets are counted instead, so the gauges are exact.
 * - chaingate_client_subscriptions{network,kind}: client subscriptions (a client WebSocket's or the wallet's) on the
 *   network's node subscriptions, each kind of the network's family listed (0 included);
 * - chaingate_upstream_subscriptions{network,kind}: node subscriptions held (one per kind and filter);
 * - chaingate_subscription_fanout_seconds{network,kind}: per node notification passed on, from its arrival to the
 *   last client's send (its queue wait behind earlier events of the same subscription included), observed once per
 *   notification (./replay.ts createQueue), not per client;
 * - chaingate_subscription_moves_total{network,reason}.
 */
import type { Registry } from 'prom-client'
import { subscriptionKinds } from '../../methods/catalog.ts'
import { collector, histogramSeries, type Series } from '../../observability/histogram.ts'
import type { MoveReason, SubscriptionHub } from './hub.ts'

/** Per kind of the hub's family (0 included), the node subscriptions held and their clients. */
function countByKind(hub: SubscriptionHub): Map<string, { held: number; clients: number }> {
  const counts = new Map(subscriptionKinds(hub.family).map((k) => [k.kind as string, { held: 0, clients: 0 }]))
  for (const s of hub.held()) {
    let c = counts.get(s.kind)
    if (c === undefined) counts.set(s.kind, (c = { held: 0, clients: 0 }))
    c.held++
    c.clients += s.listeners.size
  }
  return counts
}

export function registerSubscriptionMetrics(registry: Registry, hubs: ReadonlyMap<string, SubscriptionHub>): void {
  const byKind = (pick: (c: { held: number; clients: number }) => number) => () => {
    const out: Series[] = []
    for (const [network, hub] of hubs)
      for (const [kind, c] of countByKind(hub)) out.push({ labels: { network, kind }, value: pick(c) })
    return out
  }
  registry.registerMetric(
    collector(
      'chaingate_client_subscriptions',
      'Client subscriptions open now, by network and kind (shared in one node subscription per kind and filter)',
      'gauge',
      byKind((c) => c.clients),
    ),
  )
  registry.registerMetric(
    collector(
      'chaingate_upstream_subscriptions',
      'Node subscriptions held, by network and kind: one per kind and filter, shared by every client',
      'gauge',
      byKind((c) => c.held),
    ),
  )
  registry.registerMetric(
    collector(
      'chaingate_subscription_fanout_seconds',
      "Time from a node's notification arriving to its last client's send, by network and kind (once per " +
        'notification, whatever the number of clients)',
      'histogram',
      () => {
        const out: Series[] = []
        for (const [network, hub] of hubs)
          for (const [kind, h] of hub.fanout)
            histogramSeries(out, 'chaingate_subscription_fanout_seconds', { network, kind }, h)
        return out
      },
    ),
  )
  registry.registerMetric(
    collector(
      'chaingate_subscription_moves_total',
      "Times a network's subscriptions left their node, by reason (dropped, hung, unhealthy, preferred); " +
        'gave-up: no node within gateway.subscriptionFailoverMs, clients closed with 1013',
      'counter',
      () =>
        [...hubs].flatMap(([network, h]) =>
          (Object.keys(h.moves) as MoveReason[]).map((reason) => ({
            labels: { network, reason },
            value: h.moves[reason],
          })),
        ),
    ),
  )
}
