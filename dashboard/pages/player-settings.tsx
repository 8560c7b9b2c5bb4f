/**
 * Player settings (docs/api.md "Video settings"): option groups in forms (the
 * sales groups' forms in player-forms/, one file each), the other groups as
 * JSON; save a draft, deploy with a label (through the operator API, which sets
 * every group), list the versions and restore one. 422 errors land next to the
 * field they name.
 */
import { useEffect, useState } from "preact/hooks";
import { admin, call, qs } from "../api.ts";
import * as session from "../session.ts";
import { ErrorBox, Field, Notice, PageTitle, fieldErrors, formatDate, useAsync } from "../components.tsx";
import { Preview } from "./video.tsx";
import { VideoNav } from "./video-nav.tsx";
import type { DeployVersion, Deployed, Page, Restored, SettingsRead, VideoRead, VideoWithSettings } from "../../contract/api.ts";
import type { GroupName, PartialSettings, Settings } from "../../contract/settings.ts";
import type { GroupForm, KeysOf, SetField } from "./player-forms/kit.tsx";
import { chaptersForm } from "./player-forms/chapters.tsx";
import { analyticsForm, continueWatchingForm, engagementForm } from "./player-forms/viewer-data.tsx";
import { ctaCardsForm } from "./player-forms/cta-cards.tsx";
import { timedEventsForm } from "./player-forms/timed-events.tsx";
import { headlineForm } from "./player-forms/headline.tsx";
import { pitchTimeForm } from "./player-forms/pitch-time.tsx";
import { cloakForm } from "./player-forms/cloak.tsx";
import { shareForm } from "./player-forms/share.tsx";
import { actionsForm } from "./player-forms/actions.tsx";
import { endScreenForm } from "./player-forms/end-screen.tsx";
import { thumbnailForm } from "./player-forms/thumbnail.tsx";
import { leadFormForm } from "./player-forms/lead-form.tsx";
import { watchGateForm } from "./player-forms/watch-gate.tsx";
import { pixelsForm } from "./player-forms/pixels.tsx";
import { stickyForm } from "./player-forms/sticky.tsx";
import { exitIntentForm } from "./player-forms/exit-intent.tsx";
import { countdownForm } from "./player-forms/countdown.tsx";
import { userEventsForm } from "./player-forms/user-events.tsx";
import { courseForm } from "./player-forms/course.tsx";
import { quizForm } from "./player-forms/quiz.tsx";
import { notesForm } from "./player-forms/notes.tsx";
import { resumeAnyDeviceForm } from "./player-forms/resume-any-device.tsx";
import { playbackForm } from "./player-forms/playback.tsx";
import { speedForm } from "./player-forms/speed.tsx";
import { captionsForm } from "./player-forms/captions.tsx";
import { brandingForm } from "./player-forms/branding.tsx";
import { seoForm } from "./player-forms/seo.tsx";
import { transcriptForm } from "./player-forms/transcript.tsx";
import { turboForm } from "./player-forms/turbo.tsx";

/** Option groups with a form in its own file (player-forms/), one line each. */
const GROUP_FORMS: GroupForm[] = [
  playbackForm,
  turboForm,
  speedForm,
  captionsForm,
  transcriptForm,
  seoForm,
  brandingForm,
  chaptersForm,
  ctaCardsForm,
  headlineForm,
  thumbnailForm,
  timedEventsForm,
  pitchTimeForm,
  cloakForm,
  actionsForm,
  leadFormForm,
  watchGateForm,
  endScreenForm,
  shareForm,
  pixelsForm,
  stickyForm,
  exitIntentForm,
  countdownForm,
  userEventsForm,
  courseForm,
  quizForm,
  notesForm,
  resumeAnyDeviceForm,
  continueWatchingForm,
  analyticsForm,
  engagementForm,
];
const FORM_GROUPS: GroupName[] = ["style_options", "progress_options", "autoplay_options", "controls_options", ...GROUP_FORMS.map((f) => f.group)];
const CONTROLS: (keyof Settings["controls_options"])[] = ["play", "progress", "time", "volume", "settings", "fullscreen", "pip"];

