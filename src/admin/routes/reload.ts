/**
 * `POST /admin/v1/reload`: re-read the config file and apply it in place, as `chaingate reload` and SIGHUP do. The
 * process wires the reload in (AdminDeps.reload); without one the answer is 503, saying so. A reload the process
 * refuses (an invalid file, a setting that cannot change live) is 422 with the reason, and nothing changed.
 */
import type { FastifyInstance } from 'fastify'
import { errors } from '../../errors/index.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { AnyObject } from '../schemas.ts'

export function registerReloadRoutes(app: FastifyInstance, admin: Admin): void {
  app.post(
    '/reload',
    { schema: routeSchema({ tag: 'reload', summary: 're-read the config and apply it live', response: AnyObject }) },
    async () => {
      const reload = admin.deps.reload
      if (!reload) throw errors.notAvailable('reload is not available in this process')
      const result = await reload()
      // A config that cannot apply changed nothing: 422 naming the setting, as `chaingate reload` exits non-zero.
      const refused = result as { ok?: unknown; error?: unknown } | null
      if (refused?.ok === false)
        throw errors.invalidInput('config', typeof refused.error === 'string' ? refused.error : 'not applied')
      return typeof result === 'object' && result !== null ? result : { status: 'reloaded' }
    },
  )
}
