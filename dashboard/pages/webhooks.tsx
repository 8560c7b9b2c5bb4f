/** Webhook subscriptions (docs/api.md "Webhook subscriptions"): list, create, test, delete. */
import { useState } from "preact/hooks";
import { HttpError, call } from "../api.ts";
import { CopyButton, ErrorBox, Field, PageTitle, fieldErrors, formatDate, useAsync, FormEnd } from "../components.tsx";
import type { Webhook as Hook, WebhookCreated, WebhookDelivered, WebhookList } from "../../contract/api.ts";

/** Why a test was not delivered: the 502's `error` (WebhookNotDelivered); a proxy's own 502 says nothing. */
function notDelivered(body: unknown): string {
  const error = body && typeof body === "object" && "error" in body ? body.error : undefined;
  return typeof error === "string" ? error : "the endpoint did not answer";
}

const randomSecret = () => {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
};

export function Webhooks() {
  const list = useAsync((signal) => call<WebhookList>("GET", "/webhooks", { signal }), []);
  const [results, setResults] = useState<Record<number, { ok: boolean; text: string }>>({});
  const [error, setError] = useState<unknown>();

  const test = async (h: Hook) => {
    setResults((r) => ({ ...r, [h.id]: { ok: true, text: "Sending…" } }));
    try {
      const res = await call<WebhookDelivered>("POST", `/webhooks/${h.id}/test`);
      setResults((r) => ({ ...r, [h.id]: { ok: true, text: `Delivered: the endpoint answered ${res.status_code}.` } }));
    } catch (err) {
      const text = err instanceof HttpError && err.status === 502 ? `Not delivered: ${notDelivered(err.body)}` : (err as Error).message;
      setResults((r) => ({ ...r, [h.id]: { ok: false, text } }));
    }
  };

  const remove = async (h: Hook) => {
    if (!confirm(`Delete the webhook "${h.name}"?`)) return;
    setError(undefined);
    try {
      await call("DELETE", `/webhooks/${h.id}`);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };

  return (
    <section>
      <PageTitle>Webhooks</PageTitle>
      <div class="grid-2">
        <section class="card" aria-labelledby="wh-title">
          <h2 id="wh-title">Subscriptions</h2>
          <ErrorBox error={list.error || error} />
          {list.data && list.data.webhooks.length === 0 && <p>No webhooks yet.</p>}
          <ul class="hooks">
            {list.data?.webhooks.map((h) => (
              <li key={h.id} class="hook">
                <h3>{h.name}</h3>
                <p class="mono small break">{h.url}</p>
                <ul class="chips">
                  {h.events.map((e) => (
                    <li key={e}>{e}</li>
                  ))}
                </ul>
                <p class="muted small">
                  {h.is_active ? "Active" : "Inactive"} · {h.failure_count} failed deliver{h.failure_count === 1 ? "y" : "ies"} · created{" "}
                  {formatDate(h.created_at)}
                </p>
                <div class="row">
                  <button type="button" class="secondary" onClick={() => test(h)} aria-label={`Send a test to ${h.name}`}>
                    Send test
                  </button>
                  <button type="button" class="danger" onClick={() => remove(h)} aria-label={`Delete ${h.name}`}>
                    Delete
                  </button>
                </div>
                {results[h.id] && (
                  <p class={results[h.id].ok ? "notice" : "error"} role="status" data-test-result>
                    {results[h.id].text}
                  </p>
                )}
              </li>
            ))}
          </ul>
        </section>
        {list.data && <CreateHook events={list.data.supported_events} onCreated={list.reload} />}
      </div>
    </section>
  );
}

function CreateHook({ events, onCreated }: { events: string[]; onCreated: () => void }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [chosen, setChosen] = useState<string[]>([]);
  const [secret, setSecret] = useState(randomSecret);
  const [error, setError] = useState<unknown>();
  const [created, setCreated] = useState<{ name: string; secret: string }>();
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    if (!chosen.length) return setError(new HttpError(422, { message: "Choose at least one event.", errors: { events: ["Choose at least one event."] } }));
    setBusy(true);
    try {
      const { webhook } = await call<WebhookCreated>("POST", "/webhooks", {
        body: { name: name.trim(), url: url.trim(), events: chosen, ...(secret ? { secret } : {}) },
      });
      setCreated({ name: webhook.name, secret });
      setName("");
      setUrl("");
      setChosen([]);
      setSecret(randomSecret());
      onCreated();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const errs = fieldErrors(error);
  const eventErr = Object.entries(errs)
    .filter(([k]) => k.startsWith("events"))
    .flatMap(([, v]) => v);
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-wh-title">
      <h2 id="new-wh-title">New webhook</h2>
      {created && (
        <div class="secret" role="status">
          <p>Created "{created.name}". Its signing secret is never shown by the API; keep this copy:</p>
          <div class="row">
            <input class="mono grow" readOnly value={created.secret} aria-label="Signing secret" />
            <CopyButton text={created.secret} label="Copy secret" />
          </div>
        </div>
      )}
      <Field id="wh-name" label="Name" errors={errs.name}>
        {(a) => <input {...a} required maxLength={128} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field id="wh-url" label="URL" errors={errs.url}>
        {(a) => (
          <input
            {...a}
            type="url"
            required
            maxLength={2048}
            value={url}
            onInput={(e) => setUrl(e.currentTarget.value)}
            placeholder="https://example.com/hooks/frameline"
          />
        )}
      </Field>
      <fieldset class={eventErr.length ? "invalid" : ""}>
        <legend>Events</legend>
        <div class="checks-grid">
          {events.map((ev) => (
            <div class="check" key={ev}>
              <input
                type="checkbox"
                id={`ev-${ev}`}
                checked={chosen.includes(ev)}
                onChange={(e) => setChosen((c) => (e.currentTarget.checked ? [...c, ev] : c.filter((x) => x !== ev)))}
              />
              <label for={`ev-${ev}`}>
                <code>{ev}</code>
              </label>
            </div>
          ))}
        </div>
        {eventErr.length > 0 && <small class="field-error">{eventErr.join(" ")}</small>}
      </fieldset>
      <Field
        id="wh-secret"
        label="Signing secret"
        hint="16 to 128 characters. Generated here so you can keep a copy; the API never returns it."
        errors={errs.secret}
      >
        {(a) => (
          <div class="row tight">
            <input {...a} class="mono grow" minLength={16} maxLength={128} value={secret} onInput={(e) => setSecret(e.currentTarget.value)} />
            <button type="button" class="secondary" onClick={() => setSecret(randomSecret())}>
              New
            </button>
          </div>
        )}
      </Field>
      <FormEnd error={error} label="Create webhook" busy={busy} busyLabel="Creating…" />
    </form>
  );
}
