/**
 * Who watched what (docs/api.md "Viewers"): a video's viewers, leads first to hand
 * (the "Leads only" filter), and one viewer's page with their heatmap strip (darker
 * where rewatched, blank where skipped) and the sessions under it.
 */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { ErrorBox, formatDate, Link, PageTitle, Pager, DataTable, useAsync } from "../components.tsx";
import { money, seconds } from "../seller-format.ts";
import { VideoNav } from "./video-nav.tsx";
import type { Page, VideoRead, ViewerEvent, ViewerHeatmap, ViewerRow, ViewerSession, ViewerTimeline } from "../../contract/api.ts";

const who = (v: ViewerRow) => v.email ?? v.external_id ?? (v.identified ? "Identified (hashed email)" : `Anonymous viewer #${v.viewer_id}`);
const revenue = (v: ViewerRow) => (v.revenue.length ? v.revenue.map((r) => money(r.amount, r.currency)).join(" · ") : "—");

export function Viewers({ id, leadsOnly }: { id: number; leadsOnly: boolean }) {
  const [page, setPage] = useState(1);
  const [identified, setIdentified] = useState(leadsOnly);
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const list = useAsync(
    (signal) => call<Page<ViewerRow>>("GET", `/videos/${id}/viewers${qs({ page, per_page: 50, identified: identified ? "true" : undefined })}`, { signal }),
    [id, page, identified],
  );
  return (
    <section>
      <VideoNav id={id} current="viewers" title={video.data?.title} />
      <PageTitle>Viewers</PageTitle>
      <div class="card filters">
        <label>
          <input
            type="checkbox"
            checked={identified}
            onChange={(e) => {
              setIdentified(e.currentTarget.checked);
              setPage(1);
            }}
          />{" "}
          Leads only (viewers who left an email or were identified)
        </label>
        <p class="hint">Sessions of the last 30 days, most recently seen first.</p>
      </div>
      <ErrorBox error={list.error} />
      {list.data && list.data.total === 0 && <p>No viewers in the last 30 days.</p>}
      {list.data && list.data.data.length > 0 && (
        <DataTable
          label={identified ? "Leads" : "Viewers"}
          text={["Viewer", "Last seen"]}
          numeric={["Sessions", "Watch time", "Furthest", "Plays", "Leads", "Orders", "Revenue"]}
        >
          {list.data.data.map((v) => (
            <tr key={v.viewer_id} data-viewer-row={v.viewer_id}>
              <td>
                <Link href={`/videos/${id}/viewers/${v.viewer_id}`}>{who(v)}</Link>
              </td>
              <td>{formatDate(v.last_seen_at)}</td>
              <td class="num">{v.sessions}</td>
              <td class="num">{seconds(v.watch_time_s)}</td>
              <td class="num">{v.furthest_percent} %</td>
              <td class="num">{v.plays}</td>
              <td class="num">{v.leads}</td>
              <td class="num">{v.orders}</td>
              <td class="num">{revenue(v)}</td>
            </tr>
          ))}
        </DataTable>
      )}
      {list.data && list.data.last_page > 1 && <Pager label="Viewer pages" page={page} last={list.data.last_page} onPage={setPage} />}
    </section>
  );
}

/** One strip: a cell per part of the video, darker the more times it was watched, blank where skipped. */
export function HeatmapStrip({ heatmap }: { heatmap: ViewerHeatmap }) {
  const max = Math.max(1, ...heatmap.counts);
  const part = heatmap.duration_s ? heatmap.duration_s / heatmap.buckets : 0;
  const at = (i: number) => `${Math.round(i * part)}–${Math.round((i + 1) * part)} s`;
  const skipped = heatmap.counts.filter((c) => c === 0).length;
  return (
    <figure class="heatmap">
      <div
        class="heatmap-strip"
        role="img"
        aria-label={`Watched parts of the video: ${heatmap.buckets - skipped} of ${heatmap.buckets} parts, at most ${max} times`}
      >
        {heatmap.counts.map((count, i) => (
          <span
            key={i}
            data-count={count}
            title={`${at(i)}: ${count === 0 ? "skipped" : `watched ${count}×`}`}
            style={{ opacity: count === 0 ? 0 : 0.25 + (0.75 * count) / max }}
          />
        ))}
      </div>
      <figcaption class="hint">
        {heatmap.duration_s ? `0 s to ${Math.round(heatmap.duration_s)} s. ` : ""}Darker: watched more times; blank: skipped.
      </figcaption>
    </figure>
  );
}

