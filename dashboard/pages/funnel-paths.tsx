/**
 * A video's funnel paths (docs/api.md "Funnels"): where viewers went from this video
 * through quiz choices and CTA cards that name a next video. One table row per step,
 * depth first, each indented under the step it came from and naming its whole path,
 * with a bar of its share of this video's sessions and the step's figures.
 */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { BarCell, DataTable, ErrorBox, Field, PageTitle, useAsync } from "../components.tsx";
import { pathRows } from "../funnel-paths.ts";
import { money, num, pct } from "../seller-format.ts";
import { VideoNav } from "./video-nav.tsx";
import type { FunnelReport, VideoRead } from "../../contract/api.ts";

const day = (d: Date) => d.toISOString().slice(0, 10);

export function FunnelPaths({ id }: { id: number }) {
  const [from, setFrom] = useState(day(new Date(Date.now() - 30 * 86_400_000)));
  const [to, setTo] = useState(day(new Date()));
  const [range, setRange] = useState({ from, to, n: 0 });
  const video = useAsync((signal) => call<VideoRead>("GET", `/videos/${id}`, { signal }).then((r) => r.video), [id]);
  const report = useAsync(
    (signal) => call<FunnelReport>("GET", `/funnels/report${qs({ entry_video: id, from: range.from, to: range.to })}`, { signal }),
    [id, range.from, range.to, range.n],
  );
  const invalid = from > to;
  const rows = report.data ? pathRows(report.data.steps) : [];
  return (
    <section>
      <VideoNav id={id} current="paths" title={video.data?.title} />
      <PageTitle>Funnel paths</PageTitle>
      <form class="card filters" onSubmit={(e) => (e.preventDefault(), !invalid && setRange({ from, to, n: range.n + 1 }))}>
        <Field id="fp-from" label="From">
          {(a) => <input {...a} type="date" value={from} max={to} onInput={(e) => setFrom(e.currentTarget.value)} required />}
        </Field>
        <Field id="fp-to" label="To" errors={invalid ? ["Must be on or after From."] : undefined}>
          {(a) => <input {...a} type="date" value={to} min={from} onInput={(e) => setTo(e.currentTarget.value)} required />}
        </Field>
        <button type="submit" disabled={invalid}>
          Refresh
        </button>
        <p class="hint">
          A quiz choice or a CTA card with a next video (Player settings) sends the viewer on to it in the same player. Each path counts the sessions that took
          it.
        </p>
      </form>
      <ErrorBox error={report.error} />
      {rows.length === 1 && <p>No viewer took a choice to another video in this window.</p>}
      {rows.length > 0 && (
        <DataTable class="breakdown" label="Funnel paths" text={["Path", "Sessions"]} numeric={["Viewers", "Plays", "Completions", "Leads", "Revenue"]}>
          {rows.map(({ step, path, share }) => (
            <tr key={step.id} data-step={step.id}>
              <th scope="row" style={{ paddingLeft: `${0.5 + step.depth * 1.5}rem` }}>
                <span class="sr-only">{path}</span>
                <span aria-hidden="true">
                  {step.choice ? `↳ “${step.choice.label}” → ` : ""}
                  {step.video.title || `#${step.video.id}`}
                </span>
              </th>
              <BarCell value={step.sessions} max={rows[0]!.step.sessions || 1} shown={`${num(step.sessions)}${step.depth ? ` (${pct(share)})` : ""}`} />
              <td class="num">{num(step.viewers)}</td>
              <td class="num">{num(step.plays)}</td>
              <td class="num">{num(step.completions)}</td>
              <td class="num">{num(step.leads)}</td>
              <td class="num">{step.revenue.length ? step.revenue.map((r) => money(r.amount, r.currency)).join(" · ") : "—"}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
