/**
 * How the app plugs key security into the gateway (src/app.ts `AppOptions.security`):
 *   startApp({ config, security: keySecurityOptions({ jwtAudience: config.dashboard.jwtAudience }), … })
 * `load` runs on every settings_version change (the key snapshot reload); `check` once per request.
 */
import type { SecurityLoader } from '../snapshot.ts'
import type { AccessCheck } from '../../gateway/types.ts'
import { evaluateKeyAccess } from './evaluate.ts'
import { loadAllKeySecurity } from './repository.ts'

export function keySecurityOptions(opts: { jwtAudience: string; clock?: { now(): number } }): {
  load: SecurityLoader
  check: AccessCheck
} {
  const clock = opts.clock ?? Date
  return {
    load: loadAllKeySecurity,
    check: (security, request) => evaluateKeyAccess(security, request, { jwtAudience: opts.jwtAudience, now: clock.now() }),
  }
}
