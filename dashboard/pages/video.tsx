/** One video: resumable upload with progress, processing status, embed code and a live preview. */
import { useEffect, useRef, useState } from "preact/hooks";
import { call } from "../api.ts";
import { CopyButton, ErrorBox, Field, Notice, PageTitle, Progress, fieldErrors, formatBytes, useAsync } from "../components.tsx";
import { navigate } from "../router.ts";
import * as session from "../session.ts";
import { ACCEPT_ATTR, uploadFile, type UploadState } from "../upload.ts";
import { VideoNav } from "./video-nav.tsx";
import { VideoProtection } from "./protection.tsx";
import type { DeployVersion, Page, VideoRead, VideoStatus as Status } from "../../contract/api.ts";

const STATUS_TEXT: Record<string, string> = {
  waiting_for_upload: "Waiting for an upload",
  processing: "Processing",
  ready: "Ready",
  error: "Processing failed",
};

export function VideoPage({ id }: { id: number }) {
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const [status, setStatus] = useState<Status>();
  const [statusError, setStatusError] = useState<unknown>();
  const [watching, setWatching] = useState(false);

  const fetchStatus = async () => {
    try {
      const s = await call<Status>("GET", `/videos/${id}/status`);
      setStatus(s);
      setStatusError(undefined);
      return s;
    } catch (e) {
      setStatusError(e);
    }
  };

  useEffect(() => {
    void fetchStatus();
  }, [id]);

  // Poll while encoding runs (docs/api.md "Uploads" rule 5 asks for a calm pace; a few seconds keeps the page live).
  useEffect(() => {
    if (!(watching || status?.status === "processing")) return;
    let stopped = false;
    const t = setInterval(async () => {
      const s = await fetchStatus();
      if (!stopped && s && (s.status === "ready" || s.status === "error")) setWatching(false);
    }, 3000);
    return () => {
      stopped = true;
      clearInterval(t);
    };
  }, [watching, status?.status === "processing", id]);

  if (video.error) {
    return (
      <section>
        <PageTitle>Video not found</PageTitle>
        <ErrorBox error={video.error} />
      </section>
    );
  }
  const v = video.data;
  return (
    <section>
      <VideoNav id={id} current="overview" title={v?.title} />
      <PageTitle>{v ? v.title : "Loading…"}</PageTitle>
      {v && (
        <p class="muted">
          Video #{v.id} · code <code>{v.code}</code>
        </p>
      )}
      <div class="grid-2">
        <div class="stack">
          <Uploader id={id} onUploaded={(s) => (setStatus(s), setWatching(true))} />
          <StatusCard status={status} error={statusError} />
          {v && <VideoActions id={id} title={v.title} onRenamed={video.reload} />}
          {v && <VideoProtection id={id} video={v} />}
        </div>
        <div class="stack">{status?.embed ? <Embed id={id} embed={status.embed} /> : <EmbedPending status={status} />}</div>
      </div>
    </section>
  );
}

function Uploader({ id, onUploaded }: { id: number; onUploaded: (s: Status) => void }) {
  const [file, setFile] = useState<File>();
  const [orientation, setOrientation] = useState("landscape");
  const [state, setState] = useState<UploadState>();
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const ctrl = useRef<AbortController | undefined>(undefined);
  const pending = session.pendingUploadsFor(id);

  useEffect(() => () => ctrl.current?.abort(), []);

  const start = async (e: Event) => {
    e.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(undefined);
    ctrl.current = new AbortController();
    try {
      const s = await uploadFile(id, file, orientation, setState, ctrl.current.signal);
      onUploaded(s);
    } catch (err) {
      if ((err as Error).name !== "AbortError") setError(err);
    } finally {
      setBusy(false);
    }
  };

  const pct = state?.size ? (state.sent / state.size) * 100 : 0;
  return (
    <form class="card" onSubmit={start} aria-labelledby="upload-title">
      <h2 id="upload-title">Upload a file</h2>
      {pending.length > 0 && !busy && (
        <Notice>
          {pending.map((p) => `An upload of "${p.name}" (${formatBytes(p.size)}, ${p.orientation}) was interrupted.`).join(" ")} Choose the same file again to
          resume where it stopped.
        </Notice>
      )}
      <Field
        id="up-file"
        label="Video file"
        hint="mp4, mov, m4v, avi, webm, ogv, 3gp or mkv, up to 5 GB. Sent in 8 MiB chunks (tus); an interrupted upload resumes, also after a reload."
      >
        {(a) => <input {...a} type="file" accept={ACCEPT_ATTR} disabled={busy} onChange={(e) => setFile(e.currentTarget.files?.[0])} />}
      </Field>
      <Field id="up-orientation" label="Orientation">
        {(a) => (
          <select {...a} value={orientation} disabled={busy} onChange={(e) => setOrientation(e.currentTarget.value)}>
            <option value="landscape">Landscape</option>
            <option value="portrait">Portrait</option>
          </select>
        )}
      </Field>
      <div class="row">
        <button type="submit" disabled={!file || busy}>
          {busy ? "Uploading…" : "Upload"}
        </button>
        {busy && (
          <button type="button" class="secondary" onClick={() => ctrl.current?.abort()}>
            Pause
          </button>
        )}
      </div>
      {state && (
        <div aria-live="polite">
          <Progress id="upload-progress" value={pct} label="Upload progress" />
          <p class="muted" data-upload-phase={state.phase}>
            {state.phase === "done"
              ? `Uploaded ${formatBytes(state.size)}.`
              : state.phase === "completing"
                ? "Checking the file…"
                : `${formatBytes(state.sent)} of ${formatBytes(state.size)}`}
            {state.resumedFrom ? ` Resumed from ${formatBytes(state.resumedFrom)}.` : ""}
            {state.message ? ` ${state.message}` : ""}
          </p>
        </div>
      )}
      <ErrorBox error={error} />
    </form>
  );
}

