/** Settings: API tokens (docs/api.md "Authentication" 3), custom metrics, integrations and playback protection. */
import { useEffect, useState } from "preact/hooks";
import { admin } from "../api.ts";
import {
  OneTimeSecret,
  ErrorBox,
  Field,
  Link,
  Notice,
  PageTitle,
  fieldErrors,
  formatDate,
  useAsync,
  useSubmit,
  FormEnd,
  ActionCell,
  DataTable,
} from "../components.tsx";
import * as session from "../session.ts";
import { PlaybackProtectionSettings } from "./protection.tsx";
// The scope table is plain data shared with the server, so the two never drift apart.
import { Scopes } from "../../contract/scopes.ts";
import type { IntegrationList, MetricDeclared, MetricList, Token, TokenList, TokenMinted } from "../../contract/api.ts";

const TABS = [
  { id: "tokens", label: "API tokens" },
  { id: "metrics", label: "Custom metrics" },
  { id: "integrations", label: "Integrations" },
  { id: "protection", label: "Playback protection" },
];

export function Settings({ tab }: { tab: string }) {
  const ws = session.workspace()!;
  return (
    <section>
      <PageTitle>Settings</PageTitle>
      <nav aria-label="Settings" class="tabs">
        <ul>
          {TABS.map((t) => (
            <li key={t.id}>
              <Link href={`/settings/${t.id}`} aria-current={t.id === tab ? "page" : undefined}>
                {t.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {tab === "tokens" ? (
        <Tokens ws={ws.id} />
      ) : tab === "metrics" ? (
        <Metrics ws={ws.id} />
      ) : tab === "integrations" ? (
        <Integrations ws={ws.id} />
      ) : tab === "protection" ? (
        <PlaybackProtectionSettings />
      ) : (
        <p>Unknown settings page.</p>
      )}
    </section>
  );
}

function Tokens({ ws }: { ws: number }) {
  const list = useAsync((signal) => admin<TokenList>("GET", `/workspaces/${ws}/tokens`, { signal }), [ws]);
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<string[]>([]);
  const [expiry, setExpiry] = useState<"never" | "days">("days");
  const [days, setDays] = useState("90");
  const [minted, setMinted] = useState<{ name: string; secret: string }>();
  const own = session.sessionToken(ws)?.id;
  // Focus the one-time secret, so keyboard and screen-reader users land on it.
  useEffect(() => {
    if (minted) document.getElementById("new-secret")?.focus();
  }, [minted]);

  const toggle = (s: string, on: boolean) => setScopes((cur) => (on ? [...cur, s] : cur.filter((x) => x !== s)));
  const daysNum = Number(days);
  const daysValid = expiry === "never" || (Number.isInteger(daysNum) && daysNum >= 1 && daysNum <= 3650);

  const {
    submit: mint,
    error,
    setError,
    busy,
  } = useSubmit(async () => {
    if (!scopes.length) throw new Error("Choose at least one scope.");
    if (!daysValid) throw new Error("Expiry must be a whole number of days from 1 to 3650, or never.");
    const body: Record<string, unknown> = { name: name.trim(), scopes };
    if (expiry === "days") body.expires_in_days = daysNum;
    const res = await admin<TokenMinted>("POST", `/workspaces/${ws}/tokens`, { body });
    setMinted({ name: res.token.name, secret: res.secret });
    setName("");
    setScopes([]);
    list.reload();
  });

  const revoke = async (t: Token) => {
    if (!confirm(`Revoke the token "${t.name}"? Anything using it stops working at once.`)) return;
    try {
      await admin("DELETE", `/tokens/${t.id}`);
      if (t.id === own) session.clearSessionToken(ws);
      list.reload();
    } catch (err) {
      setError(err);
    }
  };

  const errs = fieldErrors(error);
  return (
    <div class="stack">
      {minted && (
        <section class="card secret" aria-labelledby="secret-title">
          <h2 id="secret-title">Token "{minted.name}" created</h2>
          <p>Copy it now: this is the only time it is shown. Only its hash is stored.</p>
          <OneTimeSecret id="new-secret" label="New token" value={minted.secret} copyLabel="Copy token" />
          <button type="button" class="secondary" onClick={() => setMinted(undefined)}>
            I have copied it
          </button>
        </section>
      )}

      <section class="card" aria-labelledby="tokens-title">
        <h2 id="tokens-title">API tokens</h2>
        <ErrorBox error={list.error} />
        {list.data && list.data.tokens.length === 0 && <p>No tokens yet.</p>}
        {list.data && list.data.tokens.length > 0 && (
          <DataTable text={["Name", "Scopes", "Expires", "Created"]} actions>
            {list.data.tokens.map((t) => (
              <tr key={t.id}>
                <td>
                  {t.name}
                  {t.id === own && <small class="tag">this tab</small>}
                </td>
                <td>
                  <ul class="chips">
                    {t.scopes.map((s) => (
                      <li key={s}>{s}</li>
                    ))}
                  </ul>
                </td>
                <td>{t.expires_at ? formatDate(t.expires_at) : "Never"}</td>
                <td>{formatDate(t.created_at)}</td>
                <ActionCell label="Revoke" name={`Revoke ${t.name}`} onClick={() => revoke(t)} danger />
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <form class="card" onSubmit={mint} aria-labelledby="mint-title">
        <h2 id="mint-title">Mint a token</h2>
        <Field id="token-name" label="Name" errors={errs.name}>
          {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. Checkout server" />}
        </Field>
        <fieldset class={errs.scopes ? "invalid" : ""}>
          <legend>Scopes</legend>
          <p class="hint">Scopes cannot be added to a token later; mint a new one instead.</p>
          {Object.entries(Scopes).map(([s, v]) => (
            <div class="check" key={s}>
              <input
                type="checkbox"
                id={`scope-${s}`}
                name="scopes"
                value={s}
                checked={scopes.includes(s)}
                onChange={(e) => toggle(s, e.currentTarget.checked)}
                aria-describedby={`scope-${s}-d`}
              />
              <label for={`scope-${s}`}>
                <code>{s}</code> <span class="kind">{v.kind === "read" ? "read-only" : "write-only"}</span>
              </label>
              <small id={`scope-${s}-d`} class="hint">
                {v.grants[0].toUpperCase() + v.grants.slice(1)}.
              </small>
            </div>
          ))}
          {errs.scopes && <small class="field-error">{errs.scopes.join(" ")}</small>}
        </fieldset>
        <fieldset>
          <legend>Expiry</legend>
          <div class="check">
            <input type="radio" id="exp-days" name="expiry" checked={expiry === "days"} onChange={() => setExpiry("days")} />
            <label for="exp-days">Expires after a number of days</label>
          </div>
          {expiry === "days" && (
            <Field id="token-days" label="Days (1 to 3650)" errors={errs.expires_in_days ?? (daysValid ? undefined : ["Enter a whole number from 1 to 3650."])}>
              {(a) => (
                <input {...a} type="number" min={1} max={3650} step={1} inputMode="numeric" value={days} onInput={(e) => setDays(e.currentTarget.value)} />
              )}
            </Field>
          )}
          <div class="check">
            <input type="radio" id="exp-never" name="expiry" checked={expiry === "never"} onChange={() => setExpiry("never")} />
            <label for="exp-never">Never expires</label>
          </div>
        </fieldset>
        <FormEnd error={error} label="Mint token" busy={busy} busyLabel="Minting…" />
      </form>
    </div>
  );
}

function Metrics({ ws }: { ws: number }) {
  const list = useAsync((signal) => admin<MetricList>("GET", `/workspaces/${ws}/custom-metrics`, { signal }), [ws]);
  const [name, setName] = useState("");
  const [added, setAdded] = useState("");

  const { submit: add, error } = useSubmit(async () => {
    const { metric } = await admin<MetricDeclared>("POST", `/workspaces/${ws}/custom-metrics`, { body: { name } });
    setAdded(metric.name);
    setName("");
    list.reload();
  });

  return (
    <div class="stack">
      <section class="card" aria-labelledby="metrics-title">
        <h2 id="metrics-title">Custom metrics</h2>
        <p>Browser custom events are accepted only for declared names. Names are lowercased and reduced to a–z, 0–9, _ and - (at most 64 characters).</p>
        <ErrorBox error={list.error} />
        {list.data &&
          (list.data.metrics.length ? (
            <ul class="chips big" aria-label="Declared metrics">
              {list.data.metrics.map((m) => (
                <li key={m.name}>{m.name}</li>
              ))}
            </ul>
          ) : (
            <p>No custom metrics declared yet.</p>
          ))}
      </section>
      <form class="card" onSubmit={add}>
        <h2>Declare a metric</h2>
        <Field id="metric-name" label="Event name" errors={fieldErrors(error).name}>
          {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} placeholder="e.g. add_to_cart" />}
        </Field>
        {added && <Notice>Declared "{added}".</Notice>}
        <FormEnd error={error} field="name" label="Declare" disabled={!name.trim()} />
      </form>
    </div>
  );
}

function Integrations({ ws }: { ws: number }) {
  const list = useAsync((signal) => admin<IntegrationList>("GET", `/workspaces/${ws}/integrations`, { signal }), [ws]);
  const [name, setName] = useState("");
  const [fallback, setFallback] = useState(true);
  const [error, setError] = useState<unknown>();
  // Switches move at once; the list catches up when the call returns.
  const [shown, setShown] = useState<Record<string, boolean>>({});

  const set = async (integration: string, on: boolean) => {
    setError(undefined);
    setShown((s) => ({ ...s, [integration]: on }));
    try {
      await admin("PUT", `/workspaces/${ws}/integrations/${encodeURIComponent(integration)}`, { body: { browser_fallback: on } });
      list.reload();
      return true;
    } catch (err) {
      setError(err);
      setShown((s) => {
        const { [integration]: _, ...rest } = s;
        return rest;
      });
      return false;
    }
  };

  const add = async (e: Event) => {
    e.preventDefault();
    if (await set(name.trim().toLowerCase(), fallback)) setName("");
  };

  return (
    <div class="stack">
      <section class="card" aria-labelledby="int-title">
        <h2 id="int-title">Integrations</h2>
        <p>The browser fallback records unverified conversions from the page when a cart cannot post back. It is off unless turned on here.</p>
        <ErrorBox error={list.error} />
        {list.data && list.data.integrations.length === 0 && <p>No integrations configured.</p>}
        {list.data && list.data.integrations.length > 0 && (
          <ul class="plain-list">
            {list.data.integrations.map((i) => {
              const on = shown[i.name] ?? i.browser_fallback;
              return (
                <li key={i.name} class="check">
                  <input
                    type="checkbox"
                    role="switch"
                    aria-checked={on}
                    id={`int-${i.name}`}
                    checked={on}
                    onChange={(e) => set(i.name, e.currentTarget.checked)}
                  />
                  <label for={`int-${i.name}`}>
                    <strong>{i.name}</strong>: browser fallback {on ? "on" : "off"}
                  </label>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <form class="card" onSubmit={add}>
        <h2>Configure an integration</h2>
        <Field id="int-name" label="Integration name" hint="1 to 60 characters of a-z, 0-9, _ and -, e.g. stripe." errors={fieldErrors(error).integration}>
          {(a) => <input {...a} required maxLength={60} pattern="[a-z0-9][a-z0-9_\-]{0,59}" value={name} onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <div class="check">
          <input type="checkbox" id="int-fallback" checked={fallback} onChange={(e) => setFallback(e.currentTarget.checked)} />
          <label for="int-fallback">Browser fallback on</label>
        </div>
        <FormEnd error={error} field="integration" label="Save" disabled={!name.trim()} />
      </form>
    </div>
  );
}
