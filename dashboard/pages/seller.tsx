/** The seller's view of one video: overview cards, playback quality, buyers against everyone, breakdowns, ad spend. */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { Chart } from "../chart.tsx";
import { ErrorBox, Field, fieldErrors, Notice, useAsync, DataTable, Select, ActionCell, BarCell } from "../components.tsx";
import { DIMENSIONS, money, num, pct, seconds } from "../seller-format.ts";
import type {
  AdSpendList,
  AdSpendEntry as SpendRow,
  Breakdown as BreakdownReply,
  BreakdownRow,
  Retention,
  SellerOverview as OverviewReply,
} from "../../contract/api.ts";

interface Range {
  id: number;
  from: string;
  to: string;
  n: number;
}

/** One figure of a card list; `note` (Home's change against the window before) is written under it. */
export function Stat({ label, value, hint, note }: { label: string; value: string; hint?: string; note?: string }) {
  return (
    <li class="stat" title={hint}>
      <span class="stat-label">{label}</span>
      <span class="stat-value" data-overview={label}>
        {value}
      </span>
      {note && (
        <span class="stat-note" data-change={label}>
          {note}
        </span>
      )}
    </li>
  );
}

export function SellerOverview({ id, from, to, n, spendVersion }: Range & { spendVersion: number }) {
  const o = useAsync(
    (signal) => call<OverviewReply>("GET", `/videos/${id}/analytics/overview${qs({ from, to })}`, { signal }).then((r) => r.overview),
    [id, from, to, n, spendVersion],
  );
  return (
    <section class="card" aria-labelledby="ov-title">
      <h2 id="ov-title">Seller overview</h2>
      <ErrorBox error={o.error} />
      {o.data && (
        <>
          <ul class="cards" aria-label="Seller overview">
            <Stat label="Impressions" value={num(o.data.impressions)} hint="Sessions shown the player" />
            <Stat label="True plays" value={num(o.data.plays)} hint="A click on play, or an unmute of an autoplay" />
            <Stat label="Play rate" value={pct(o.data.play_rate)} />
            <Stat label="Autoplays" value={num(o.data.autoplays)} />
            <Stat label="Unmute rate" value={pct(o.data.unmute_rate)} />
            <Stat label="Unique viewers" value={num(o.data.unique_viewers)} hint="Distinct devices among the impressions" />
            <Stat label="Avg. watch time" value={seconds(o.data.avg_watch_time_s)} />
            <Stat label="Avg. watched" value={o.data.avg_percent_watched === null ? "—" : `${o.data.avg_percent_watched} %`} />
            <Stat label="Leads" value={num(o.data.leads)} />
            <Stat label="Orders" value={num(o.data.orders)} />
            <Stat label="Conversion rate" value={pct(o.data.conversion_rate, 2)} hint="Sales traced to a session that played / plays" />
          </ul>
          {o.data.revenue.length === 0 ? (
            <p class="muted">No verified sales in this range.</p>
          ) : (
            <div class="table-wrap">
              <table aria-label="Revenue per currency">
                <thead>
                  <tr>
                    {["Currency", "Orders", "Revenue", "AOV", "Revenue per viewer", "EPC", "Ad spend", "ROAS"].map((h) => (
                      <th key={h} scope="col" class={h === "Currency" ? undefined : "num"}>
                        {h}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {o.data.revenue.map((c) => (
                    <tr key={c.currency ?? "none"} data-currency={c.currency ?? ""}>
                      <td>{c.currency ?? "(none)"}</td>
                      <td class="num">{c.orders}</td>
                      <td class="num">{money(c.revenue, c.currency)}</td>
                      <td class="num">{money(c.aov, c.currency)}</td>
                      <td class="num">{money(c.rpv, c.currency)}</td>
                      <td class="num">{money(c.epc, c.currency)}</td>
                      <td class="num">{money(c.ad_spend, c.currency)}</td>
                      <td class="num">{c.roas === null ? "—" : `${c.roas}×`}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {o.data.cta_clicks.length > 0 && (
            <p class="muted">
              Sessions that clicked a CTA:{" "}
              {o.data.cta_clicks.map((c) => `card ${c.card_index + 1}: ${c.sessions} session${c.sessions === 1 ? "" : "s"}`).join(", ")}
            </p>
          )}
          <h3>Playback quality</h3>
          <ul class="cards" aria-label="Playback quality">
            <Stat label="Startup p50" value={o.data.startup_time_ms.p50 === null ? "—" : `${o.data.startup_time_ms.p50} ms`} />
            <Stat label="Startup p95" value={o.data.startup_time_ms.p95 === null ? "—" : `${o.data.startup_time_ms.p95} ms`} />
            <Stat label="Rebuffer ratio" value={pct(o.data.rebuffer_ratio, 2)} hint="Stalled time / watch time" />
            <Stat label="Player errors" value={num(o.data.errors)} />
          </ul>
        </>
      )}
    </section>
  );
}

/** One curve of a RetentionChart: its legend, its colour and the buckets of a retention read. */
interface RetentionCurve {
  label: string;
  color: string;
  buckets: Retention["buckets"];
}

/** Retention curves over the same buckets: the share of viewers still watching at each position of the video. */
export function RetentionChart({ title, curves, summary }: { title: string; curves: RetentionCurve[]; summary: string }) {
  return (
    <Chart
      title={title}
      xLabel="Position in video (%)"
      yLabel="Watching (%)"
      data={[curves[0]?.buckets.map((b) => b.bucket_pct) ?? [], ...curves.map((c) => c.buckets.map((b) => Math.round(b.watch_pct * 1000) / 10))]}
      series={curves.map(({ label, color }) => ({ label, color }))}
      summary={summary}
    />
  );
}

export function BuyerRetention({ id, from, to, n }: Range) {
  const curves = useAsync(
    (signal) =>
      Promise.all(
        // 100 buckets: the curves sealed hours keep (README "How fresh, how exact"), so a long window stays fast.
        ["buyers", "non_buyers"].map((segment) =>
          call<Retention>("GET", `/videos/${id}/analytics/retention${qs({ from, to, buckets: 100, segment })}`, { signal }).then((r) => r.buckets),
        ),
      ),
    [id, from, to, n],
  );
  return (
    <section class="card" aria-labelledby="buyers-title">
      <h2 id="buyers-title">Buyers against everyone else</h2>
      <ErrorBox error={curves.error} />
      {curves.data && (
        <RetentionChart
          title="Share still watching: buyers and non-buyers"
          curves={[
            { label: "Buyers (%)", color: "#047857", buckets: curves.data[0]! },
            { label: "Non-buyers (%)", color: "#b45309", buckets: curves.data[1]! },
          ]}
          summary={`At the middle of the video ${Math.round((curves.data[0]![50]?.watch_pct ?? 0) * 100)} % of buyers and ${Math.round((curves.data[1]![50]?.watch_pct ?? 0) * 100)} % of non-buyers are still watching.`}
        />
      )}
    </section>
  );
}

/** A select of what a breakdown groups by. */
export function DimensionSelect({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (v: string) => void }) {
  return <Select id={id} label={label} value={value} options={DIMENSIONS} onChange={onChange} />;
}

export function Breakdown({ id, from, to, n }: Range) {
  const [by, setBy] = useState("source");
  const rows = useAsync(
    (signal) => call<BreakdownReply>("GET", `/videos/${id}/analytics/breakdown${qs({ by, from, to })}`, { signal }).then((r) => r.rows),
    [id, from, to, n, by],
  );
  const max = Math.max(1, ...(rows.data ?? []).map((r) => r.impressions));
  const label = (r: BreakdownRow) => (r.other ? "Other" : (r.value ?? "Unknown"));
  return (
    <section class="card" aria-labelledby="bd-title">
      <h2 id="bd-title">Breakdown</h2>
      <div class="filters">
        <DimensionSelect id="bd-by" label="Break down by" value={by} onChange={setBy} />
      </div>
      <ErrorBox error={rows.error} />
      {rows.data && rows.data.length === 0 && <p>No impressions in this range.</p>}
      {rows.data && rows.data.length > 0 && (
        <DataTable
          class="breakdown"
          label={`Breakdown by ${by}`}
          text={["Value"]}
          numeric={["Impressions", "Play rate", "Conv. rate", "Orders", "Revenue", "Rev. per viewer", "Rebuffer"]}
        >
          {rows.data.map((r) => (
            <tr key={`${r.other}:${r.value}`} data-breakdown-value={label(r)}>
              <td>{label(r)}</td>
              <BarCell value={r.impressions} max={max} shown={r.impressions} />
              <td class="num">{pct(r.play_rate)}</td>
              <td class="num">{pct(r.conversion_rate, 2)}</td>
              <td class="num">{r.orders}</td>
              <td class="num">{r.revenue.map((c) => money(c.revenue, c.currency)).join(" · ") || "—"}</td>
              <td class="num">{r.revenue.map((c) => money(c.rpv, c.currency)).join(" · ") || "—"}</td>
              <td class="num">{pct(r.rebuffer_ratio, 2)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

export function AdSpend({ id, from, to, onChange }: { id: number; from: string; to: string; onChange: () => void }) {
  const [form, setForm] = useState({ date: to, source: "", currency: "USD", amount: "" });
  const [error, setError] = useState<unknown>();
  const [saved, setSaved] = useState("");
  const list = useAsync((signal) => call<AdSpendList>("GET", `/videos/${id}/ad-spend${qs({ from, to })}`, { signal }).then((r) => r.ad_spend), [id, from, to]);
  const errs = fieldErrors(error);
  const save = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setSaved("");
    try {
      await call("POST", `/videos/${id}/ad-spend`, {
        body: { date: form.date, source: form.source, currency: form.currency, amount: Number(form.amount) },
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      setSaved(`Saved ${form.amount} ${form.currency.toUpperCase()} for ${form.source} on ${form.date}.`);
      list.reload();
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const remove = async (row: SpendRow) => {
    setError(undefined);
    try {
      await call("DELETE", `/videos/${id}/ad-spend/${row.id}`);
      list.reload();
      onChange();
    } catch (err) {
      setError(err);
    }
  };
  const set = (k: keyof typeof form) => (e: Event) => setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
  return (
    <section class="card" aria-labelledby="spend-title">
      <h2 id="spend-title">Ad spend</h2>
      <p class="hint">ROAS = revenue / ad spend in the same currency. The same day and source again replaces the figure.</p>
      <form class="filters" onSubmit={save}>
        <Field id="sp-date" label="Day" errors={errs.date}>
          {(a) => <input {...a} type="date" value={form.date} onInput={set("date")} required />}
        </Field>
        <Field id="sp-source" label="Source" errors={errs.source} hint="e.g. facebook">
          {(a) => <input {...a} value={form.source} onInput={set("source")} maxLength={100} required />}
        </Field>
        <Field id="sp-amount" label="Amount" errors={errs.amount}>
          {(a) => <input {...a} type="number" min="0" step="0.01" value={form.amount} onInput={set("amount")} required />}
        </Field>
        <Field id="sp-currency" label="Currency" errors={errs.currency}>
          {(a) => <input {...a} value={form.currency} onInput={set("currency")} maxLength={3} pattern="[A-Za-z]{3}" required />}
        </Field>
        <button type="submit">Save ad spend</button>
      </form>
      {saved && <Notice>{saved}</Notice>}
      <ErrorBox error={error && Object.keys(errs).length === 0 ? error : undefined} />
      <ErrorBox error={list.error} />
      {list.data && list.data.length > 0 && (
        <DataTable label="Ad spend entries" text={["Day", "Source"]} numeric={["Amount"]} actions>
          {list.data.map((row) => (
            <tr key={row.id}>
              <td>{row.date}</td>
              <td>{row.source}</td>
              <td class="num">{money(row.amount, row.currency)}</td>
              <ActionCell label="Delete" name={`Delete ${row.source} on ${row.date}`} onClick={() => remove(row)} />
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
