/**
 * Team (owners): the members and their roles, invites by link, removal, and the
 * audit list of sign-ins and changes (docs/api.md "Dashboard accounts").
 */
import { useEffect, useState } from "preact/hooks";
import { account } from "../api.ts";
import {
  ActionCell,
  OneTimeSecret,
  ErrorBox,
  Field,
  FormEnd,
  PageTitle,
  Select,
  DataTable,
  fieldErrors,
  formatDate,
  useAsync,
  useSubmit,
} from "../components.tsx";
import * as session from "../session.ts";
import { ALL_ROLES, Roles, type Role } from "../../contract/roles.ts";
import type { AuditList, InviteCreated, Member, Team as TeamBody } from "../../contract/api.ts";

const ROLE_OPTIONS = ALL_ROLES.map((r) => ({ v: r, l: `${r}: ${Roles[r].may}` }));

export function Team() {
  const ws = session.workspace()!;
  const me = session.account();
  const team = useAsync((signal) => (me ? account<TeamBody>("GET", `/workspaces/${ws.id}/members`, { signal }) : Promise.resolve(undefined)), [ws.id]);
  const audit = useAsync((signal) => (me ? account<AuditList>("GET", `/workspaces/${ws.id}/audit`, { signal }) : Promise.resolve(undefined)), [ws.id]);
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("analyst");
  const [link, setLink] = useState<{ email: string; url: string; emailed: boolean }>();
  const {
    submit: invite,
    error,
    setError,
    busy,
  } = useSubmit(async () => {
    const created = await account<InviteCreated>("POST", `/workspaces/${ws.id}/invites`, { body: { email: email.trim(), role } });
    setLink({ email: created.invite.email, url: created.url, emailed: created.emailed });
    setEmail("");
    team.reload();
    audit.reload();
  });
  useEffect(() => {
    if (link) document.getElementById("invite-link")?.focus();
  }, [link]);

  if (!me) {
    return (
      <section>
        <PageTitle>Team</PageTitle>
        <p>The team belongs to accounts: sign in with an account (not the admin key) to invite and manage members.</p>
      </section>
    );
  }

  const remove = async (m: Member) => {
    if (!confirm(`Remove ${m.email} from this workspace? Their dashboard stops working here at once.`)) return;
    setError(undefined);
    try {
      await account("DELETE", `/workspaces/${ws.id}/members/${m.user_id}`);
      team.reload();
      audit.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section class="stack">
      <PageTitle>Team</PageTitle>
      {link && (
        <section class="card secret" aria-labelledby="invite-title">
          <h2 id="invite-title">Invite link for {link.email}</h2>
          <p>
            {link.emailed ? `We emailed this link to ${link.email}; you can also send it yourself.` : "Send this link to them."} It is shown only now, works
            once and expires in 7 days.
          </p>
          <OneTimeSecret id="invite-link" label="Invite link" value={link.url} copyLabel="Copy link" />
        </section>
      )}

      <form onSubmit={invite} class="card" aria-labelledby="invite-form-title">
        <h2 id="invite-form-title">Invite someone</h2>
        <Field id="invite-email" label="Their email" errors={fieldErrors(error).email}>
          {(a) => <input {...a} type="email" required maxLength={254} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
        </Field>
        <Select id="invite-role" label="Role" value={role} options={ROLE_OPTIONS} onChange={(v) => setRole(v as Role)} errors={fieldErrors(error).role} />
        <FormEnd error={error} label="Create invite link" busy={busy} busyLabel="Creating…" disabled={!email.trim()} />
      </form>

      <section class="card" aria-labelledby="members-title">
        <h2 id="members-title">Members</h2>
        <ErrorBox error={team.error} />
        {team.data && (
          <DataTable text={["Email", "Role", "Member since"]} actions>
            {team.data.members.map((m) => (
              <tr key={m.user_id}>
                <td>
                  {m.email}
                  {m.email === me.email && <small class="tag">you</small>}
                </td>
                <td>{m.role}</td>
                <td>{formatDate(m.created_at)}</td>
                <ActionCell label="Remove" name={`Remove ${m.email}`} onClick={() => remove(m)} danger />
              </tr>
            ))}
          </DataTable>
        )}
        {team.data && team.data.invites.length > 0 && (
          <>
            <h3>Open invites</h3>
            <ul>
              {team.data.invites.map((i) => (
                <li key={i.id}>
                  {i.email} as {i.role}, until {formatDate(i.expires_at)}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>

      <section class="card" aria-labelledby="audit-title">
        <h2 id="audit-title">Audit list</h2>
        <ErrorBox error={audit.error} />
        {audit.data && (
          <DataTable text={["When", "Who", "What", "Details"]}>
            {audit.data.entries.map((e) => (
              <tr key={e.id}>
                <td>{formatDate(e.created_at)}</td>
                <td>{e.actor}</td>
                <td>{e.action}</td>
                <td>
                  {Object.entries(e.detail)
                    .map(([k, v]) => `${k}: ${String(v)}`)
                    .join(", ")}
                </td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>
    </section>
  );
}
