/**
 * Teams with roles (src/accounts/teams; docs/dashboard.md, "Teams").
 * A team is the billing entity that owns keys, usage, alerts and the request explorer's rows: those tables keep their
 * `account_id` column, which now names the owning team. Every team has a row in `accounts` under the same id (its
 * plan, disabled and deleted state, which the gateway's key snapshot already reads); `accounts.kind` tells a person
 * ('person', who logs in) from a team's billing row ('team', created with a shared team; no email, no password).
 * - A person's own team ("personal team") has the person's account id, so every existing account becomes a team of
 *   one, owner, without moving a single key, usage row or alert: the migration only adds rows.
 * - teams: the name and state of each team; team_members: who belongs with which role.
 * - team_invitations: an invitation (single use, expiring) for one email and role; its link's token is a link token
 *   (table link_tokens, 0800) of purpose 'invite' naming the invitation's id.
 */
import { type Kysely, sql } from 'kysely'
import { intType } from '../dialect.ts'

export async function up(db: Kysely<any>): Promise<void> {
  const int = intType(db)
  await db.schema
    .alterTable('accounts')
    .addColumn('kind', 'text', (c) => c.notNull().defaultTo('person'))
    .execute()
  await db.schema
    .createTable('teams')
    .addColumn('id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('deleted_at', int)
    .execute()
  await db.schema
    .createTable('team_members')
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('role', 'text', (c) => c.notNull()) // 'owner' | 'admin' | 'developer' | 'viewer'
    .addColumn('created_at', int, (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'account_id'])
    .execute()
  await db.schema.createIndex('team_members_account').on('team_members').column('account_id').execute()
  await db.schema
    .createTable('team_invitations')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('team_id', 'text', (c) => c.notNull().references('teams.id'))
    .addColumn('email', 'text', (c) => c.notNull())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('invited_by', 'text', (c) => c.notNull())
    .addColumn('created_at', int, (c) => c.notNull())
    .addColumn('expires_at', int, (c) => c.notNull())
    .addColumn('accepted_at', int)
    .addColumn('accepted_by', 'text')
    .addColumn('revoked_at', int)
    .execute()
  await db.schema.createIndex('team_invitations_team').on('team_invitations').column('team_id').execute()

  // Every live account becomes a team of one under its own id, its person the owner.
  await sql`insert into teams (id, name, created_at)
    select id, email, created_at from accounts where deleted_at is null`.execute(db)
  await sql`insert into team_members (team_id, account_id, role, created_at)
    select id, id, 'owner', created_at from accounts where deleted_at is null`.execute(db)
}

export async function down(): Promise<void> {
  throw new Error('migrations are append-only')
}
