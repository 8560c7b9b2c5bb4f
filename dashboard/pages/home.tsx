/** Home: every video of the workspace ranked by what pays (GET /analytics/overview). */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { ErrorBox, Field, Link, PageTitle, Pager, useAsync, TableHead, Select, BarCell } from "../components.tsx";
import { money, num, pct, type SellerMetrics } from "../seller-format.ts";
import type { WorkspaceOverview as Overview, WorkspaceOverviewRow as Row } from "../../contract/api.ts";

const day = (d: Date) => d.toISOString().slice(0, 10);

const SORTS = [
  { v: "rpv", l: "Revenue per viewer" },
  { v: "play_rate", l: "Play rate" },
  { v: "conversion_rate", l: "Conversion rate" },
  { v: "revenue", l: "Revenue" },
  { v: "impressions", l: "Impressions" },
  { v: "unmute_rate", l: "Unmute rate" },
];

export function Home() {
  const [from, setFrom] = useState(day(new Date(Date.now() - 30 * 86_400_000)));
  const [to, setTo] = useState(day(new Date()));
  const [sort, setSort] = useState("rpv");
  const [page, setPage] = useState(1);
  const list = useAsync(
    (signal) => call<Overview>("GET", `/analytics/overview${qs({ from, to, sort, page, per_page: 25 })}`, { signal }),
    [from, to, sort, page],
  );
  const data = list.data;
  const currency = data?.currency ?? null;
  const inCurrency = (r: Row) => r.revenue.find((c) => c.currency === currency);
  const rankValue = (r: Row): number => {
    if (sort === "rpv") return inCurrency(r)?.rpv ?? 0;
    if (sort === "revenue") return inCurrency(r)?.revenue ?? 0;
    return (r[sort as keyof SellerMetrics] as number | null) ?? 0;
  };
  const max = Math.max(1e-9, ...(data?.videos ?? []).map(rankValue));
  const last = data ? Math.max(1, Math.ceil(data.total / data.per_page)) : 1;
  return (
    <section>
      <PageTitle>Home</PageTitle>
      <form class="card filters" onSubmit={(e) => e.preventDefault()}>
        <Field id="home-from" label="From">
          {(a) => <input {...a} type="date" value={from} max={to} onInput={(e) => (setFrom(e.currentTarget.value), setPage(1))} required />}
        </Field>
        <Field id="home-to" label="To">
          {(a) => <input {...a} type="date" value={to} min={from} onInput={(e) => (setTo(e.currentTarget.value), setPage(1))} required />}
        </Field>
        <Select id="home-sort" label="Rank videos by" value={sort} options={SORTS} onChange={(v) => (setSort(v), setPage(1))} />
        {currency && <p class="hint">Money in {currency}, the currency with the most orders.</p>}
      </form>
      <ErrorBox error={list.error} />
      {data && data.total === 0 && (
        <p>
          No videos yet. <Link href="/videos">Create one</Link> first.
        </p>
      )}
      {data && data.videos.length > 0 && (
        <section class="card" aria-labelledby="rank-title">
          <h2 id="rank-title">Videos by {SORTS.find((s) => s.v === sort)?.l.toLowerCase()}</h2>
          <div class="table-wrap">
            <table class="breakdown" aria-label="Videos ranked">
              <TableHead
                text={["Video", SORTS.find((s) => s.v === sort)?.l]}
                numeric={["Impressions", "Play rate", "Conv. rate", "Revenue", "Rev. per viewer"]}
              />
              <tbody>
                {data.videos.map((r) => {
                  const c = inCurrency(r);
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