const eventText = (e: ViewerEvent): string => {
  const d = e.detail;
  const t = e.video_time === null ? "" : ` at ${Math.round(e.video_time * 10) / 10} s`;
  switch (e.type) {
    case "seek":
      return `Skipped from ${d.from_s ?? "?"} s to ${e.video_time ?? "?"} s`;
    case "cta_click":
      return `Clicked call to action ${d.card_index ?? ""}${t}`;
    case "quiz_answer":
      return `Answered ${d.question_id ?? "a question"}: ${d.choice_id ?? "?"}${t}`;
    case "lead":
      return `Left their email${t}`;
    case "sale":
      return `Bought ${d.product ?? ""} for ${money(typeof d.amount === "number" ? d.amount : null, typeof d.currency === "string" ? d.currency : null)}`;
    case "ended":
      return "Watched to the end";
    default:
      return `${e.type[0]!.toUpperCase()}${e.type.slice(1)}${t}`;
  }
};

function SessionCard({ s, n }: { s: ViewerSession; n: number }) {
  const where = [s.device, s.browser, s.os, s.country].filter(Boolean).join(" · ") || "unknown device";
  return (
    <li class="card" data-session={s.session_id}>
      <h3>
        Visit {n} · {formatDate(s.started_at)}
      </h3>
      <p>
        From {s.source ?? "direct"} · {where} · watched {seconds(s.watch_time_s)}
      </p>
      <p>Watched: {s.watched_ranges.length ? s.watched_ranges.map(([a, b]) => `${a}–${b} s`).join(", ") : "nothing"}</p>
      <ol class="viewer-events">
        {s.events.map((e, i) => (
          <li key={i}>
            <time dateTime={e.at}>{new Date(e.at).toLocaleTimeString()}</time> {eventText(e)}
          </li>
        ))}
      </ol>
    </li>
  );
}

export function ViewerPage({ id, viewer }: { id: number; viewer: number }) {
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const timeline = useAsync((signal) => call<ViewerTimeline>("GET", `/videos/${id}/viewers/${viewer}`, { signal }), [id, viewer]);
  const heatmap = useAsync((signal) => call<ViewerHeatmap>("GET", `/videos/${id}/viewers/${viewer}/heatmap${qs({ buckets: 100 })}`, { signal }), [id, viewer]);
  const v = timeline.data?.viewer;
  return (
    <section>
      <VideoNav id={id} current="viewers" title={video.data?.title} />
      <p>
        <Link href={`/videos/${id}/viewers`}>All viewers</Link>
      </p>
      <PageTitle>{v ? who(v) : "Viewer"}</PageTitle>
      <ErrorBox error={timeline.error ?? heatmap.error} />
      {v && (
        <p>
          {v.sessions} visit{v.sessions === 1 ? "" : "s"} · watched {seconds(v.watch_time_s)} · reached {v.furthest_percent} % · {v.orders} order
          {v.orders === 1 ? "" : "s"} ({revenue(v)})
        </p>
      )}
      {heatmap.data && (
        <section class="card" aria-labelledby="hm-title">
          <h2 id="hm-title">What they watched</h2>
          <HeatmapStrip heatmap={heatmap.data} />
        </section>
      )}
      {timeline.data && (
        <section aria-labelledby="visits-title">
          <h2 id="visits-title">Visits</h2>
          <ol class="viewer-sessions">
            {timeline.data.sessions.map((s, i) => (
              <SessionCard key={s.session_id} s={s} n={i + 1} />
            ))}
          </ol>
        </section>
      )}
    </section>
  );
}
