/** One split test: its snippet, the report per variation, the goal over time, pause, resume and end with a winner. */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { Chart } from "../chart.tsx";
import { CopyButton, ErrorBox, Field, Link, PageTitle, useAsync, TableHead } from "../components.tsx";
import { FRESHNESS, money, num, pct } from "../seller-format.ts";
import { goalLabel, statusText } from "./split-tests.tsx";
import type { SplitTest, SplitTestRead, SplitTestReport as Report } from "../../contract/api.ts";

const COLORS = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490", "#4d7c0f", "#a16207", "#9333ea", "#475569"];

/** A difference of rates in percentage points, signed. */
const points = (d: number | null) => (d === null ? "—" : `${d > 0 ? "+" : ""}${(d * 100).toFixed(1)} pts`);

export function SplitTestPage({ id }: { id: number }) {
  const test = useAsync((signal) => call<SplitTestRead>("GET", `/split-tests/${id}`, { signal }), [id]);
  const [from, setFrom] = useState("");
  const [to, setTo] = useState("");
  const report = useAsync(
    (signal) => call<Report>("GET", `/split-tests/${id}/report${qs({ from: from || undefined, to: to || undefined })}`, { signal }),
    [id, from, to],
  );
  const t = test.data?.split_test;
  const r = report.data;
  const titleOf = (variationId: number | null) => t?.variations.find((v) => v.id === variationId)?.title ?? "—";

  return (
    <section>
      <p>
        <Link href="/split-tests">← Split tests</Link>
      </p>
      <PageTitle>{t ? t.name : "Split test"}</PageTitle>
      <ErrorBox error={test.error} />
      {t && (
        <div class="grid-2">
          <section class="card" aria-labelledby="st-state-title">
            <h2 id="st-state-title">State</h2>
            <p data-split-status={t.status}>
              <strong>{statusText(t)}</strong> · goal: {goalLabel(t.goal)}
            </p>
            {t.declared_winner && (
              <p class="notice" role="status" data-declared={t.declared_winner.variation_id}>
                Winner declared: {titleOf(t.declared_winner.variation_id)}
                {t.auto_promote ? " (promoted to everyone)" : ""}.
              </p>
            )}
            <Controls test={t} onChange={() => (test.reload(), report.reload())} />
          </section>
          <section class="card" aria-labelledby="st-embed-title">
            <h2 id="st-embed-title">Embed</h2>
            <p class="hint">Paste this on the page. While the test is not ended, the control's own embed serves the test too.</p>
            <label for="st-embed-code">Embed code</label>
            <textarea id="st-embed-code" class="mono" readOnly rows={4} value={t.embed.html} onFocus={(e) => e.currentTarget.select()} data-embed />
            <CopyButton text={t.embed.html} label="Copy the snippet" />
          </section>
        </div>
      )}

      <section class="card" aria-labelledby="st-report-title">
        <h2 id="st-report-title">Report</h2>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <Field id="st-from" label="From" hint="Default: the day the test started.">
            {(a) => <input {...a} type="date" value={from} max={to || undefined} onInput={(e) => setFrom(e.currentTarget.value)} />}
          </Field>
          <Field id="st-to" label="To" hint="Default: today.">
            {(a) => <input {...a} type="date" value={to} min={from || undefined} onInput={(e) => setTo(e.currentTarget.value)} />}
          </Field>
        </form>
        <ErrorBox error={report.error} />
        {r && t && (
          <>
            <div class="table-wrap">
              <table class="breakdown" aria-label="Results per variation">
                <TableHead
                  text={["Variation"]}
                  numeric={[
                    "Weight",
                    "Impressions",
                    "Plays",
                    "Play rate",
                    "Conversions",
                    "Conv. rate",
                    "Revenue",
                    "Rev. per viewer",
                    "Goal rate",
                    "vs control (95 % interval)",
                    "Chance to beat control",
                  ]}
                />
                <tbody>
                  {r.variations.map((v) => (
                    <tr key={v.variation_id} data-report-variation={v.variation_id}>
                      <th scope="row">
                        {v.title ?? "(deleted video)"}
                        {v.control ? " (control)" : ""}
                      </th>
                      <td class="num">{v.weight} %</td>
                      <td class="num" data-impressions>
                        {num(v.impressions)}
                      </td>
                      <td class="num">{num(v.plays)}</td>
                      <td class="num">{pct(v.play_rate)}</td>
                      <td class="num">{num(v.conversions)}</td>
                      <td class="num">{pct(v.conversion_rate)}</td>
                      <td class="num">{v.revenue.length ? v.revenue.map((c) => money(c.revenue, c.currency)).join(", ") : "—"}</td>
                      <td class="num" data-rpv>
                        {v.revenue.length ? v.revenue.map((c) => money(c.rpv, c.currency)).join(", ") : "—"}
                      </td>
                      <td class="num" data-goal-rate>
                        {pct(v.goal.rate)}{" "}
                        <span class="muted small">
                          ({v.goal.successes} of {v.goal.trials})
                        </span>
                      </td>
                      <td class="num">{v.control ? "—" : `${points(v.goal.difference)} [${points(v.goal.ci_low)}, ${points(v.goal.ci_high)}]`}</td>
                      <td class="num">{pct(v.goal.probability_to_beat_control, 0)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <p class="muted" data-decision>
              {r.decision.declared_variation_id !== null
                ? `${titleOf(r.decision.declared_variation_id)} was declared the winner.`
                : !r.decision.sample_reached
                  ? `Not enough data yet: every variation needs at least ${r.decision.minimum_trials} ${t.goal === "conversion" ? "plays" : "impressions"}.`
                  : r.decision.significant
                    ? `${titleOf(r.decision.leader_variation_id)} leads significantly at 95 %; the winner is declared within a minute.`
                    : `${titleOf(r.decision.leader_variation_id)} leads, but not significantly yet.`}{" "}
              Method: {r.decision.method}.
            </p>
            <p class="hint" data-freshness>
              {FRESHNESS} Revenue per viewer divides by distinct viewers.
            </p>
            {r.series.length > 0 && (
              <Chart
                title={`${goalLabel(t.goal).split(" (")[0]} over time, cumulative`}
                xTime
                xLabel="Day"
                yLabel="Rate (%)"
                data={[
                  r.series.map((d) => Date.parse(d.date) / 1000),
                  ...r.variations.map((v) =>
                    r.series.map((d) => {
                      const rate = d.variations.find((x) => x.variation_id === v.variation_id)?.cumulative_rate ?? null;
                      return rate === null ? null : Math.round(rate * 1000) / 10;
                    }),
                  ),
                ]}
                series={r.variations.map((v, i) => ({ label: `${v.title ?? "(deleted)"}${v.control ? " (control)" : ""}`, color: COLORS[i % COLORS.length]! }))}
                summary={r.variations.map((v) => `${v.title ?? "(deleted)"}: ${pct(v.goal.rate)}`).join("; ")}
              />
            )}
          </>
        )}
      </section>
    </section>
  );
}

function Controls({ test, onChange }: { test: SplitTest; onChange: () => void }) {
  const [winner, setWinner] = useState(String(test.declared_winner?.variation_id ?? test.control_variation_id));
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const act = async (path: string, body?: unknown) => {
    setError(undefined);
    setBusy(true);
    try {
      await call("POST", `/split-tests/${test.id}/${path}`, { body });
      onChange();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  if (test.status === "ended") return null;
  return (
    <>
      <div class="row">
        {test.status === "running" ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => act("pause")}>
            Pause
          </button>
        ) : (
          <button type="button" class="secondary" disabled={busy} onClick={() => act("resume")}>
            Resume
          </button>
        )}
      </div>
      <form
        class="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (confirm("End the test? The chosen video is then served to everyone who sees the test's snippet."))
            act("end", { winner_variation_id: Number(winner) });
        }}
      >
        <Field id="st-winner" label="Winner">
          {(a) => (
            <select {...a} value={winner} onChange={(e) => setWinner(e.currentTarget.value)}>
              {test.variations.map((v) => (
                <option key={v.id} value={String(v.id)}>
                  {v.title ?? "(deleted video)"}
                  {v.control ? " (control)" : ""}
                </option>
              ))}
            </select>
          )}
        </Field>
        <button type="submit" class="danger" disabled={busy}>
          End the test
        </button>
      </form>
      <ErrorBox error={error} />
    </>
  );
}
