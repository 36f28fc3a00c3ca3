/**
 * The team page: the current team's members and their roles, pending invitations, the invitation form, and the
 * forms to rename, leave, delete a team or create another (each shown only to a role allowed to use it; the routes
 * check again, src/dashboard/routes/teams.ts). And the page an invitation link opens.
 */
import type { Invitation } from '../../accounts/teams/invitations.ts'
import type { Member, Team } from '../../accounts/teams/repository.ts'
import { can, canGrant, TEAM_ROLES, type TeamRole } from '../../accounts/teams/roles.ts'
import { html, type SafeHtml } from '../../shared/html.ts'
import { csrfField, layout, type PageContext } from './layout.ts'

const roleOptions = (roles: readonly TeamRole[], selected: TeamRole) =>
  roles.map((r) => html`<option value="${r}"${r === selected ? html` selected` : ''}>${r}</option>`)

const post = (ctx: PageContext, action: string, body: SafeHtml | string, cls = 'inline') =>
  html`<form method="post" action="${action}" class="${cls}">${csrfField(ctx.csrfToken)}${body}</form>`

export function teamPage(
  ctx: PageContext,
  data: { team: Team; role: TeamRole; accountId: string; members: Member[]; invitations: Invitation[] },
): string {
  const { team, role } = data
  const grantable = TEAM_ROLES.filter((r) => canGrant(role, r))
  const manage = can(role, 'members.manage')
  const rows = data.members.map((m) => {
    const id = encodeURIComponent(m.accountId)
    const controls = manage
      ? html`${post(
          ctx,
          `/team/members/${id}/role`,
          html`<label class="sr-only" for="role-${m.accountId}">Role of ${m.email}</label>
          <select id="role-${m.accountId}" name="role">${roleOptions(TEAM_ROLES, m.role)}</select>
          <button type="submit" class="small">Change role</button>`,
        )}${
          m.accountId === data.accountId
            ? ''
            : post(ctx, `/team/members/${id}/remove`, html`<button type="submit" class="small danger">Remove</button>`)
        }`
      : ''
    return html`<tr><td data-label="Email">${m.email}${m.accountId === data.accountId ? ' (you)' : ''}</td>
      <td data-label="Role"><span class="badge">${m.role}</span></td><td>${controls}</td></tr>`
  })
  const invitations = data.invitations.map(
    (i) => html`<tr><td data-label="Email">${i.email}</td><td data-label="Role">${i.role}</td>
      <td data-label="Expires">${new Date(i.expiresAt).toISOString().slice(0, 16).replace('T', ' ')} UTC</td><td>${
        manage
          ? post(ctx, `/team/invitations/${i.id}/revoke`, html`<button type="submit" class="small">Revoke</button>`)
          : ''
      }</td></tr>`,
  )
  return layout(
    `Team ${team.name}`,
    ctx,
    html`<section class="card" aria-labelledby="members-h"><h2 id="members-h">Members</h2>
      <p class="muted">Your role: <strong>${role}</strong>. Plan: ${team.plan}.${
        team.personal ? ' This is your personal team.' : ''
      }</p>
      <div class="table-wrap"><table class="stack" id="members"><thead><tr><th>Email</th><th>Role</th><th></th></tr>
      </thead><tbody>${rows}</tbody></table></div></section>
      ${
        grantable.length > 0
          ? html`<section class="card" aria-labelledby="invite-h"><h2 id="invite-h">Invite a member</h2>
      ${post(
        ctx,
        '/team/invite',
        html`<div><label for="invite-email">Email</label>
        <input id="invite-email" name="email" type="email" maxlength="320" required></div>
        <div><label for="invite-role">Role</label><select id="invite-role" name="role">${roleOptions(
          grantable,
          grantable.includes('developer') ? 'developer' : grantable[0]!,
        )}</select></div><button type="submit">Send invitation</button>`,
        'row',
      )}
      <p class="muted">The invitation is a link by email. Someone without an account signs up with that address
      first; someone with one logs in as it and accepts.</p>
      ${
        invitations.length > 0
          ? html`<h3>Pending invitations</h3><div class="table-wrap"><table class="stack" id="invitations"><thead>
      <tr><th>Email</th><th>Role</th><th>Expires</th><th></th></tr></thead><tbody>${invitations}</tbody></table>
      </div>`
          : ''
      }</section>`
          : ''
      }
      ${
        can(role, 'settings.manage') && !team.personal
          ? html`<section class="card" aria-labelledby="rename-h"><h2 id="rename-h">Team name</h2>${post(
              ctx,
              '/team/rename',
              html`<div><label for="team-name">Name</label><input id="team-name" name="name" maxlength="64" required
              value="${team.name}"></div><button type="submit">Rename</button>`,
              'row',
            )}</section>`
          : ''
      }
      <section class="card" aria-labelledby="new-team-h"><h2 id="new-team-h">Create a team</h2>${post(
        ctx,
        '/teams',
        html`<div><label for="new-team">Name</label><input id="new-team" name="name" maxlength="64" required></div>
        <button type="submit">Create team</button>`,
        'row',
      )}<p class="muted">You become its owner; its keys, usage and alerts are its own.</p></section>
      ${
        team.personal
          ? ''
          : html`<section class="card" aria-labelledby="leave-h"><h2 id="leave-h">Leave or delete</h2>${post(
              ctx,
              '/team/leave',
              html`<button type="submit">Leave this team</button>`,
            )}${
              can(role, 'team.own')
                ? post(
                    ctx,
                    '/team/delete',
                    html`<label><input type="checkbox" name="confirm" value="yes"> Delete the team and revoke its
                    keys</label> <button type="submit" class="danger">Delete team</button>`,
                  )
                : ''
            }</section>`
      }`,
  )
}

/** What an invitation link shows: who invites to what, and the one way forward for this visitor. */
export function invitationPage(
  ctx: PageContext,
  data: { token: string; teamName: string; invitation: Invitation; state: 'anonymous' | 'other-account' | 'ready' },
): string {
  const { invitation: i, token } = data
  const here = `/invite/${token}`
  const next = encodeURIComponent(here)
  const body =
    data.state === 'ready'
      ? post(ctx, `${here}/accept`, html`<button type="submit">Join ${data.teamName} as ${i.role}</button>`, 'row')
      : data.state === 'other-account'
        ? html`<p class="flash error">This invitation is for ${i.email}; you are logged in with another address.
          Log out and log in as ${i.email} to accept it.</p>`
        : html`<p>Have an account with ${i.email}? <a href="/login?next=${next}">Log in</a> to accept.
          No account yet? <a href="/signup?invite=${token}">Sign up</a> with ${i.email}: you join the team as you
          sign up.</p>`
  return layout(
    'Team invitation',
    ctx,
    html`<section class="card"><p>You are invited to join the team <strong>${data.teamName}</strong> as
      <strong>${i.role}</strong>.</p>${body}</section>`,
  )
}
