/**
 * Team roles and what each may do: the one table every dashboard route and the invitation forms check
 * (src/dashboard/middleware/team.ts). docs/dashboard.md, "Teams", lists it for users.
 */

export type TeamRole = 'owner' | 'admin' | 'developer' | 'viewer'
/** Highest first. */
export const TEAM_ROLES: readonly TeamRole[] = ['owner', 'admin', 'developer', 'viewer']

export type Permission =
  /** See the team's keys (not their secrets), usage, alerts, request explorer and members. */
  | 'team.read'
  /** Create keys and read a key's value to use it. */
  | 'keys.use'
  /** Change a key's networks, security, limits, name; revoke it. */
  | 'keys.manage'
  /** The team's usage alerts and name. */
  | 'settings.manage'
  /** Invite members (only to roles below one's own, see `canGrant`). */
  | 'members.invite'
  /** Change roles, remove members, revoke invitations. */
  | 'members.manage'
  /** The team's plan and deleting the team. */
  | 'team.own'

const GRANTS: Record<TeamRole, readonly Permission[]> = {
  owner: ['team.read', 'keys.use', 'keys.manage', 'settings.manage', 'members.invite', 'members.manage', 'team.own'],
  admin: ['team.read', 'keys.use', 'keys.manage', 'settings.manage', 'members.invite'],
  developer: ['team.read', 'keys.use'],
  viewer: ['team.read'],
}

export const isTeamRole = (v: unknown): v is TeamRole => typeof v === 'string' && TEAM_ROLES.includes(v as TeamRole)

export function can(role: TeamRole, permission: Permission): boolean {
  return GRANTS[role].includes(permission)
}

/**
 * May a member with role `actor` give someone role `role` (by invitation or a role change)? Owners give any role;
 * an admin gives developer or viewer; nobody else gives any. So no one raises anyone, themself included, above
 * their own rank, and only an owner makes an owner.
 */
export function canGrant(actor: TeamRole, role: TeamRole): boolean {
  if (actor === 'owner') return true
  if (!can(actor, 'members.invite')) return false
  return TEAM_ROLES.indexOf(role) > TEAM_ROLES.indexOf(actor)
}