const idOf = (path: string) => "f-" + path.replace(/[^a-z0-9_]+/gi, "-");
const clone = <T,>(v: T): T => JSON.parse(JSON.stringify(v));
const isFormGroup = (key: string): key is GroupName => (FORM_GROUPS as string[]).includes(key);

/** A group of the form, copied from `from` into `to`. */
function copyGroup<G extends GroupName>(to: PartialSettings, from: PartialSettings, group: G): void {
  to[group] = clone(from[group] ?? {});
}

/** The option groups without a form, as JSON. A full video (deploy and restore answer with one) carries other fields too. */
function restOf(s: PartialSettings | VideoWithSettings): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) if (k.endsWith("_options") && !isFormGroup(k)) rest[k] = v;
  return JSON.stringify(rest, null, 2);
}

export function PlayerSettings({ id }: { id: number }) {
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const live = useAsync((signal) => call<SettingsRead>("GET", `/videos/${id}/settings`, { signal }).then((r) => r.settings), [id]);
  const [form, setForm] = useState<PartialSettings>();
  const [json, setJson] = useState("");
  const [label, setLabel] = useState("");
  const [error, setError] = useState<unknown>();
  const [jsonError, setJsonError] = useState("");
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  const [previewVersion, setPreviewVersion] = useState(0);
  const [deploysKey, setDeploysKey] = useState(0);

  /** Shows `settings` (or the groups of a full video) in the form and the JSON box. */
  const apply = (settings: PartialSettings | VideoWithSettings) => {
    const f: PartialSettings = {};
    for (const g of FORM_GROUPS) copyGroup(f, settings, g);
    setForm(f);
    setJson(restOf(settings));
  };
  useEffect(() => {
    if (live.data) apply(live.data);
  }, [live.data]);

  // The page's own fields below name their keys by kind (KeysOf), which TS cannot carry to the value: they set through this.
  const setField = (group: GroupName, key: PropertyKey, value: unknown) => setForm((f) => ({ ...f, [group]: { ...f?.[group], [key]: value } }));
  const set: SetField = setField;

  /** The body of a draft or deploy: the form's groups over the JSON box's. */
  const payload = (): Record<string, unknown> | undefined => {
    let rest: unknown;
    try {
      rest = json.trim() ? JSON.parse(json) : {};
      if (!rest || typeof rest !== "object" || Array.isArray(rest)) throw new Error("The JSON must be an object of option groups.");
    } catch (e) {
      setJsonError(e instanceof SyntaxError ? `The JSON is not valid: ${e.message}` : (e as Error).message);
      return undefined;
    }
    setJsonError("");
    return { ...rest, ...form };
  };

  const save = async (kind: "draft" | "deploy") => {
    setError(undefined);
    setNotice("");
    const body = payload();
    if (!body) return;
    if (kind === "deploy" && label.trim()) body._version_label = label.trim();
    setBusy(true);
    try {
      // The operator API: every group, the five the application API drops included, same validation and deploy path.
      const operator = `/workspaces/${session.workspace()!.id}/videos/${id}`;
      if (kind === "draft") {
        await admin("POST", `${operator}/draft`, { body });
        setNotice("Draft saved. It is not live: deploy to publish it.");
      } else {
        const res = await admin<Deployed>("POST", `${operator}/deploy`, { body });
        apply(res.video); // what is live now, as the server merged it
        setNotice(`Deployed: version ${res.version_id} is live.`);
        setLabel("");
        setPreviewVersion((n) => n + 1);
        setDeploysKey((n) => n + 1);
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  const restored = (video: VideoWithSettings) => {
    setNotice("Version restored and live.");
    apply(video);
    setPreviewVersion((n) => n + 1);
    setDeploysKey((n) => n + 1);
  };

  const errs = fieldErrors(error);
  const err = (path: string) => errs[path];
  // Errors with no field on the form (JSON groups, or a list row that is gone) are listed together.
  const shown = (path: string) => FORM_GROUPS.some((g) => path.startsWith(g + ".")) && !!document.getElementById(idOf(path));
  const other = Object.entries(errs).filter(([p]) => !shown(p));

  const color = <G extends GroupName>(group: G, key: KeysOf<Settings[G], string>, label: string) => {
    const path = `${group}.${key}`;
    const current = form?.[group]?.[key];
    const value = typeof current === "string" ? current : "";
    // The native picker takes #rrggbb only: alpha forms show their colour part.
    const hex = /^#[0-9a-f]{6}([0-9a-f]{2})?$/i.test(value)
      ? value.slice(0, 7)
      : /^#[0-9a-f]{3,4}$/i.test(value)
        ? "#" + [...value.slice(1, 4)].map((c) => c + c).join("")
        : "#000000";
    return (
      <Field id={idOf(path)} label={label} errors={err(path)}>
        {(a) => (
          <div class="row tight">
            <input {...a} class="grow mono" value={value} onInput={(e) => setField(group, key, e.currentTarget.value)} spellcheck={false} />
            <input type="color" value={hex} aria-label={`${label} picker`} onInput={(e) => setField(group, key, e.currentTarget.value)} />
          </div>
        )}
      </Field>
    );
  };
  const check = <G extends GroupName>(group: G, key: KeysOf<Settings[G], boolean>, label: string) => (
    <div class="check" key={`${group}.${key}`}>
      <input type="checkbox" id={idOf(`${group}.${key}`)} checked={!!form?.[group]?.[key]} onChange={(e) => setField(group, key, e.currentTarget.checked)} />
      <label for={idOf(`${group}.${key}`)}>{label}</label>
      {err(`${group}.${key}`) && <small class="field-error">{err(`${group}.${key}`)!.join(" ")}</small>}
    </div>
  );
  const num = (v: string) => (v === "" ? undefined : Number(v));

  return (
    <section>
      <VideoNav id={id} current="settings" title={video.data?.title} />
      <PageTitle>Player settings</PageTitle>
      <ErrorBox error={live.error} />
      {form && (
        <div class="grid-2">
          <form class="stack" onSubmit={(e) => (e.preventDefault(), save("deploy"))} noValidate>
            {other.length > 0 && (
              <div class="error" role="alert">
                <p>Some settings were not accepted:</p>
                <ul>
                  {other.map(([p, m]) => (
                    <li key={p}>
                      <code>{p}</code>: {m.join(" ")}
                    </li>
                  ))}
                </ul>
              </div>
            )}
            <ErrorBox error={error && !Object.keys(errs).length ? error : undefined} />
            <fieldset class="card">
              <legend>Colours and style</legend>
              {color("style_options", "main_color", "Main colour")}
              {color("style_options", "background_color", "Background colour")}
              {color("style_options", "text_color", "Text colour")}
              {color("progress_options", "bar_color", "Progress bar colour")}
              {color("progress_options", "background_color", "Progress track colour")}
              <Field id={idOf("style_options.border_radius")} label="Corner radius (px)" errors={err("style_options.border_radius")}>
                {(a) => (
                  <input
                    {...a}
                    type="number"
                    min={0}
                    value={form.style_options?.border_radius ?? ""}
                    onInput={(e) => set("style_options", "border_radius", num(e.currentTarget.value))}
                  />
                )}
              </Field>
              <Field id={idOf("style_options.font_family")} label="Font family" errors={err("style_options.font_family")}>
                {(a) => (
                  <input {...a} value={form.style_options?.font_family ?? ""} onInput={(e) => set("style_options", "font_family", e.currentTarget.value)} />
                )}
              </Field>
              <Field id={idOf("style_options.logo_url")} label="Logo URL (top right of the player)" errors={err("style_options.logo_url")}>
                {(a) => (
                  <input
                    {...a}
                    type="url"
                    value={form.style_options?.logo_url ?? ""}
                    onInput={(e) => set("style_options", "logo_url", e.currentTarget.value || null)}
                  />
                )}
              </Field>
            </fieldset>
            <fieldset class="card">
              <legend>Autoplay</legend>
              {check("autoplay_options", "enabled", "Autoplay when the page loads")}
              {check("autoplay_options", "muted", "Start muted (browsers block autoplay with sound)")}
              {check("autoplay_options", "unmute_prompt", "Show an unmute prompt")}
            </fieldset>
            <fieldset class="card">
              <legend>Controls</legend>
              <div class="checks-grid">
                {CONTROLS.map((c) => check("controls_options", c, c === "pip" ? "Picture in picture" : c[0].toUpperCase() + c.slice(1)))}
              </div>
            </fieldset>
            {GROUP_FORMS.map(({ group, legend, operator, Form }) => (
              <fieldset class="card" key={group}>
                <legend>
                  {legend} {operator && <span class="tag">dashboard only</span>}
                </legend>
                <Form settings={form} set={set} err={err} />
              </fieldset>
            ))}
            <div class="card">
              <Field id="f-json" label="Other option groups (JSON)" hint="Groups not on the form." errors={jsonError ? [jsonError] : undefined}>
                {(a) => <textarea {...a} class="mono" rows={14} spellcheck={false} value={json} onInput={(e) => setJson(e.currentTarget.value)} />}
              </Field>
            </div>
            <div class="card sticky-actions">
              <Field id="f-label" label="Version label (optional)">
                {(a) => <input {...a} maxLength={255} value={label} onInput={(e) => setLabel(e.currentTarget.value)} placeholder="e.g. Brand colours" />}
              </Field>
              {notice && <Notice>{notice}</Notice>}
              <div class="row">
                <button type="button" class="secondary" disabled={busy} onClick={() => save("draft")}>
                  Save draft
                </button>
                <button type="submit" disabled={busy}>
                  {busy ? "Working…" : "Deploy"}
                </button>
              </div>
            </div>
          </form>
          <div class="stack side">
            <section class="card" aria-labelledby="pv-title">
              <h2 id="pv-title">Live preview</h2>
              <p class="hint">Shows what is live; it reloads after a deploy or restore.</p>
              <Preview id={id} version={previewVersion} />
            </section>
            <Versions id={id} key={deploysKey} onRestored={restored} />
          </div>
        </div>
      )}
    </section>
  );
}

function Versions({ id, onRestored }: { id: number; onRestored: (video: VideoWithSettings) => void }) {
  const [page, setPage] = useState(1);
  const list = useAsync((signal) => call<Page<DeployVersion>>("GET", `/videos/${id}/deploys${qs({ page })}`, { signal }), [id, page]);
  const [error, setError] = useState<unknown>();
  const restore = async (v: DeployVersion) => {
    if (!confirm(`Restore version ${v.id}${v.label ? ` (${v.label})` : ""}? It becomes a new live version.`)) return;
    setError(undefined);
    try {
      const res = await call<Restored>("POST", `/videos/${id}/deploys/${v.id}/restore`);
      onRestored(res.video);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <section class="card" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorBox error={list.error || error} />
      {list.data && list.data.total === 0 && <p>Nothing deployed yet.</p>}
      {list.data && list.data.total > 0 && (
        <ol class="versions">
          {list.data.data.map((v) => (
            <li key={v.id}>
              <div>
                <strong>Version {v.id}</strong> {v.is_live && <span class="tag live">live</span>}
                <br />
                <span>{v.label || "No label"}</span>
                <br />
                <small class="muted">{formatDate(v.created_at)}</small>
              </div>
              {!v.is_live && (
                <button type="button" class="secondary" onClick={() => restore(v)} aria-label={`Restore version ${v.id}`}>
                  Restore
                </button>
              )}
            </li>
          ))}
        </ol>
      )}
      {list.data && list.data.last_page > 1 && (
        <nav class="pager" aria-label="Version pages">
          <button type="button" class="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>
            Page {list.data.current_page} of {list.data.last_page}
          </span>
          <button type="button" class="secondary" disabled={page >= list.data.last_page} onClick={() => setPage(page + 1)}>
            Older
          </button>
        </nav>
      )}
    </section>
  );
}
