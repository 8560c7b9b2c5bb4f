/** Sign in with the operator's admin key; it stays in this tab's sessionStorage. */
import { useState } from "preact/hooks";
import { HttpError } from "../api.ts";
import { ErrorBox, Field, PageTitle, useSubmit } from "../components.tsx";
import { navigate } from "../router.ts";
import * as session from "../session.ts";

export function SignIn() {
  const [key, setKey] = useState("");
  const { submit, error, busy } = useSubmit(async () => {
    try {
      const res = await fetch("/admin/v1/workspaces", { headers: { Authorization: `Bearer ${key.trim()}` }, cache: "no-store" });
      if (res.status === 401) throw new Error("That admin key was not accepted.");
      if (!res.ok) throw new HttpError(res.status, await res.json().catch(() => null));
      session.setAdminKey(key.trim());
      navigate("/workspaces", true);
    } catch (err) {
      // fetch rejects with a TypeError when no answer came back at all.
      throw err instanceof TypeError ? new Error("The server could not be reached.") : err;
    }
  });

  return (
    <main id="main" class="narrow">
      <PageTitle>Sign in to Frameline</PageTitle>
      <p>
        Use the operator's admin key: <code>ADMIN_KEY</code>, or the contents of <code>DATA_DIR/admin.key</code>. It is kept only in this browser tab.
      </p>
      <form onSubmit={submit} class="card">
        <Field id="admin-key" label="Admin key">
          {(a) => <input {...a} type="password" autoComplete="current-password" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <ErrorBox error={error} />
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
