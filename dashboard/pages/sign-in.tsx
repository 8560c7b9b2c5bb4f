/**
 * Sign in with an account (email and password; the session is an HttpOnly cookie),
 * or, for operators, with the admin key, which stays in this tab's sessionStorage.
 * A tab opened while the cookie's session lives goes straight in.
 */
import { useEffect, useState } from "preact/hooks";
import { enter, HttpError, post } from "../api.ts";
import { ErrorBox, Field, PageTitle, useSubmit } from "../components.tsx";
import { navigate } from "../router.ts";
import * as session from "../session.ts";
import type { AccountMe, SignedIn } from "../../contract/api.ts";

export function SignIn() {
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  // Asked for once the password was right on an account with two-factor sign-in.
  const [code, setCode] = useState<string>();
  const asked = code !== undefined;
  // The form grew a field after a submit: take the keyboard there.
  useEffect(() => {
    if (asked) document.getElementById("code")?.focus();
  }, [asked]);
  const [key, setKey] = useState("");

  // Only where this browser signed in before: a visitor who never did gets no 401 in the console.
  useEffect(() => {
    if (!session.maybeSignedIn()) return;
    fetch("/account/v1/me", { headers: { Accept: "application/json" }, cache: "no-store" })
      .then((res) => (res.ok ? (res.json() as Promise<AccountMe>) : undefined))
      // A session that ended elsewhere: forget it, so the next visit does not ask again.
      .then((me) => (me ? enter(me) : session.clearSession()))
      .catch(() => undefined);
  }, []);

  const accountSignIn = useSubmit(async () => {
    try {
      enter(await post<SignedIn>("/account/v1/sign-in", { email: email.trim(), password, ...(code ? { code: code.trim() } : {}) }));
    } catch (err) {
      // Not a failure: the form asks for the code next.
      if (!(err instanceof HttpError && err.code === "TWO_FACTOR_REQUIRED")) throw err;
      setCode("");
    }
  });

  const operatorSignIn = useSubmit(async () => {
    try {
      const res = await fetch("/admin/v1/workspaces", { headers: { Authorization: `Bearer ${key.trim()}` }, cache: "no-store" });
      if (res.status === 401) throw new Error("That admin key was not accepted.");
      if (!res.ok) throw new HttpError(res.status, await res.json().catch(() => null));
      session.clearSession();
      session.setAdminKey(key.trim());
      navigate("/workspaces", true);
    } catch (err) {
      // fetch rejects with a TypeError when nothing answers at all.
      throw err instanceof TypeError ? new Error("The server could not be reached.") : err;
    }
  });
  // One sign-in at a time: both forms wait while either is under way.
  const busy = accountSignIn.busy || operatorSignIn.busy;

  return (
    <main id="main" class="narrow">
      <PageTitle>Sign in to Frameline</PageTitle>
      <form onSubmit={accountSignIn.submit} class="card" aria-label="Your account">
        <Field id="email" label="Email">
          {(a) => <input {...a} type="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
        </Field>
        <Field id="password" label="Password">
          {(a) => (
            <input {...a} type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
          )}
        </Field>
        {code !== undefined && (
          <Field id="code" label="Code" hint="The 6 digits your authenticator app shows now, or one of your recovery codes.">
            {(a) => <input {...a} autoComplete="one-time-code" inputMode="text" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />}
          </Field>
        )}
        <ErrorBox error={accountSignIn.error} />
        <button type="submit" disabled={busy || !email.trim() || !password || code === ""}>
          {busy ? "Logging in…" : "Log in"}
        </button>
      </form>
      <h2>Operators</h2>
      <p>
        The operator's admin key (<code>ADMIN_KEY</code>, or the contents of <code>DATA_DIR/admin.key</code>) opens every workspace. It is kept only in this
        browser tab.
      </p>
      <form onSubmit={operatorSignIn.submit} class="card" aria-label="Operator">
        <Field id="admin-key" label="Admin key">
          {(a) => <input {...a} type="password" autoComplete="off" required value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <ErrorBox error={operatorSignIn.error} />
        <button type="submit" disabled={busy || !key.trim()}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
