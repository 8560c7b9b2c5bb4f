/** Accept an invite: the link's secret is after `#` (never sent to the server in a URL); a new account picks its password here. */
import { useState } from "preact/hooks";
import { ErrorBox, Field, PageTitle, fieldErrors, useSubmit } from "../components.tsx";
import { enter, post } from "../api.ts";
import type { SignedIn } from "../../contract/api.ts";

export function Join() {
  const token = location.hash.slice(1);
  const [password, setPassword] = useState("");
  const {
    submit: join,
    error,
    busy,
  } = useSubmit(async () => {
    enter(await post<SignedIn>("/account/v1/invites/accept", { token, password }));
  });

  const errors = fieldErrors(error).password;
  return (
    <main id="main" class="narrow">
      <PageTitle>Join your team on Frameline</PageTitle>
      {!token ? (
        <p role="alert">This invite link is incomplete: open the whole link you were sent.</p>
      ) : (
        <form onSubmit={join} class="card">
          <Field
            id="join-password"
            label="Password"
            errors={errors}
            hint="New here: choose a password of at least 10 characters that is not a common one. Already have an account: your password."
          >
            {(a) => <input {...a} type="password" autoComplete="new-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />}
          </Field>
          <ErrorBox error={errors ? undefined : error} />
          <button type="submit" disabled={busy || !password}>
            {busy ? "Joining…" : "Join"}
          </button>
        </form>
      )}
    </main>
  );
}
