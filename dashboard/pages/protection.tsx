/**
 * Playback protection (README "Playback protection"): a video's Protection form, and
 * the workspace's defaults and signing keys on the Settings page.
 */
import { useEffect, useState } from "preact/hooks";
import { call } from "../api.ts";
import { ActionCell, CopyButton, ErrorBox, Field, FormEnd, Notice, TableHead, fieldErrors, formatDate, useAsync, useSubmit } from "../components.tsx";
import type { PlaybackDefaultsRead, SigningKeyCreated, SigningKeyList, VideoRead } from "../../contract/api.ts";

type Rules = { allowed_origins: string[]; require_signed_urls: boolean; encryption?: "none" | "aes-128" };

const linesOf = (text: string) =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

/** The settings as one form, for a video (PATCH /videos/{id}, with encryption) or the workspace defaults. */
function RulesForm(props: { idPrefix: string; title: string; intro: string; rules: Rules; save(rules: Rules): Promise<Rules> }) {
  const [origins, setOrigins] = useState(props.rules.allowed_origins.join("\n"));
  const [signed, setSigned] = useState(props.rules.require_signed_urls);
  const [encryption, setEncryption] = useState(props.rules.encryption);
  const [saved, setSaved] = useState(false);
  const { submit, error, busy } = useSubmit(async () => {
    setSaved(false);
    const stored = await props.save({ allowed_origins: linesOf(origins), require_signed_urls: signed, ...(encryption && { encryption }) });
    setOrigins(stored.allowed_origins.join("\n"));
    setSigned(stored.require_signed_urls);
    setEncryption(stored.encryption);
    setSaved(true);
  });
  const id = props.idPrefix;
  return (
    <form class="card" onSubmit={submit} aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{props.title}</h2>
      <p class="muted">{props.intro}</p>
      <Field
        id={`${id}-origins`}
        label="Allowed sites"
        hint="One per line: shop.example.com (any port), localhost:3000 (that port), *.example.com (any subdomain). Empty: any site."
        errors={fieldErrors(error).allowed_origins}
      >
        {(a) => <textarea {...a} rows={4} value={origins} onInput={(e) => (setOrigins(e.currentTarget.value), setSaved(false))} />}
      </Field>
      <div class="field">
        <label>
          <input type="checkbox" checked={signed} onChange={(e) => (setSigned(e.currentTarget.checked), setSaved(false))} /> Require signed URLs
        </label>
        <small class="hint">Every playlist, segment and poster needs a token; the embed player gets one itself on an allowed site.</small>
      </div>
      {encryption && (
        <div class="field">
          <label>
            <input
              type="checkbox"
              checked={encryption === "aes-128"}
              onChange={(e) => (setEncryption(e.currentTarget.checked ? "aes-128" : "none"), setSaved(false))}
            />{" "}
            Encrypt the stream (AES-128)
          </label>
          <small class="hint">
            Segments are stored encrypted and the key goes only where the rules above allow. Turning it off keeps what is encrypted; the next upload is stored
            plain.
          </small>
        </div>
      )}
      {saved && <Notice>Saved.</Notice>}
      <FormEnd error={error} label="Save protection" busy={busy} busyLabel="Saving…" field="allowed_origins" />
    </form>
  );
}

/** A video's Protection form (its overview page). */
export function VideoProtection({ id, video }: { id: number; video: Rules }) {
  return (
    <RulesForm
      idPrefix="protect"
      title="Protection"
      intro="Which sites may play this video, whether its files need a signed token, and whether its stream is encrypted. Changes apply at once."
      rules={video}
      save={async (rules) => (await call<VideoRead>("PATCH", `/videos/${id}`, { body: rules })).video}
    />
  );
}

/** Settings → Playback protection: the defaults new videos start with, and the signing keys. */
export function PlaybackProtectionSettings() {
  const defaults = useAsync((signal) => call<PlaybackDefaultsRead>("GET", "/playback-defaults", { signal }), []);
  return (
    <div class="stack">
      {defaults.error ? <ErrorBox error={defaults.error} /> : null}
      {defaults.data && (
        <RulesForm
          idPrefix="defaults"
          title="Defaults for new videos"
          intro="Videos created from now on start with these; existing videos keep their own (change them on each video's page)."
          rules={defaults.data.playback_defaults}
          save={async (rules) => (await call<PlaybackDefaultsRead>("PATCH", "/playback-defaults", { body: rules })).playback_defaults}
        />
      )}
      <SigningKeys />
    </div>
  );
}

function SigningKeys() {
  const list = useAsync((signal) => call<SigningKeyList>("GET", "/signing-keys", { signal }), []);
  const [made, setMade] = useState<SigningKeyCreated["signing_key"]>();
  useEffect(() => {
    if (made) document.getElementById("new-key-secret")?.focus();
  }, [made]);
  const {
    submit: create,
    error,
    setError,
    busy,
  } = useSubmit(async () => {
    setMade((await call<SigningKeyCreated>("POST", "/signing-keys", { headers: { "Idempotency-Key": crypto.randomUUID() } })).signing_key);
    list.reload();
  });
  const revoke = async (keyId: string) => {
    if (!confirm("Revoke this key? Tokens it signed stop playing within 10 seconds.")) return;
    try {
      await call("DELETE", `/signing-keys/${keyId}`);
      if (made?.id === keyId) setMade(undefined);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={create} aria-labelledby="keys-title">
      <h2 id="keys-title">Signing keys</h2>
      <p class="muted">Your server mints playback tokens with a key, without calling Frameline (README "Signed URLs" shows how).</p>
      {made && (
        <Notice>
          Key <code>{made.id}</code>. Its secret is shown only now:{" "}
          <code id="new-key-secret" tabIndex={-1}>
            {made.secret}
          </code>{" "}
          <CopyButton text={made.secret} label="Copy secret" />
        </Notice>
      )}
      {list.data && list.data.data.length > 0 ? (
        <table>
          <TableHead text={["Key id", "Algorithm", "Created"]} actions />
          <tbody>
            {list.data.data.map((k) => (
              <tr key={k.id}>
                <td>
                  <code>{k.id}</code>
                </td>
                <td>{k.algorithm}</td>
                <td>{formatDate(k.created_at)}</td>
                <ActionCell label="Revoke" name={`Revoke key ${k.id}`} danger onClick={() => revoke(k.id)} />
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        list.data && <p>No signing keys yet.</p>
      )}
      <FormEnd error={error ?? list.error} label="Create a signing key" busy={busy} busyLabel="Creating…" />
    </form>
  );
}
