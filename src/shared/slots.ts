/**
 * Counted slots per id (a key, a client address): what one holder may have open at once in this process. Taking a
 * slot checks and counts in one synchronous step, so a burst cannot pass the cap; each slot's release is idempotent,
 * so every way a holder ends (close, error, abort) may call it.
 */
export interface Slots {
  /** A slot for `id` when it holds fewer than `max`, with its release; undefined when it holds `max` already. */
  take(id: string, max: number): (() => void) | undefined
  /** Slots `id` holds now. */
  held(id: string): number
  /** Ids holding a slot (an id is forgotten when its last slot is released). */
  readonly size: number
}

export function createSlots(): Slots {
  const counts = new Map<string, number>()
  return {
    take(id, max) {
      const n = counts.get(id) ?? 0
      if (n >= max) return undefined
      counts.set(id, n + 1)
      let held = true
      return () => {
        if (!held) return
        held = false
        const left = (counts.get(id) ?? 1) - 1
        if (left <= 0) counts.delete(id)
        else counts.set(id, left)
      }
    },
    held: (id) => counts.get(id) ?? 0,
    get size() {
      return counts.size
    },
  }
}
