/**
 * The settings a reload may change (docs/config.md, "Reloading"), as one snapshot: a reload builds the next config
 * whole and swaps it in with one assignment, never changing a running config in place. A reader that holds a
 * snapshot (`current`) across awaits keeps one consistent config and its version, whatever reload lands meanwhile.
 *
 * The parts built at start hold `config`, a view whose live sections (networks, plans, credits, log) read the
 * current snapshot on every access, and whose other sections are the start's (fixed for the life of the process:
 * ./plan.ts refuses a reload that changes them). Its `plans` is one object for good, reading through too: the key
 * and account repositories that took it at start see a reload's plans.
 */
import type { Config } from '../../config/schema.ts'
import { configVersion } from './version.ts'

export interface ConfigVersion {
  /**
   * A short hash of the effective config, secrets hashed apart (./version.ts): equal configs, equal versions
   * (whatever process runs them).
   */
  version: string
  /** When this process took it (start or reload), ISO 8601. */
  loadedAt: string
}

export interface LiveSnapshot {
  /** The whole config of this version; never changed once published. */
  readonly config: Config
  readonly version: ConfigVersion
}

export interface LiveConfig {
  readonly current: LiveSnapshot
  /** The view the running parts read (see above). */
  readonly config: Config
  /** Publishes `next`: one assignment, so every reader sees the old snapshot or the new one. */
  swap(next: LiveSnapshot): void
}

/** The sections a reload may change (./plan.ts). */
const LIVE_SECTIONS = ['networks', 'credits', 'log'] as const

export function createLiveConfig(start: Config, loadedAt = new Date().toISOString()): LiveConfig {
  let current: LiveSnapshot = { config: start, version: { version: configVersion(start), loadedAt } }
  const plansNow = () => current.config.plans as Record<string, unknown>
  // Plan lookups happen per key snapshot load or account change, not per call: a Proxy costs nothing that matters.
  const plans = new Proxy({} as Config['plans'], {
    get: (_t, k) => (typeof k === 'string' ? plansNow()[k] : undefined),
    has: (_t, k) => k in plansNow(),
    ownKeys: () => Reflect.ownKeys(plansNow()),
    getOwnPropertyDescriptor: (_t, k) => {
      const d = Object.getOwnPropertyDescriptor(plansNow(), k)
      return d === undefined ? undefined : { ...d, configurable: true }
    },
    set: () => false,
    deleteProperty: () => false,
  })
  const view = { ...start } as Config
  for (const key of LIVE_SECTIONS)
    Object.defineProperty(view, key, { get: () => current.config[key], enumerable: true })
  Object.defineProperty(view, 'plans', { get: () => plans, enumerable: true })
  return {
    get current() {
      return current
    },
    config: view,
    swap(next) {
      current = next
    },
  }
}
