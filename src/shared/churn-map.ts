/**
 * A map for entries that come and go at the rate of calls (the calls in flight). A long-lived `Map` with a `set` and
 * a `delete` per call is costly in V8: under load a gateway's dedup `Map` had V8 promote every call's key and entry,
 * ~300 KiB per scavenge, paid for in collections (docs/benchmarks.md, "A second, costlier regime"). Our reading:
 * once the `Map`'s table is in the old generation, each rehash (growing, or shrinking after deletes) allocates the
 * next one there too, and the tables left behind, garbage until the next full collection, still point at the young
 * keys and values they held, which the scavenger then keeps.
 *
 * Here `delete` only marks the entry gone (the value is overwritten in place: the table does not change), and every
 * so many insertions the map is rebuilt into a fresh `Map` holding the live entries. At the call rate that `Map` is
 * young and dies young, with everything it held.
 */
const GONE: unique symbol = Symbol('gone')

/** Insertions between rebuilds at least; more while many entries are live (twice as many as were kept). */
const MIN_REBUILD_AT = 256

export class ChurnMap<K, V> {
  private map = new Map<K, V | typeof GONE>()
  private rebuildAt = MIN_REBUILD_AT

  get(key: K): V | undefined {
    const v = this.map.get(key)
    return v === GONE ? undefined : v
  }

  set(key: K, value: V): void {
    if (this.map.size >= this.rebuildAt) this.rebuild()
    this.map.set(key, value)
  }

  /** Whether the key had an entry (with `only`: that very value; another entry under the key is left). */
  delete(key: K, only?: V): boolean {
    const m = this.map
    const v = m.get(key)
    if (v === undefined || v === GONE || (only !== undefined && v !== only)) return false
    m.set(key, GONE)
    return true
  }

  clear(): void {
    this.map = new Map()
    this.rebuildAt = MIN_REBUILD_AT
  }

  *values(): IterableIterator<V> {
    for (const v of this.map.values()) if (v !== GONE) yield v
  }

  private rebuild(): void {
    const next = new Map<K, V | typeof GONE>()
    for (const [k, v] of this.map) if (v !== GONE) next.set(k, v)
    this.map = next
    this.rebuildAt = Math.max(MIN_REBUILD_AT, next.size * 2)
  }
}
