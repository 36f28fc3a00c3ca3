/**
 * `POST /admin/v1/reload`: every running chaingate process re-reads its config file and applies it in place, as
 * `chaingate reload` does (the same reach: every process of every replica over Redis, else this data dir's processes;
 * src/app/reload/reach.ts), so a call through the balancer does not leave the other replicas on the old config. The
 * answer lists each process's outcome. Without a live reload in this process the answer is 503, saying so. A reload
 * some process refused (an invalid file, a setting that cannot change live) or that a process did not answer is 422
 * with the reasons and the outcomes; a process that refused changed nothing.
 */
import type { FastifyInstance } from 'fastify'
import { ChaingateError, errors } from '../../errors/index.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { AnyObject } from '../schemas.ts'

export function registerReloadRoutes(app: FastifyInstance, admin: Admin): void {
  app.post(
    '/reload',
    {
      schema: routeSchema({
        tag: 'reload',
        operationId: 'reloadConfig',
        summary: 're-read the config and apply it live on every process of every replica',
        response: AnyObject,
      }),
    },
    async () => {
      const reload = admin.deps.reload
      if (!reload) throw errors.notAvailable('reload is not available in this process')
      const result = await reload()
      if (result.ok) return result
      // Not applied everywhere: 422 naming each refusal, as `chaingate reload` exits non-zero.
      const why = result.processes.filter((p) => !p.ok).map((p) => `${p.process}: ${p.error ?? 'not applied'}`)
      const missing = result.expected - result.processes.length
      if (missing > 0) why.push(`${missing} of ${result.expected} processes did not answer`)
      throw new ChaingateError('INVALID_INPUT', `config: ${why.join('; ') || 'not applied'}`, {
        httpStatus: 422,
        data: { field: 'config', processes: result.processes, expected: result.expected },
      })
    },
  )
}
