/** Analytics of one video (docs/api.md "Analytics reads", "Exports"). */
import { useMemo, useState } from "preact/hooks";
import { HttpError, call, currentToken, qs } from "../api.ts";
import { Chart } from "../chart.tsx";
import { ErrorBox, Field, Link, Notice, PageTitle, Pager, useAsync, DataTable } from "../components.tsx";
import { navigate } from "../router.ts";
import { AdSpend, Breakdown, BuyerRetention, DimensionSelect, RetentionChart, SellerOverview } from "./seller.tsx";
import { VideoNav } from "./video-nav.tsx";
import { Funnel } from "./funnel.tsx";
import { FRESHNESS, num } from "../seller-format.ts";
import type {
  AnalyticsSummary,
  ConversionsByName,
  EventsPage,
  ExportCreated,
  ExportRead,
  Page,
  Retention,
  SellerOverview as OverviewReply,
  SlimVideo,
  VideoRead,
} from "../../contract/api.ts";

const day = (d: Date) => d.toISOString().slice(0, 10);
const daysAgo = (n: number) => day(new Date(Date.now() - n * 86_400_000));

type Summary = AnalyticsSummary["summary"];

/** Analytics: every video, each opening on its own analytics page. */
export function AnalyticsPicker() {
  const list = useAsync((signal) => call<Page<SlimVideo>>("GET", "/videos" + qs({ per_page: 100, sort: "updated_at" }), { signal }), []);
  return (
    <section>
      <PageTitle>Analytics</PageTitle>
      <ErrorBox error={list.error} />
      {list.data && list.data.total === 0 && (
        <p>
          No videos yet. <Link href="/videos">Create one</Link> first.
        </p>
      )}
      {list.data && list.data.total > 0 && (
        <ul class="video-list card" aria-label="Videos">
          {list.data.data.map((v) => (
            <li key={v.id}>
              <Link href={`/videos/${v.id}/analytics`}>{v.title}</Link>
              <small>#{v.id}</small>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The window is kept in the URL (`?from=&to=`), so a view can be shared; 30 days by default. */
export function Analytics({ id, query }: { id: number; query: URLSearchParams }) {
  const asked = { from: query.get("from") ?? "", to: query.get("to") ?? "" };
  const initial = DATE.test(asked.from) && DATE.test(asked.to) && asked.from <= asked.to ? asked : { from: daysAgo(30), to: day(new Date()) };
  const [from, setFrom] = useState(initial.from);
  const [to, setTo] = useState(initial.to);
  const [range, setRange] = useState({ ...initial, n: 0 });
  const show = () => {
    setRange({ from, to, n: range.n + 1 });
    navigate(`/videos/${id}/analytics${qs({ from, to })}`, true);
  };
  const [spendVersion, setSpendVersion] = useState(0);
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const deps = [id, range.from, range.to, range.n];
  const q = qs({ from: range.from, to: range.to });
  const summary = useAsync((signal) => call<AnalyticsSummary>("GET", `/videos/${id}/analytics/summary${q}`, { signal }).then((r) => r.summary), deps);
  const retention = useAsync(
    (signal) =>
      call<Retention>("GET", `/videos/${id}/analytics/retention${qs({ from: range.from, to: range.to, buckets: 50 })}`, { signal }).then((r) => r.buckets),
    deps,
  );
  const plays = useAsync((signal) => playsOverTime(id, range.from, range.to, signal), deps);
  const conversions = useAsync(
    (signal) => call<ConversionsByName>("GET", `/videos/${id}/analytics/conversions${q}`, { signal }).then((r) => r.conversions),
    deps,
  );
  const invalid = from > to;

  return (
    <section>
      <VideoNav id={id} current="analytics" title={video.data?.title} />
      <PageTitle>Analytics</PageTitle>
      <form class="card filters" onSubmit={(e) => (e.preventDefault(), !invalid && show())}>
        <Field id="an-from" label="From">
          {(a) => <input {...a} type="date" value={from} max={to} onInput={(e) => setFrom(e.currentTarget.value)} required />}
        </Field>
        <Field id="an-to" label="To" errors={invalid ? ["Must be on or after From."] : undefined}>
          {(a) => <input {...a} type="date" value={to} min={from} onInput={(e) => setTo(e.currentTarget.value)} required />}
        </Field>
        <button type="submit" disabled={invalid}>
          Refresh
        </button>
        <p class="hint" data-freshness>
          {FRESHNESS} The summary is recomputed at most once a minute.
        </p>
      </form>

      <ErrorBox error={summary.error} />
      {summary.data && <Cards s={summary.data} />}

      <SellerOverview id={id} from={range.from} to={range.to} n={range.n} spendVersion={spendVersion} />
      <Funnel id={id} from={range.from} to={range.to} n={range.n} />

      <div class="grid-2">
        <section class="card" aria-labelledby="ret-title">
          <h2 id="ret-title">Retention</h2>
          <ErrorBox error={retention.error} />
          {retention.data && (
            <RetentionChart
              title="Share of viewers still watching"
              curves={[{ label: "Watching (%)", color: "#1d4ed8", buckets: retention.data }]}
              summary={
                retention.data.length
                  ? `At the start ${Math.round(retention.data[0].watch_pct * 100)} % watching; at ${retention.data[retention.data.length - 1].bucket_pct} % of the video ${Math.round(retention.data[retention.data.length - 1].watch_pct * 100)} %.`
                  : "No data."
              }
            />
          )}
        </section>
        <section class="card" aria-labelledby="plays-title">
          <h2 id="plays-title">Plays over time</h2>
          <ErrorBox error={plays.error} />
          {plays.data && (
            <>
              <Chart
                title={plays.data.step === 1 ? "True plays per day (UTC)" : `True plays per ${plays.data.step} days (UTC)`}
                xTime
                xLabel="Day"
                yLabel="Plays"
                data={[plays.data.days.map((d) => Date.parse(d.day) / 1000), plays.data.days.map((d) => d.plays)]}
                series={[{ label: "Plays", color: "#047857", bars: true }]}
                summary={`${plays.data.total} true plays from ${range.from} to ${range.to}.`}
              />
              <p class="muted" data-plays-total={plays.data.total}>
                {plays.data.total} true play{plays.data.total === 1 ? "" : "s"} in this range (a click on play, or an unmute of an autoplay), as the overview
                counts them.
              </p>
            </>
          )}
        </section>
      </div>

      <BuyerRetention id={id} from={range.from} to={range.to} n={range.n} />
      <Breakdown id={id} from={range.from} to={range.to} n={range.n} />
      <AdSpend id={id} from={range.from} to={range.to} onChange={() => setSpendVersion((v) => v + 1)} />

      <section class="card" aria-labelledby="conv-title">
        <h2 id="conv-title">Conversions</h2>
        <ErrorBox error={conversions.error} />
        {conversions.data && conversions.data.length === 0 && <p>No conversions in this range.</p>}
        {conversions.data && conversions.data.length > 0 && (
          <DataTable text={["Event"]} numeric={["Count", "Revenue (verified)"]}>
            {conversions.data.map((c) => (
              <tr key={c.event_name}>
                <td>{c.event_name}</td>
                <td class="num">{c.count}</td>
                <td class="num">{c.total_revenue.toLocaleString(undefined, { maximumFractionDigits: 2 })}</td>
              </tr>
            ))}
          </DataTable>
        )}
      </section>

      <Events id={id} from={range.from} to={range.to} n={range.n} />
      <Exports id={id} from={range.from} to={range.to} />
    </section>
  );
}

function Cards({ s }: { s: Summary }) {
  const items = [
    ["Plays", s.plays.toLocaleString()],
    ["Unique plays", num(s.unique_plays)],
    ["Completions", s.completion_count.toLocaleString()],
    ["Completion rate", `${Math.round(s.completion_rate * (s.completion_rate <= 1 ? 1000 : 10)) / 10} %`],
    ["Average watch time", `${Math.round(s.avg_watch_time_s * 10) / 10} s`],
    ["Bounces", s.bounce_count.toLocaleString()],
  ];
  return (
    <ul class="cards" aria-label="Summary">
      {items.map(([k, v]) => (
        <li key={k} class="stat">
          <span class="stat-label">{k}</span>
          <span class="stat-value" data-stat={k}>
            {v}
          </span>
        </li>
      ))}
    </ul>
  );
}

const DAY_MS = 86_400_000;
/** Bars the chart draws at most: a longer range is cut into windows of several days. */
const MAX_BARS = 62;

/**
 * True plays over time, counted as the cards and the API count them (README "What the
 * numbers mean": a click on play or an unmute of an autoplay, per session, on the day it
 * started): one seller overview read per day, or per window of days beyond MAX_BARS. The
 * windows cut the range without overlap, so their plays add up to the range's.
 */
async function playsOverTime(id: number, from: string, to: string, signal: AbortSignal) {
  const start = Date.parse(from);
  const end = Date.parse(to);
  const step = Math.max(1, Math.ceil((Math.round((end - start) / DAY_MS) + 1) / MAX_BARS));
  const windows: { from: string; to: string }[] = [];
  for (let t = start; t <= end; t += step * DAY_MS) windows.push({ from: day(new Date(t)), to: day(new Date(Math.min(end, t + (step - 1) * DAY_MS))) });
  const plays: number[] = [];
  // A few reads at a time.
  for (let i = 0; i < windows.length; i += 4)
    plays.push(
      ...(await Promise.all(
        windows.slice(i, i + 4).map((w) => call<OverviewReply>("GET", `/videos/${id}/analytics/overview${qs(w)}`, { signal }).then((r) => r.overview.plays)),
      )),
    );
  return { step, days: windows.map((w, i) => ({ day: w.from, plays: plays[i] ?? 0 })), total: plays.reduce((a, b) => a + b, 0) };
}

const EVENT_TYPES = ["", "load", "autoplay", "unmute", "play", "pause", "seek", "ended", "milestone", "watched", "cta_click", "conversion", "error"];

function Events({ id, from, to, n }: { id: number; from: string; to: string; n: number }) {
  const [type, setType] = useState("");
  const [page, setPage] = useState(1);
  const perPage = 25;
  const list = useAsync(
    (signal) => call<EventsPage>("GET", `/videos/${id}/analytics/events${qs({ event_type: type, from, to, page, per_page: perPage })}`, { signal }),
    [id, from, to, n, type, page],
  );
  const last = list.data ? Math.max(1, Math.ceil(list.data.events.total / perPage)) : 1;
  return (
    <section class="card" aria-labelledby="ev-title">
      <h2 id="ev-title">Raw events</h2>
      <div class="filters">
        <Field id="ev-type" label="Event type">
          {(a) => (
            <select {...a} value={type} onChange={(e) => (setType(e.currentTarget.value), setPage(1))}>
              {EVENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t || "All events"}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <ErrorBox error={list.error} />
      {list.data && (
        <>
          <p class="muted" aria-live="polite">
            {list.data.events.total} event{list.data.events.total === 1 ? "" : "s"}
          </p>
          {list.data.events.data.length > 0 && (
            <DataTable class="events" text={["Time", "Type", "Event", "Session"]} numeric={["Watched (s)", "At (s)"]}>
              {list.data.events.data.map((e, i) => (
                <tr key={i}>
                  <td>{new Date(e.created_at).toLocaleString()}</td>
                  <td>{e.event_type}</td>
                  <td>{e.event ?? ""}</td>
                  <td class="mono small">{e.session_code ?? ""}</td>
                  <td class="num">{e.watch_seconds ?? ""}</td>
                  <td class="num">{e.video_time ?? ""}</td>
                </tr>
              ))}
            </DataTable>
          )}
          <Pager label="Event pages" page={page} last={last} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function Exports({ id, from, to }: { id: number; from: string; to: string }) {
  const [format, setFormat] = useState("csv");
  const [type, setType] = useState("events");
  const [by, setBy] = useState("source");
  const [state, setState] = useState("");
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const key = useMemo(() => ({ v: crypto.randomUUID() }), [format, type, by, from, to]);

  const run = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      setState("Requesting the export…");
      let ex: ExportCreated | ExportRead = await call<ExportCreated>("POST", "/exports", {
        body: { video_ids: [id], from, to, format, type, ...(type === "breakdown" ? { by } : {}) },
        headers: { "Idempotency-Key": key.v },
      });
      // Bounded wait: about two minutes.
      for (let i = 0; i < 80 && ex.status !== "ready" && ex.status !== "failed"; i++) {
        setState(`Building the export (${ex.status})…`);
        await new Promise((r) => setTimeout(r, 1500));
        ex = await call<ExportRead>("GET", `/exports/${encodeURIComponent(ex.export_id)}`);
      }
      if (ex.status === "failed") throw new Error("The export failed on the server.");
      if (ex.status !== "ready" || !ex.download_url) throw new Error("The export is taking too long; try again in a moment.");
      setState("Downloading…");
      // Same origin as the API this page already talks to, whatever host PUBLIC_URL names.
      const download = new URL(ex.download_url, location.href);
      const res = await fetch(download.pathname.startsWith("/api/v1/") ? download.pathname + download.search : download.href, {
        headers: { Authorization: `Bearer ${await currentToken()}` },
      });
      if (!res.ok) throw new HttpError(res.status, await res.json().catch(() => null));
      const url = URL.createObjectURL(await res.blob());
      const a = document.createElement("a");
      a.href = url;
      a.download = `frameline-${type}-video${id}-${from}_${to}.${format}`;
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setState(`Downloaded ${a.download}.`);
      key.v = crypto.randomUUID();
    } catch (err) {
      setState("");
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="card" onSubmit={run} aria-labelledby="ex-title">
      <h2 id="ex-title">Export</h2>
      <div class="filters">
        <Field id="ex-type" label="Data">
          {(a) => (
            <select {...a} value={type} onChange={(e) => setType(e.currentTarget.value)}>
              <option value="events">Raw events</option>
              <option value="summary">Summary</option>
              <option value="retention">Retention</option>
              <option value="conversions">Conversions</option>
              <option value="overview">Seller overview</option>
              <option value="breakdown">Breakdown</option>
              <option value="leads">Leads (with watch percent)</option>
            </select>
          )}
        </Field>
        {type === "breakdown" && <DimensionSelect id="ex-by" label="By" value={by} onChange={setBy} />}
        <Field id="ex-format" label="Format">
          {(a) => (
            <select {...a} value={format} onChange={(e) => setFormat(e.currentTarget.value)}>
              <option value="csv">CSV</option>
              <option value="json">JSON</option>
            </select>
          )}
        </Field>
        <button type="submit" disabled={busy}>
          {busy ? "Exporting…" : `Export ${format.toUpperCase()}`}
        </button>
      </div>
      {state && <Notice>{state}</Notice>}
      <ErrorBox error={error} />
    </form>
  );
}
