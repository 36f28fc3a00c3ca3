/** What `chaingate start` plugs into the app besides the gateway core (key security, dashboard, wallet). */
import type { AppOptions } from '../app.ts'
import type { Config } from '../config/schema.ts'

export function appOptions(config: Config): AppOptions {
  return { config }
}
