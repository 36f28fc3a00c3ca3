/** What `chaingate start` plugs into the app besides the gateway core: key security, the dashboard, the wallet. */
import type { AppOptions } from '../app.ts'
import type { Config } from '../config/schema.ts'
import { keySecurityOptions } from '../api-keys/security/wiring.ts'
import { dashboardPlugin } from '../dashboard/wiring.ts'
import { walletAppService } from '../wallet/wiring.ts'

export function appOptions(config: Config): AppOptions {
  return {
    config,
    security: keySecurityOptions({ jwtAudience: config.dashboard.jwtAudience }),
    plugins: [dashboardPlugin()],
    services: [walletAppService()],
  }
}
