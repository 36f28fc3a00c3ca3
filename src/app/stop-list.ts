/**
 * The one ordered stop list of a running app: each part registers its stop as soon as it has started, and `stop()`
 * runs them in reverse (the last part started stops first: the listener before the ledger, the ledger before the
 * database). A stop that fails is logged and the rest still run, so a broken part never leaves the database open or
 * an anvil running. A part may register while the list is stopping (it is then stopped next).
 */

/** Where a failing stop is reported (a pino logger fits). */
export interface StopLog {
  error(obj: object, message: string): void
}

export interface StopList {
  /** Registers `stop` for the part `name` (named in the log line when it fails). */
  add(name: string, stop: () => Promise<unknown> | unknown): void
  /** Runs every registered stop, last registered first; the same promise to every caller. Never rejects. */
  stop(): Promise<void>
  /** True once `stop()` has been called (an embedded chain's exit is then expected). */
  isStopping(): boolean
}

export function createStopList(log: StopLog): StopList {
  const entries: { name: string; stop: () => Promise<unknown> | unknown }[] = []
  let running: Promise<void> | undefined
  const runAll = async () => {
    for (let entry = entries.pop(); entry; entry = entries.pop()) {
      try {
        await entry.stop()
      } catch (err) {
        log.error({ err, part: entry.name }, 'error while stopping')
      }
    }
  }
  return {
    add(name, stop) {
      entries.push({ name, stop })
    },
    stop() {
      running ??= runAll()
      return running
    },
    isStopping: () => running !== undefined,
  }
}
