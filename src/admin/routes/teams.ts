/** Teams: list them and their members, move a key to a team (src/accounts/teams; docs/admin-api.md, "Teams"). */
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import { createTeamsRepository } from '../../accounts/teams/repository.ts'
import { errors } from '../../errors/index.ts'
import type { Admin } from '../context.ts'
import { routeSchema } from '../route-schema.ts'
import { IdParams, MoveKey, Team, TeamMember } from '../schemas.ts'

const tag = 'teams'
type Id = { Params: z.infer<typeof IdParams> }

export function registerTeamRoutes(app: FastifyInstance, admin: Admin): void {
  const teams = createTeamsRepository(admin.deps.db)
  app.get(
    '/teams',
    { schema: routeSchema({ tag, summary: 'list teams', response: z.object({ teams: z.array(Team) }) }) },
    async () => ({ teams: await teams.list() }),
  )
  app.get<Id>(
    '/teams/:id/members',
    {
      schema: routeSchema({
        tag,
        summary: "a team's members and their roles",
        params: IdParams,
        response: z.object({ members: z.array(TeamMember) }),
      }),
    },
    async (req) => {
      if (!(await teams.get(req.params.id))) throw errors.notFound(`team ${req.params.id}`)
      admin.note(req, { target: req.params.id })
      return { members: await teams.members(req.params.id) }
    },
  )
  app.post<Id & { Body: z.infer<typeof MoveKey> }>(
    '/keys/:id/move',
    {
      schema: routeSchema({
        tag,
        summary: 'move a key to a team (its past usage stays with the team it was used by)',
        params: IdParams,
        body: MoveKey,
        response: z.object({ keyId: z.string(), from: z.string(), teamId: z.string() }),
      }),
    },
    async (req) => {
      const k = await admin.key(req.params.id)
      const { from } = await teams.moveKey(k.id, req.body.teamId)
      admin.note(req, { target: k.id, summary: `key moved from team ${from} to team ${req.body.teamId}` })
      await admin.deps.refreshKeys?.()
      return { keyId: k.id, from, teamId: req.body.teamId }
    },
  )
}
