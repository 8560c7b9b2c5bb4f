/**
 * Workspace picker: choose one (the dashboard mints its own token for it). An
 * account sees the workspaces it is a member of, with its role; an operator sees
 * them all and may create one.
 */
import { useState } from "preact/hooks";
import { account, admin, ensureToken, signOut } from "../api.ts";
import { ErrorBox, Field, PageTitle, fieldErrors, formatDate, useAsync } from "../components.tsx";
import { navigate } from "../router.ts";
import * as session from "../session.ts";
import type { AccountMe, WorkspaceCreated, WorkspaceList } from "../../contract/api.ts";

/** The account's memberships (refreshing its CSRF token), or every workspace for the operator. */
async function choices(signal: AbortSignal): Promise<{ workspaces: session.Workspace[] }> {
  const signedIn = session.account();
  if (!signedIn) return admin<WorkspaceList>("GET", "/workspaces", { signal });
  const me = await account<AccountMe>("GET", "/me", { signal });
  session.setAccount({ email: me.user.email, csrf: me.csrf_token });
  return me;
}

export function Workspaces() {
  const list = useAsync(choices, []);
  const operator = !session.account();
  const [name, setName] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const current = session.workspace();

  const open = async (w: session.Workspace) => {
    setBusy(true);
    setError(undefined);
    try {
      await ensureToken(w.id);
      session.setWorkspace(w);
      navigate("/videos");
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const create = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const { workspace } = await admin<WorkspaceCreated>("POST", "/workspaces", { body: { name: name.trim() } });
      setName("");
      await open(workspace);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  const out = async () => {
    await signOut();
    navigate("/", true);
  };

  return (
    <main id="main" class="narrow">
      <PageTitle>Choose a workspace</PageTitle>
      {list.error ? <ErrorBox error={list.error} /> : null}
      {list.loading && !list.data ? <p>Loading workspaces…</p> : null}
      {list.data && (
        <ul class="picker" aria-label="Workspaces">
          {list.data.workspaces.map((w) => (
            <li key={w.id}>
              <button type="button" class="pick" disabled={busy} onClick={() => open(w)} aria-current={current?.id === w.id ? "true" : undefined}>
                <strong>{w.name}</strong>
                <small>
                  #{w.id} · {w.role ? `your role: ${w.role}` : `created ${formatDate(w.created_at)}`}
                </small>
              </button>
            </li>
          ))}
          {list.data.workspaces.length === 0 && (
            <li>
              {operator ? "No workspaces yet. Create the first one below." : "You are not a member of any workspace yet: ask an owner for an invite link."}
            </li>
          )}
        </ul>
      )}
      {operator && (
        <form onSubmit={create} class="card">
          <h2>New workspace</h2>
          <Field id="ws-name" label="Workspace name" errors={fieldErrors(error).name}>
            {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
          </Field>
          <button type="submit" disabled={busy || !name.trim()}>
            Create workspace
          </button>
        </form>
      )}
      <ErrorBox error={error && !Object.keys(fieldErrors(error)).length ? error : undefined} />
      <p>
        <button type="button" class="link" onClick={out}>
          Sign out
        </button>
      </p>
    </main>
  );
}
