/** Split tests (README "Split tests"): the workspace's tests, and a new test from two or more videos. */
import { useState } from "preact/hooks";
import { call, qs } from "../api.ts";
import { ErrorBox, Field, fieldErrors, formatDate, Link, PageTitle, Pager, useAsync, DataTable, Select } from "../components.tsx";
import { navigate } from "../router.ts";
import type { Page, SlimVideo, SplitTest, SplitTestRead } from "../../contract/api.ts";

export const GOALS = [
  { v: "conversion", l: "Conversion rate (buyers / plays)" },
  { v: "play", l: "Play rate (plays / impressions)" },
  { v: "cta_click", l: "CTA click rate (clickers / impressions)" },
] as const;

export const goalLabel = (goal: string) => GOALS.find((g) => g.v === goal)?.l ?? goal;

export function statusText(t: SplitTest): string {
  const serving = t.variations.find((v) => v.id === t.serving_variation_id);
  if (t.status === "ended") return `Ended: everyone sees ${serving?.title ?? "the winner"}`;
  if (t.status === "paused") return "Paused: everyone sees the control";
  if (serving) return `Winner promoted: everyone sees ${serving.title ?? "it"}`;
  return "Running";
}

export function SplitTests() {
  const [page, setPage] = useState(1);
  const list = useAsync((signal) => call<Page<SplitTest>>("GET", `/split-tests${qs({ page, per_page: 20 })}`, { signal }), [page]);
  return (
    <section>
      <PageTitle>Split tests</PageTitle>
      <div class="grid-2">
        <section class="card" aria-labelledby="st-list-title">
          <h2 id="st-list-title">Tests</h2>
          <ErrorBox error={list.error} />
          {list.data && list.data.total === 0 && <p>No split tests yet.</p>}
          {list.data && list.data.data.length > 0 && (
            <DataTable label="Split tests" text={["Name", "Goal", "Videos", "Status", "Created"]}>
              {list.data.data.map((t) => (
                <tr key={t.id} data-split-test-row={t.id}>
                  <td>
                    <Link href={`/split-tests/${t.id}`}>{t.name}</Link>
                  </td>
                  <td>{goalLabel(t.goal).split(" (")[0]}</td>
                  <td>{t.variations.map((v) => `${v.title ?? "(deleted)"} ${v.weight} %`).join(" · ")}</td>
                  <td>{statusText(t)}</td>
                  <td>{formatDate(t.created_at)}</td>
                </tr>
              ))}
            </DataTable>
          )}
          {list.data && list.data.last_page > 1 && <Pager label="Split test pages" page={page} last={list.data.last_page} onPage={setPage} />}
        </section>
        <CreateSplitTest />
      </div>
    </section>
  );
}

interface Row {
  video: string;
  weight: string;
}

/** Weights that add up to 100 for `n` variations (the first ones get the remainder). */
const evenWeights = (n: number) => Array.from({ length: n }, (_, i) => String(Math.floor(100 / n) + (i < 100 % n ? 1 : 0)));

function CreateSplitTest() {
  const videos = useAsync((signal) => call<Page<SlimVideo>>("GET", `/videos${qs({ per_page: 100, sort: "title", order: "asc" })}`, { signal }), []);
  const [name, setName] = useState("");
  const [goal, setGoal] = useState<string>("conversion");
  const [autoPromote, setAutoPromote] = useState(false);
  const [rows, setRows] = useState<Row[]>([
    { video: "", weight: "50" },
    { video: "", weight: "50" },
  ]);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const errors = fieldErrors(error);
  const sum = rows.reduce((n, r) => n + (Number(r.weight) || 0), 0);

  const setRow = (i: number, change: Partial<Row>) => setRows((all) => all.map((r, j) => (j === i ? { ...r, ...change } : r)));
  const resize = (n: number) =>
    setRows((all) => {
      const next = all.slice(0, n);
      while (next.length < n) next.push({ video: "", weight: "0" });
      return next.map((r, i) => ({ ...r, weight: evenWeights(n)[i]! }));
    });

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(undefined);
    setBusy(true);
    try {
      const { split_test } = await call<SplitTestRead>("POST", "/split-tests", {
        body: {
          name: name.trim(),
          goal,
          auto_promote: autoPromote,
          variations: rows.map((r) => ({ video_id: Number(r.video), weight: Number(r.weight) })),
        },
        headers: { "Idempotency-Key": crypto.randomUUID() },
      });
      navigate(`/split-tests/${split_test.id}`);
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="st-new-title">
      <h2 id="st-new-title">New split test</h2>
      <form onSubmit={submit} noValidate>
        <Field id="st-name" label="Name" errors={errors.name}>
          {(a) => <input {...a} value={name} maxLength={255} required onInput={(e) => setName(e.currentTarget.value)} />}
        </Field>
        <Select id="st-goal" label="Goal" errors={errors.goal} hint="What decides the winner." value={goal} options={GOALS} onChange={setGoal} />
        <fieldset>
          <legend>Videos and weights (the first is the control)</legend>
          {rows.map((r, i) => (
            <div class="row item" key={i} data-variation-row={i}>
              <Field id={`st-video-${i}`} label={i === 0 ? "Control video" : `Variation ${i + 1} video`}>
                {(a) => (
                  <select {...a} value={r.video} required onChange={(e) => setRow(i, { video: e.currentTarget.value })}>
                    <option value="">Choose a video</option>
                    {videos.data?.data.map((v) => (
                      <option key={v.id} value={String(v.id)}>
                        {v.title}
                      </option>
                    ))}
                  </select>
                )}
              </Field>
              <Field id={`st-weight-${i}`} label="Weight (%)">
                {(a) => (
                  <input
                    {...a}
                    type="number"
                    min={1}
                    max={99}
                    step={1}
                    value={r.weight}
                    required
                    onInput={(e) => setRow(i, { weight: e.currentTarget.value })}
                  />
                )}
              </Field>
            </div>
          ))}
          <p class={sum === 100 ? "hint" : "field-error"} aria-live="polite" data-weight-sum={sum}>
            Weights add up to {sum} %{sum === 100 ? "." : " (they must add up to 100 %)."}
          </p>
          {errors.variations && (
            <p class="field-error" data-field-error="variations">
              {errors.variations.join(" ")}
            </p>
          )}
          <div class="row">
            <button type="button" class="secondary" disabled={rows.length >= 10} onClick={() => resize(rows.length + 1)}>
              Add a video
            </button>
            <button type="button" class="secondary" disabled={rows.length <= 2} onClick={() => resize(rows.length - 1)}>
              Remove the last
            </button>
          </div>
        </fieldset>
        <div class="field">
          <label>
            <input type="checkbox" checked={autoPromote} onChange={(e) => setAutoPromote(e.currentTarget.checked)} /> Serve the winner to everyone once it is
            declared
          </label>
        </div>
        <ErrorBox error={error && Object.keys(errors).length === 0 ? error : undefined} />
        <button type="submit" disabled={busy}>
          {busy ? "Starting…" : "Start the test"}
        </button>
      </form>
      <ErrorBox error={videos.error} />
    </section>
  );
}