function StatusCard({ status, error }: { status?: Status; error?: unknown }) {
  return (
    <section class="card" aria-labelledby="status-title">
      <h2 id="status-title">Processing</h2>
      <ErrorBox error={error} />
      {status && (
        <>
          <p>
            Status:{" "}
            <strong class={`status status-${status.status}`} data-status={status.status}>
              {STATUS_TEXT[status.status] ?? status.status}
            </strong>
          </p>
          {(["landscape", "portrait"] as const).map((o) => {
            const s = status.orientations[o];
            if (!s) return null;
            return (
              <div key={o}>
                <Progress id={`enc-${o}`} value={s.progress} label={`${o[0].toUpperCase() + o.slice(1)}: ${STATUS_TEXT[s.status] ?? s.status}`} />
                {s.error && (
                  <p class="error" role="alert">
                    {s.error}
                  </p>
                )}
              </div>
            );
          })}
        </>
      )}
    </section>
  );
}

function EmbedPending({ status }: { status?: Status }) {
  return (
    <section class="card" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed</h2>
      <p>
        {status?.status === "processing" ? "The embed code appears when encoding finishes." : "Upload a file: the embed code appears when the video is ready."}
      </p>
    </section>
  );
}

function Embed({ id, embed }: { id: number; embed: NonNullable<Status["embed"]> }) {
  const [plain, setPlain] = useState(false);
  const [n, setN] = useState(0);
  const html = plain ? embed.plain_html : embed.html;
  return (
    <section class="card" aria-labelledby="embed-title">
      <h2 id="embed-title">Embed</h2>
      <fieldset class="inline">
        <legend>Snippet</legend>
        <div class="check">
          <input type="radio" id="emb-std" name="emb" checked={!plain} onChange={() => setPlain(false)} />
          <label for="emb-std">Standard player</label>
        </div>
        <div class="check">
          <input type="radio" id="emb-plain" name="emb" checked={plain} onChange={() => setPlain(true)} />
          <label for="emb-plain">Plain mode</label>
        </div>
      </fieldset>
      <label for="embed-code">Embed code</label>
      <textarea id="embed-code" class="mono" readOnly rows={4} value={html} onFocus={(e) => e.currentTarget.select()} />
      <div class="row">
        <CopyButton text={html} label="Copy embed code" />
        <button type="button" class="secondary" onClick={() => setN((x) => x + 1)}>
          Reload preview
        </button>
        <button type="button" class="secondary" onClick={() => navigate(`/videos/${id}/settings`)}>
          Player settings
        </button>
      </div>
      <h3>Live preview</h3>
      <Preview id={id} plain={plain} version={n} />
    </section>
  );
}

/**
 * The embed snippet running in its own page (its CSP allows the player); same
 * origin, so it shares this tab's token. A video with a deployed version is
 * known to be published; before that the player may not be live yet (docs/api.md:
 * it publishes itself about a minute after `ready`), so the preview waits to be asked.
 */
export function Preview({ id, plain, version }: { id: number; plain?: boolean; version: number }) {
  const deploys = useAsync((signal) => call<Page<DeployVersion>>("GET", `/videos/${id}/deploys`, { signal }), [id, version]);
  const [asked, setAsked] = useState(0);
  if (deploys.loading && !deploys.data) return <p class="muted">Loading the preview…</p>;
  if (!asked && !(deploys.data && deploys.data.total > 0)) {
    return (
      <div class="preview-wait">
        <p>The player publishes itself about a minute after the video is ready (a deploy publishes it at once).</p>
        <button type="button" class="secondary" onClick={() => setAsked((n) => n + 1)}>
          Load preview
        </button>
      </div>
    );
  }
  return (
    <iframe
      class="preview"
      title="Player preview"
      src={`/dashboard/preview?video=${id}${plain ? "&mode=plain" : ""}&v=${version}.${asked}`}
      key={`${plain}-${version}-${asked}`}
    />
  );
}

function VideoActions({ id, title, onRenamed }: { id: number; title: string; onRenamed: () => void }) {
  const [name, setName] = useState(title);
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState(false);
  const rename = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    try {
      await call("PATCH", `/videos/${id}`, { body: { title: name.trim() } });
      setSaved(true);
      onRenamed();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async () => {
    if (!confirm(`Delete "${title}"? Its media, settings and embed stop working.`)) return;
    try {
      await call("DELETE", `/videos/${id}`);
      navigate("/videos");
    } catch (err) {
      setError(err);
    }
  };
  const duplicate = async () => {
    try {
      const { video } = await call<VideoRead>("POST", `/videos/${id}/duplicate`, { headers: { "Idempotency-Key": crypto.randomUUID() } });
      navigate(`/videos/${video.id}`);
    } catch (err) {
      setError(err);
    }
  };
  return (
    <form class="card" onSubmit={rename} aria-labelledby="manage-title">
      <h2 id="manage-title">Manage</h2>
      <Field id="vid-title" label="Title" errors={fieldErrors(error).title}>
        {(a) => <input {...a} required maxLength={255} value={name} onInput={(e) => (setName(e.currentTarget.value), setSaved(false))} />}
      </Field>
      {saved && <Notice>Saved.</Notice>}
      <ErrorBox error={error && !fieldErrors(error).title ? error : undefined} />
      <div class="row">
        <button type="submit" class="secondary">
          Rename
        </button>
        <button type="button" class="secondary" onClick={duplicate}>
          Duplicate
        </button>
        <button type="button" class="danger" onClick={remove}>
          Delete
        </button>
      </div>
    </form>
  );
}
