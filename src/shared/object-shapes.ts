/**
 * Two ways V8 can lose a hot object's fast layout for good, and what keeps it. Both come from V8 dropping the shapes
 * (hidden classes, https://v8.dev/docs/hidden-classes) of dead objects in a full garbage collection. Measured in
 * docs/benchmarks.md, "Shapes at start-up".
 *
 * 1. Class sizing. V8 sizes the objects of a class by in-object slack tracking
 *    (https://v8.dev/blog/slack-tracking): the first objects a constructor makes get room for every property it might
 *    add, and at about the 7th V8 shrinks the class to what the shapes still alive hold. A collection between the
 *    first few objects (a process that made a few at start, then none for a while) leaves none alive, and the class
 *    is shrunk to no in-object room at all. Every later object keeps its properties out of line, and one with more
 *    than 12 of them turns into a dictionary (a hash table) at its first symbol-keyed property, for the life of the
 *    process. sizeClass makes a class's first objects together, before the class makes any of its own.
 * 2. process.nextTick's queue entry. Node builds it as an object literal with computed (symbol) keys, one per tick,
 *    several per call. Each collection that finds none alive drops its shapes, and the next entry builds new ones.
 *    After a few, the literal's inline caches give up (megamorphic), and every entry goes through the runtime: about
 *    5x the cost of a tick from then on. keepTickShape holds one entry for the life of the process, so its shapes
 *    stay.
 */
import { createHook } from 'node:async_hooks'

/** More objects than V8's slack-tracking count (7 allocations). */
const SLACK_TRACKING_OBJECTS = 8

/** Makes `count` objects with `make`, all alive until the last is made; returns them (to be dropped or closed). */
export function sizeClass<T>(make: (i: number) => T, count = SLACK_TRACKING_OBJECTS): T[] {
  const held: T[] = []
  for (let i = 0; i < count; i++) held.push(make(i))
  return held
}

let tickEntry: object | undefined

/**
 * Keeps one process.nextTick queue entry alive for the life of the process (once). The entry is the resource an
 * async hook's `init` sees: the hook is on only while this one tick is queued. (executionAsyncResource() would
 * give it too, but calling that once makes every later native callback pass through a JavaScript trampoline.)
 */
export function keepTickShape(): void {
  if (tickEntry !== undefined) return
  const hook = createHook({
    init(_id, type, _trigger, resource) {
      if (type === 'TickObject') tickEntry ??= resource
    },
  }).enable()
  try {
    process.nextTick(() => {})
  } finally {
    hook.disable()
  }
}

/** The entry keepTickShape holds (tests). */
export const heldTickEntry = () => tickEntry
