/**
 * Home: how the business is doing over a window (today, 7, 30 or 90 days, or custom,
 * kept in the URL) against the window before it, who is watching now, plays and
 * impressions a day, and every video ranked by what pays, read from
 * GET /analytics/overview and GET /analytics/live. A new
 * workspace is walked through upload, settings and the embed snippet instead.
 */
import { useEffect, useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { Chart } from "../chart.tsx";
import { ErrorBox, Field, Link, PageTitle, Pager, useAsync, TableHead, Select, BarCell } from "../components.tsx";
import { navigate } from "../router.ts";
import { FRESHNESS, money, num, pct, type SellerMetrics } from "../seller-format.ts";
import { Stat } from "./seller.tsx";
import { change, daysIn, daysOf, PRESETS, presetWindow, previousWindow, totalsOf, type Preset, type Totals, type Window } from "../business.ts";
import type { WatchingNow as Live, WorkspaceOverview as Overview, WorkspaceOverviewRow as Row } from "../../contract/api.ts";

const today = () => new Date().toISOString().slice(0, 10);
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const MAX_DAYS = 366;

const SORTS = [
  { v: "rpv", l: "Revenue per viewer" },
  { v: "play_rate", l: "Play rate" },
  { v: "conversion_rate", l: "Conversion rate" },
  { v: "revenue", l: "Revenue" },
  { v: "impressions", l: "Impressions" },
  { v: "unmute_rate", l: "Unmute rate" },
];

/** Every video's row over `w` (all pages). */
async function rowsOf(w: Window, signal: AbortSignal): Promise<{ rows: Row[]; total: number }> {
  const rows: Row[] = [];
  for (let page = 1; ; page++) {
    const res = await call<Overview>("GET", `/analytics/overview${qs({ from: w.from, to: w.to, page, per_page: 200 })}`, { signal });
    rows.push(...res.videos);
    if (rows.length >= res.total || res.videos.length === 0) return { rows, total: res.total };
  }
}

/** Totals of each day of `w`, a few reads at a time. */
async function daily(w: Window, signal: AbortSignal): Promise<{ day: string; totals: Totals }[]> {
  const days = daysOf(w);
  const out: { day: string; totals: Totals }[] = [];
  for (let i = 0; i < days.length; i += 6) {
    const batch = days.slice(i, i + 6);
    const read = await Promise.all(batch.map((d) => rowsOf({ from: d, to: d }, signal)));
    read.forEach((r, j) => out.push({ day: batch[j]!, totals: totalsOf(r.rows) }));
  }
  return out;
}

/** The window the URL names: `?window=7d`, or `?from=&to=` for a custom one; 30 days otherwise. */
function windowOf(query: URLSearchParams): { preset: Preset | "custom"; w: Window } {
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  if (DATE.test(from) && DATE.test(to) && from <= to && daysIn({ from, to }) <= MAX_DAYS) return { preset: "custom", w: { from, to } };
  const preset = (PRESETS.find((p) => p.v === query.get("window"))?.v ?? "30d") as Preset;
  return { preset, w: presetWindow(preset, today()) };
}

const changeNote = (now: number | null, before: number | null, label: string) => {
  const c = change(now, before);
  if (c === null) return `no ${label} to compare`;
  return `${c >= 0 ? "▲ up" : "▼ down"} ${Math.abs(c * 100).toFixed(1)} % on the ${label}`;
};

export function Home({ query }: { query: URLSearchParams }) {
  const { preset, w } = windowOf(query);
  const before = previousWindow(w);
  const [custom, setCustom] = useState<Window>(w);
  const [sort, setSort] = useState("rpv");
  const [page, setPage] = useState(1);
  const key = [w.from, w.to];
  const now = useAsync((signal) => rowsOf(w, signal), key);
  const then = useAsync((signal) => rowsOf(before, signal), key);
  const days = useAsync((signal) => daily(w, signal), key);
  const list = useAsync(
    (signal) => call<Overview>("GET", `/analytics/overview${qs({ from: w.from, to: w.to, sort, page, per_page: 25 })}`, { signal }),
    [w.from, w.to, sort, page],
  );
  const go = (q: Record<string, string>) => (setPage(1), navigate("/home" + qs(q), true));
  const previousLabel = preset === "today" ? "day before" : `previous ${daysIn(w)} days`;

  if (now.data && now.data.total === 0) return <FirstSteps />;
  const t = now.data && totalsOf(now.data.rows);
  const p = then.data && totalsOf(then.data.rows);
  const note = (pick: (x: Totals) => number | null) => (t && p ? changeNote(pick(t), pick(p), previousLabel) : undefined);
  const inCurrency = (x: Totals | undefined, currency: string | null) => x?.revenue.find((c) => c.currency === currency);

  const data = list.data;
  const currency = data?.currency ?? null;
  const rowCurrency = (r: Row) => r.revenue.find((c) => c.currency === currency);
  const rankValue = (r: Row): number => {
    if (sort === "rpv") return rowCurrency(r)?.rpv ?? 0;
    if (sort === "revenue") return rowCurrency(r)?.revenue ?? 0;
    return (r[sort as keyof SellerMetrics] as number | null) ?? 0;
  };
  const max = Math.max(1e-9, ...(data?.videos ?? []).map(rankValue));
  const last = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;
  return (
    <section>
      <PageTitle>Home</PageTitle>
      <div class="card filters">
        <nav aria-label="Window" class="tabs">
          <ul>
            {PRESETS.map((o) => (
              <li key={o.v}>
                <Link href={`/home?window=${o.v}`} aria-current={preset === o.v ? "page" : undefined}>
                  {o.l}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <form class="row" onSubmit={(e) => (e.preventDefault(), go({ from: custom.from, to: custom.to }))} aria-label="Custom window">
          <Field id="home-from" label="From">
            {(a) => (
              <input {...a} type="date" value={custom.from} max={custom.to} onInput={(e) => setCustom({ ...custom, from: e.currentTarget.value })} required />
            )}
          </Field>
          <Field id="home-to" label="To">
            {(a) => (
              <input {...a} type="date" value={custom.to} min={custom.from} onInput={(e) => setCustom({ ...custom, to: e.currentTarget.value })} required />
            )}
          </Field>
          <button type="submit" class="secondary" disabled={custom.from > custom.to}>
            Show these days
          </button>
        </form>
        <p class="hint" data-window={`${w.from}/${w.to}`}>
          {w.from === w.to ? w.from : `${w.from} to ${w.to}`} (UTC), compared with {before.from === before.to ? before.from : `${before.from} to ${before.to}`}.
        </p>
        <p class="hint" data-freshness>
          {FRESHNESS}
        </p>
      </div>

      <ErrorBox error={now.error ?? then.error} />
      {t && (
        <ul class="cards" aria-label="Your business">
          <WatchingNow />
          <Stat label="Impressions" value={num(t.impressions)} note={note((x) => x.impressions)} hint="Sessions shown a player" />
          <Stat label="Plays" value={num(t.plays)} note={note((x) => x.plays)} hint="True plays: a click on play, or an unmute of an autoplay" />
          <Stat label="Play rate" value={pct(t.play_rate)} note={note((x) => x.play_rate)} />
          <Stat label="Leads" value={num(t.leads)} note={note((x) => x.leads)} />
          <Stat label="Orders" value={num(t.orders)} note={note((x) => x.orders)} />
          {(t.revenue.length ? t.revenue : [{ currency: null, revenue: 0, rpv: null, roas: null }]).flatMap((c) => {
            const was = inCurrency(p, c.currency);
            const suffix = c.currency ? ` (${c.currency})` : "";
            const compared = (now: number | null, then: number | null | undefined) => (p ? changeNote(now, then ?? null, previousLabel) : undefined);
            return [
              <Stat key={`r${c.currency}`} label={`Revenue${suffix}`} value={money(c.revenue, c.currency)} note={compared(c.revenue, was?.revenue)} />,
              <Stat
                key={`v${c.currency}`}
                label={`Revenue per viewer${suffix}`}
                value={money(c.rpv, c.currency)}
                note={compared(c.rpv, was?.rpv)}
                hint="Revenue over the viewers of each video, added up"
              />,
              <Stat
                key={`s${c.currency}`}
                label={`ROAS${suffix}`}
                value={c.roas === null ? "—" : `${c.roas.toFixed(2)}×`}
                note={compared(c.roas, was?.roas)}
                hint="Revenue over the ad spend entered on the videos' analytics pages"
              />,
            ];
          })}
        </ul>
      )}

      <section class="card" aria-labelledby="daily-title">
        <h2 id="daily-title">Plays and impressions a day</h2>
        <ErrorBox error={days.error} />
        {days.loading && !days.data && <p>Loading the days…</p>}
        {days.data && (
          <Chart
            title="Impressions and true plays per day (UTC)"
            xTime
            xLabel="Day"
            yLabel="Sessions"
            data={[days.data.map((d) => Date.parse(d.day) / 1000), days.data.map((d) => d.totals.impressions), days.data.map((d) => d.totals.plays)]}
            series={[
              { label: "Impressions", color: "#6366f1" },
              { label: "Plays", color: "#047857" },
            ]}
            summary={`${days.data.reduce((n, d) => n + d.totals.impressions, 0)} impressions and ${days.data.reduce((n, d) => n + d.totals.plays, 0)} plays from ${w.from} to ${w.to}.`}
          />
        )}
      </section>

      <ErrorBox error={list.error} />
      {data && data.videos.length > 0 && (
        <section class="card" aria-labelledby="rank-title">
          <h2 id="rank-title">Videos by {SORTS.find((s) => s.v === sort)?.l.toLowerCase()}</h2>
          <Select id="home-sort" label="Rank videos by" value={sort} options={SORTS} onChange={(v) => (setSort(v), setPage(1))} />
          {currency && <p class="hint">Money in {currency}, the currency with the most orders.</p>}
          <div class="table-wrap">
            <table class="breakdown" aria-label="Videos ranked">
              <TableHead
                text={["Video", SORTS.find((s) => s.v === sort)?.l]}
                numeric={["Impressions", "Play rate", "Conv. rate", "Revenue", "Rev. per viewer"]}
              />
              <tbody>
                {data.videos.map((r) => {
                  const c = rowCurrency(r);
                  const shown =
                    sort === "rpv" || sort === "revenue"
                      ? money(sort === "rpv" ? (c?.rpv ?? null) : (c?.revenue ?? null), currency)
                      : sort === "impressions"
                        ? num(r.impressions)
                        : pct(r[sort as "play_rate" | "conversion_rate" | "unmute_rate"]);
                  return (
                    <tr key={r.video_id} data-home-video={r.video_id}>
                      <td>
                        <Link href={`/videos/${r.video_id}/analytics`}>{r.title}</Link>
                      </td>
                      <BarCell value={rankValue(r)} max={max} shown={shown} />
                      <td class="num">{num(r.impressions)}</td>
                      <td class="num">{pct(r.play_rate)}</td>
                      <td class="num">{pct(r.conversion_rate, 2)}</td>
                      <td class="num">{money(c?.revenue ?? null, currency)}</td>
                      <td class="num">{money(c?.rpv ?? null, currency)}</td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
          <Pager label="Video pages" page={page} last={last} onPage={setPage} />
        </section>
      )}
    </section>
  );
}

/** Viewers with a heartbeat in the last minute, read again every 15 seconds. */
function WatchingNow() {
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((n) => n + 1), 15_000);
    return () => clearInterval(timer);
  }, []);
  const live = useAsync((signal) => call<Live>("GET", "/analytics/live", { signal }), [tick]);
  return <Stat label="Watching now" value={live.data ? num(live.data.watching_now) : "…"} hint="Viewers whose player sent a heartbeat in the last minute" />;
}

/** A workspace with no video yet: the three steps to a first sale. */
function FirstSteps() {
  return (
    <section>
      <PageTitle>Welcome to Frameline</PageTitle>
      <div class="card">
        <h2>Three steps to your first video on your page</h2>
        <ol class="steps">
          <li>
            <strong>Upload a video.</strong> <Link href="/videos">Create a video and upload its file</Link>; it is ready to play in a minute or two.
          </li>
          <li>
            <strong>Brand the player.</strong> On the video's page open <em>Player settings</em>: colours, a headline, a call to action, then deploy.
          </li>
          <li>
            <strong>Embed it.</strong> Copy the embed snippet from the video's page into your sales page. Plays, leads and sales then show here.
          </li>
        </ol>
      </div>
    </section>
  );
}
