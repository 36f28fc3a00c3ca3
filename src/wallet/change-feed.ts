/** Tells the console's open event streams that something it shows changed (pending requests, sessions, activity). */
export interface ChangeFeed {
  notify(): void
  /** Returns the unsubscribe function. */
  subscribe(listener: () => void): () => void
}

export function createChangeFeed(): ChangeFeed {
  const listeners = new Set<() => void>()
  return {
    notify() {
      for (const l of [...listeners]) {
        try {
          l()
        } catch {}
      }
    },
    subscribe(listener) {
      listeners.add(listener)
      return () => void listeners.delete(listener)
    },
  }
}
