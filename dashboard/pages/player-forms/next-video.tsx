/**
 * The next video of a quiz choice or a CTA card (docs/api.md "Funnels"): a select of
 * the workspace's videos by code, "none" storing null. The list is read once for
 * every select of the page, and again after a minute or a workspace change.
 */
import { call, currentToken, qs } from "../../api.ts";
import { Field, useAsync } from "../../components.tsx";
import type { Page, SlimVideo } from "../../../contract/api.ts";

const FRESH_MS = 60_000;
let cached: { token: string; at: number; list: Promise<SlimVideo[]> } | undefined;

async function workspaceVideos(signal: AbortSignal): Promise<SlimVideo[]> {
  const token = await currentToken();
  if (!cached || cached.token !== token || Date.now() - cached.at > FRESH_MS) {
    const list = call<Page<SlimVideo>>("GET", "/videos" + qs({ per_page: 100, sort: "title", order: "asc" })).then((r) => r.data);
    // A failed read is not kept: the next select asks again.
    list.catch(() => (cached = undefined));
    cached = { token, at: Date.now(), list };
  }
  const list = await cached.list;
  signal.throwIfAborted();
  return list;
}

export function NextVideo(props: { id: string; label: string; value: unknown; onValue(code: string | null): void; err?: string[] }) {
  const videos = useAsync(workspaceVideos, []);
  const value = typeof props.value === "string" ? props.value : "";
  const list = videos.data ?? [];
  return (
    <Field id={props.id} label={props.label} errors={props.err} hint={videos.error ? "The videos could not be listed." : undefined}>
      {(a) => (
        <select {...a} value={value} onChange={(e) => props.onValue(e.currentTarget.value || null)}>
          <option value="">None: stay on this video</option>
          {value && !list.some((v) => v.code === value) && <option value={value}>{videos.loading ? "…" : `Unknown video (${value})`}</option>}
          {list.map((v) => (
            <option key={v.code} value={v.code}>
              {v.title} (#{v.id})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}
