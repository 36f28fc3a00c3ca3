/**
 * One event of a shared subscription to all its clients (src/upstreams/subscriptions/hub.ts), without stalling the
 * process: the result is serialized once, and the clients get it in chunks of `FANOUT_CHUNK`, the event loop
 * serving other work (HTTP calls, other sockets) between chunks. Events of one shared subscription are fanned out
 * one after another (the hub's task queue awaits each), so a later event never overtakes an earlier one.
 *
 * Listeners may belong to a group (the gateway: one per API key): the group is told once per event how many of its
 * listeners will be offered the event (`begin`, e.g. to reserve their credits in one go), each listener gets what
 * `begin` returned, and `end` closes the event for the group (e.g. settles what was delivered), also when a listener
 * threw.
 */

/** Called per event with the result, its JSON text (serialized once for every client) and its group's round. */
export type EventHandler = (result: unknown, resultJson: string, round?: unknown) => void

export interface EventGroup<Round = unknown> {
  /** Before any of this event's `listeners` of the group get it; a promise holds the fan-out until it settles. */
  begin(listeners: number, result: unknown, resultJson: string): Round | Promise<Round>
  /** After the last of them got it. */
  end(round: Round): void
}

export interface FanoutListener {
  onEvent: EventHandler
  group?: EventGroup | undefined
}

/**
 * A chunk ends after this many clients or this long, whichever comes first: a call arriving meanwhile waits no longer
 * than one chunk (~1 ms of WebSocket writes, ~70 of them on an idle core); the time bound keeps that true on a
 * busy machine. A yield costs a few µs, so 1 ms slices add well under 1 % to a fan-out.
 */
export const FANOUT_CHUNK = 500
export const FANOUT_SLICE_MS = 1
/**
 * Upper bounds (seconds) of chaingate_subscription_fanout_seconds' buckets: from a few clients (well under a
 * millisecond) to tens of thousands (chunks of FANOUT_CHUNK with the event loop served between them).
 */
export const FANOUT_BUCKETS: readonly number[] = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
]
/** How often (in clients) the clock is read for the time bound (~0.25 ms of writes). */
const CLOCK_EVERY = 16

/** Lets the event loop run what is pending (I/O callbacks, HTTP requests) before the next chunk. */
export type Yield = () => Promise<void>
export const yieldToLoop: Yield = () => new Promise((resolve) => setImmediate(resolve))

export async function fanOut(
  listeners: Iterable<FanoutListener>,
  result: unknown,
  chunk = FANOUT_CHUNK,
  pause: Yield = yieldToLoop,
): Promise<void> {
  const json = JSON.stringify(result)
  // A snapshot: a client joining during the fan-out gets the next event; one leaving is skipped by its own check.
  const all = [...listeners]
  let counts: Map<EventGroup, number> | undefined
  for (const l of all) if (l.group !== undefined) (counts ??= new Map()).set(l.group, (counts.get(l.group) ?? 0) + 1)
  const rounds = new Map<EventGroup, unknown>()
  try {
    if (counts !== undefined) {
      const pending: Promise<void>[] = []
      for (const [group, n] of counts) {
        const r = group.begin(n, result, json)
        if (r instanceof Promise) pending.push(r.then((v) => void rounds.set(group, v)))
        else rounds.set(group, r)
      }
      // Every begin settled before anything is ended: a round that arrives late must still be ended.
      if (pending.length > 0)
        for (const r of await Promise.allSettled(pending)) if (r.status === 'rejected') throw r.reason
    }
    let started = performance.now()
    let inChunk = 0
    for (let i = 0; i < all.length; i++) {
      if (
        inChunk === chunk ||
        (inChunk > 0 && inChunk % CLOCK_EVERY === 0 && performance.now() - started >= FANOUT_SLICE_MS)
      ) {
        await pause()
        started = performance.now()
        inChunk = 0
      }
      inChunk++
      const l = all[i]!
      l.onEvent(result, json, l.group === undefined ? undefined : rounds.get(l.group))
    }
  } finally {
    for (const [group, round] of rounds) group.end(round)
  }
}
