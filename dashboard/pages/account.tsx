/** Your account: two-factor sign-in (an authenticator app, with recovery codes), on and off. */
import { useState } from "preact/hooks";
import { account } from "../api.ts";
import { ErrorBox, Field, FormEnd, PageTitle, fieldErrors, useAsync } from "../components.tsx";
import * as session from "../session.ts";
import type { AccountMe, TwoFactorEnabled, TwoFactorSetup } from "../../contract/api.ts";

export function Account() {
  const me = useAsync((signal) => account<AccountMe>("GET", "/me", { signal }), []);
  const [setup, setSetup] = useState<TwoFactorSetup>();
  const [codes, setCodes] = useState<string[]>();
  const [code, setCode] = useState("");
  const [password, setPassword] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);

  const act = async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
      me.reload();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const start = () => act(async () => setSetup(await account<TwoFactorSetup>("POST", "/two-factor/setup")));
  const enable = (e: Event) => (
    e.preventDefault(),
    act(async () => {
      setCodes((await account<TwoFactorEnabled>("POST", "/two-factor/enable", { body: { code: code.trim() } })).recovery_codes);
      setSetup(undefined);
      setCode("");
    })
  );
  const disable = (e: Event) => (
    e.preventDefault(),
    act(async () => {
      await account("POST", "/two-factor/disable", { body: { password } });
      setPassword("");
      setCodes(undefined);
    })
  );

  return (
    <section class="stack">
      <PageTitle>Your account</PageTitle>
      <p>Signed in as {session.account()?.email}.</p>
      <ErrorBox error={me.error} />
      {codes && (
        <section class="card secret" aria-labelledby="codes-title">
          <h2 id="codes-title">Your recovery codes</h2>
          <p>Keep them somewhere safe: each signs you in once without your phone. They are shown only now.</p>
          <ul class="mono" aria-label="Recovery codes">
            {codes.map((c) => (
              <li key={c}>{c}</li>
            ))}
          </ul>
        </section>
      )}
      {me.data && (
        <section class="card" aria-labelledby="tf-title">
          <h2 id="tf-title">Two-factor sign-in</h2>
          {me.data.two_factor ? (
            <form onSubmit={disable}>
              <p data-two-factor="on">On: signing in asks for a code from your authenticator app.</p>
              <Field id="tf-password" label="Your password, to turn it off" errors={fieldErrors(error).password}>
                {(a) => (
                  <input {...a} type="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} />
                )}
              </Field>
              <FormEnd error={error} label="Turn two-factor sign-in off" busy={busy} busyLabel="Turning off…" class="danger" />
            </form>
          ) : setup ? (
            <form onSubmit={enable}>
              <p>
                Add this key to your authenticator app (or open the <a href={setup.otpauth_url}>setup link</a> on your phone), then type the code it shows.
              </p>
              <p>
                Key: <code data-totp-secret>{setup.secret}</code>
              </p>
              <Field id="tf-code" label="Code from the app" errors={fieldErrors(error).code}>
                {(a) => <input {...a} autoComplete="one-time-code" inputMode="numeric" required value={code} onInput={(e) => setCode(e.currentTarget.value)} />}
              </Field>
              <FormEnd error={error} label="Turn two-factor sign-in on" busy={busy} busyLabel="Checking…" />
            </form>
          ) : (
            <>
              <p data-two-factor="off">Off: your password alone signs you in.</p>
              <ErrorBox error={error} />
              <button type="button" onClick={start} disabled={busy}>
                Set up two-factor sign-in
              </button>
            </>
          )}
        </section>
      )}
    </section>
  );
}
