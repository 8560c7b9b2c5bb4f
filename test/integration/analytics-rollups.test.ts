/**
 * Sealed hours and days (server/api/analytics/rollups.ts, group-rollups.ts) give the same
 * retention, summary, seller overview and breakdowns as every session read one by one:
 * fast-check generates sessions (videos, starts over three days, played or not, watched
 * ranges, a traffic source and country, a startup time, a CTA click, a lead, a sale made
 * minutes to hours later, crediting its video or another), a split-test variation
 * served, sales traced to no session, a seal at a random moment, rows
 * and postbacks that arrive after it for hours already sealed, and windows in several
 * time zones; every read through the rollups must equal the read from the sessions, exactly.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Deps } from "../../server/deps.ts";
import { computeRetention, retentionOfSessions } from "../../server/api/analytics/service.ts";
import { computeBreakdown, computeVideoMetrics, groupRows, maskPlan, STORED_MASKS, splitTestRows } from "../../server/api/analytics/overview.ts";
import { groupMetrics } from "../../server/api/analytics/metrics.ts";
import { type GroupRollupRow, groupRollupSql } from "../../server/api/analytics/group-rollups.ts";
import { SEAL_LAG_MS, sealedFor, sealedSpan, sealedUntil, sealRollups, summarySql } from "../../server/api/analytics/rollups.ts";
import { numberViewers, ORDINALS_LOCK } from "../../server/api/analytics/viewer-ordinals.ts";
import { latest, NOTHING_SEALED, PERIODS, type Sealed, sealedParam } from "../../server/api/analytics/periods.ts";
import { bucketsFromRows, rows, type SummaryRow, scopeParams, summaryFromRow } from "../../server/api/analytics/queries.ts";
import { resolveWindow } from "../../server/http/window.ts";
import { getEngines } from "../helpers/engines.ts";
import { BLANK_EVENT, insertEventRows } from "../helpers/event-rows.ts";

const DAY_MS = 86_400_000;
const BASE_MS = Date.parse("2026-11-10T00:00:00Z");
const DURATION_S = 600;
const ZONES = ["UTC", "America/New_York", "Asia/Kolkata", "Australia/Adelaide"];

interface GenSession {
  video: number;
  startMinute: number;
  played: boolean;
  ranges: [number, number][];
  /** Minutes after its start at which its second batch of rows arrives (it spans hours). */
  laterMinute: number;
  /** It ends with `ended`, in its second batch. */
  completed: boolean;
  source: string;
  country: string;
  startupMs: number | null;
  cta: number | null;
  lead: boolean;
  /** The split-test variation it was served (SPLIT_TEST), if any. */
  variation: number | null;
  sale: GenSale | null;
}

interface GenSale {
  /** Minutes after the session's start. */
  afterMinute: number;
  currency: string;
  amount: number;
  test: boolean;
  /** The browser's unverified row first (in the first batch), then the postback (in the second). */
  browserFirst: boolean;
  /** The video it credits: the session's own, the other of the test's two, or one outside the test. */
  credits: "own" | "other" | "outside";
}

/** The split test sessions are served a variation of (its videos: 1 and 2). */
const SPLIT_TEST = 77;
const creditedVideo = (video: number, credits: GenSale["credits"]) => (credits === "own" ? video : credits === "other" ? 3 - video : 3);

const saleArb = fc.record({
  afterMinute: fc.integer({ min: 0, max: 600 }),
  currency: fc.constantFrom("USD", "EUR", ""),
  amount: fc.integer({ min: 1, max: 500 }),
  test: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
  browserFirst: fc.boolean(),
  // Mostly its own video; a sale crediting a video outside the test sends a split-test report to every session.
  credits: fc.integer({ min: 0, max: 19 }).map((n): GenSale["credits"] => (n === 0 ? "outside" : n <= 4 ? "other" : "own")),
});

const sessionArb = fc.record({
  video: fc.integer({ min: 1, max: 2 }),
  startMinute: fc.integer({ min: 0, max: 3 * 24 * 60 - 1 }),
  played: fc.boolean(),
  ranges: fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: DURATION_S - 1 }), fc.integer({ min: 1, max: 300 }))
      .map(([a, len]): [number, number] => [a, Math.min(DURATION_S, a + len)]),
    { minLength: 1, maxLength: 3 },
  ),
  laterMinute: fc.integer({ min: 0, max: 180 }),
  completed: fc.boolean(),
  source: fc.constantFrom("", "google", "facebook"),
  country: fc.constantFrom("", "US", "DE"),
  startupMs: fc.option(fc.integer({ min: 1, max: 40 }).map((n) => n * 50)),
  cta: fc.option(fc.integer({ min: 0, max: 2 })),
  lead: fc.boolean(),
  variation: fc.option(fc.integer({ min: 1, max: 2 })),
  sale: fc.option(saleArb),
});

/** A played session of video 1 that watched its first minute, and nothing else: the example tests set what they check. */
const plainSession = (over: Partial<GenSession>): GenSession => ({
  video: 1,
  startMinute: 0,
  played: true,
  ranges: [[0, 60]],
  laterMinute: 0,
  completed: false,
  source: "",
  country: "",
  startupMs: null,
  cta: null,
  lead: false,
  variation: null,
  sale: null,
  ...over,
});

const stamp = (ms: number) => new Date(ms).toISOString().replace("T", " ").replace("Z", "");

/** The player rows of a session: a load and a play (or an autoplay) at its start, its ranges split in two batches. */
function rowsOf(ws: number, s: GenSession, i: number, batch: 0 | 1) {
  const start = BASE_MS + s.startMinute * 60_000;
  const at = batch === 0 ? start : start + s.laterMinute * 60_000;
  const common = { ...BLANK_EVENT, workspace_id: ws, video_id: s.video, video_code: `v${s.video}`, session_code: `s${ws}-${i}`, device_id: `d${i % 5}` };
  const half = Math.ceil(s.ranges.length / 2);
  const ranges = batch === 0 ? s.ranges.slice(0, half) : s.ranges.slice(half);
  const rows: (Record<string, unknown> & { event_type: string })[] = ranges.map(([a, b], k) => ({
    ...common,
    event_type: "watched",
    event_id: `${ws}-${i}-${batch}-${k}`,
    video_time: a,
    watch_seconds: b - a,
    properties: { duration_s: String(DURATION_S) },
    created_at: stamp(at + k),
    session_start: stamp(start),
  }));
  if (batch === 1 && s.completed) {
    rows.push({ ...common, event_type: "ended", event_id: `${ws}-${i}-ended`, created_at: stamp(at + 10), session_start: stamp(start) });
  }
  const extra = (type: string, properties: Record<string, string> = {}, value: number | null = null) =>
    rows.push({ ...common, event_type: type, event_id: `${ws}-${i}-${type}`, created_at: stamp(at + 5), session_start: stamp(start), properties, value });
  if (batch === 0) {
    const load: Record<string, string> = { utm_source: s.source, country: s.country };
    if (s.variation !== null) Object.assign(load, { split_test_id: String(SPLIT_TEST), split_test_variation_id: String(s.variation) });
    rows.push({ ...common, event_type: "load", event_id: `${ws}-${i}-load`, created_at: stamp(start), session_start: stamp(start), properties: load });
    rows.push({ ...common, event_type: s.played ? "play" : "autoplay", event_id: `${ws}-${i}-start`, created_at: stamp(start), session_start: stamp(start) });
    if (s.startupMs !== null) extra("startup", {}, s.startupMs);
  } else {
    if (!s.played && s.lead) extra("unmute");
    if (s.cta !== null) extra("cta_click", { card_index: String(s.cta) });
    if (s.lead) extra("lead_form_submitted");
  }
  return rows;
}

/** A sale's rows: the browser's unverified one (first batch, when it has one) and the verified postback (a later batch). */
function saleRows(ws: number, key: string, video: number, startMs: number, sale: GenSale, batch: 0 | 1, session: string) {
  const at = stamp(startMs + sale.afterMinute * 60_000);
  const row = {
    ...BLANK_EVENT,
    workspace_id: ws,
    video_id: creditedVideo(video, sale.credits),
    video_code: `v${creditedVideo(video, sale.credits)}`,
    event_type: "conversion",
    event: "purchase",
    event_id: `sale-${key}`,
    session_code: session,
    value: sale.amount,
    created_at: at,
    properties: { currency: sale.currency, is_test: sale.test ? "true" : "false" } as Record<string, string>,
  };
  if (batch === 0) return sale.browserFirst ? [{ ...row, properties: { ...row.properties, source: "browser" } }] : [];
  return [row];
}

/**
 * Inserts rows for hours sealed already, then seals a minute later: past the second a seal
 * allows for writes still landing as it starts, so that seal sees no row as new again.
 */
async function sealAfterLateRows(deps: Deps, late: Parameters<typeof insertEventRows>[1], aMinuteLater: () => void) {
  await insertEventRows(deps.ch, late);
  await Bun.sleep(1_100);
  aMinuteLater();
  await sealRollups(deps);
}

describe("retention and the summary from sealed hours and days", () => {
  test("equals the read of every session, with late rows, in any time zone", async () => {
    const { ch } = await getEngines();
    let ws = 9_000 + Math.floor(Math.random() * 1_000_000);
    const firstWs = ws + 1;
    // Split-test reads that took the sealed rows (no sale of a video outside the test), of all of them.
    let splitTestReads = 0;
    let fromSealed = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionArb, { minLength: 1, maxLength: 25 }),
        fc.array(fc.record({ video: fc.integer({ min: 1, max: 2 }), minute: fc.integer({ min: 0, max: 3 * 24 * 60 - 1 }), sale: saleArb }), { maxLength: 4 }),
        fc.integer({ min: 0, max: 4 * 24 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(...ZONES),
        async (sessions, untraced, sealHour, fromDay, days, tz) => {
          ws += 1;
          let now = BASE_MS + sealHour * 3_600_000 + SEAL_LAG_MS;
          const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
          const sales = (batch: 0 | 1) => [
            ...sessions.flatMap((s, i) => (s.sale ? saleRows(ws, `${ws}-${i}`, s.video, BASE_MS + s.startMinute * 60_000, s.sale, batch, `s${ws}-${i}`) : [])),
            ...untraced.flatMap((u, i) => saleRows(ws, `${ws}-u${i}`, u.video, BASE_MS + u.minute * 60_000, u.sale, batch, "")),
          ];
          await insertEventRows(ch, [...sessions.flatMap((s, i) => rowsOf(ws, s, i, 0)), ...sales(0)]);
          await sealRollups(deps);
          // Rows for hours sealed already: the next seal must take them.
          await sealAfterLateRows(
            deps,
            sessions.flatMap((s, i) => rowsOf(ws, s, i, 1)),
            () => (now += 60_000),
          );
          // Postbacks alone, for sessions whose hours are sealed: the seal finds those hours through the sessions.
          await insertEventRows(ch, sales(1));
          now += 60_000;
          await sealRollups(deps);
          const from = new Date(BASE_MS + (fromDay - 1) * DAY_MS).toISOString().slice(0, 10);
          const to = new Date(BASE_MS + (fromDay - 1 + days) * DAY_MS).toISOString().slice(0, 10);
          const w = resolveWindow(now, { from, to, tz }, 30);
          const scope = { workspaceId: ws, videoIds: [1, 2], start: w.start, end: w.end, tz: w.tz };
          const sealed = await computeRetention(deps, scope, 100);
          const everySession = await computeRetention(deps, scope, 100, "all", { sealed: false });
          expect([...sealed.entries()]).toEqual([...everySession.entries()]);
          // Buyers and non-buyers: the sealed sessions the window's sales name, against every session read with the sales.
          for (const segment of ["buyers", "non_buyers"] as const)
            expect([...(await computeRetention(deps, scope, 100, segment)).entries()]).toEqual([
              ...(await computeRetention(deps, scope, 100, segment, { sealed: false })).entries(),
            ]);
          // Curves of 20 and 4 buckets, counted from the stored buckets under their midpoints, against every session's watched ranges.
          const { durations } = await maskPlan(deps, scope);
          for (const buckets of [20, 4])
            for (const segment of ["all", "buyers", "non_buyers"] as const) {
              const curves = await computeRetention(deps, scope, buckets, segment);
              const ranges = await retentionOfSessions(deps, scope, buckets, durations, false, segment);
              for (const id of scope.videoIds) expect(curves.get(id)).toEqual(ranges.get(id) ?? bucketsFromRows([], buckets));
            }
          const summaryOf = async (sealed: Sealed) => summaryFromRow((await rows<SummaryRow>(ch, summarySql({ ...scope, videoIds: [1] }, sealed)))[0]);
          expect(await summaryOf(await sealedFor(deps, scope))).toEqual(await summaryOf(NOTHING_SEALED));
          // The seller overview (both videos), the breakdowns, and a top-1 breakdown whose other values merge into one row.
          expect(await computeVideoMetrics(deps, scope, [], { sealed: true })).toEqual(await computeVideoMetrics(deps, scope, [], { sealed: false }));
          for (const by of ["source", "country"] as const) {
            const one = { ...scope, videoIds: [1] };
            expect(await computeBreakdown(deps, one, by, [], { sealed: true })).toEqual(await computeBreakdown(deps, one, by, [], { sealed: false }));
          }
          const plan = await maskPlan(deps, scope);
          const top1 = async (sealed: boolean) =>
            (await groupRows(deps, scope, { kind: "dimension", dimension: "country" }, plan, 1, sealed ? await sealedFor(deps, scope) : NOTHING_SEALED)).rows;
          const strip = (r: Awaited<ReturnType<typeof top1>>) => r.map((row) => [row.value, Number(row.other), groupMetrics(row, true)]);
          expect(strip(await top1(true))).toEqual(strip(await top1(false)));
          // The split test's report: per variation, and per variation and local day.
          for (const daily of [false, true]) {
            const report = async (sealed: boolean) =>
              (await splitTestRows(deps, scope, daily, { sealed }))
                .filter((r) => r.g?.startsWith(`${SPLIT_TEST}:`))
                .sort((a, b) => a.g!.localeCompare(b.g!))
                .map((r) => [r.g, groupMetrics(r, false), r.played_orders, r.played_buyers, r.cta_sessions]);
            expect(await report(true)).toEqual(await report(false));
          }
          const variations = await rows<GroupRollupRow>(
            ch,
            groupRollupSql(scope, { kind: "split_test", daily: false }, STORED_MASKS, await sealedFor(deps, scope)),
          );
          splitTestReads += 1;
          if (!variations.some((r) => Number(r.foreign))) fromSealed += 1;
        },
      ),
      // A failing case is reported as found: shrinking it (three seals a try) would outlast the test's time.
      { numRuns: 30, endOnFailure: true },
    );
    // Most split-test reads took the sealed rows (one sale in twenty credits a video outside the test).
    expect(fromSealed).toBeGreaterThan(splitTestReads / 3);
    // The rollups were read, not only the sessions: hours and whole days of these workspaces were sealed.
    const [sealed] = await (
      await ch.query({
        query:
          "SELECT countIf(grain = 'hour') AS hours, countIf(grain = 'day') AS days, countIf(buyers > 0 AND length(buyer_masks) = buyers) AS with_buyers FROM analytics_rollups WHERE workspace_id BETWEEN {a:UInt64} AND {b:UInt64}",
        query_params: { a: firstWs, b: ws },
        format: "JSONEachRow",
      })
    ).json<{ hours: string; days: string; with_buyers: string }>();
    expect(Number(sealed!.hours)).toBeGreaterThan(10);
    expect(Number(sealed!.days)).toBeGreaterThan(3);
    expect(Number(sealed!.with_buyers)).toBeGreaterThan(3);
    // And the seller metrics' hours and days, with money traced to sealed sessions and the videos' own sales.
    const [groups] = await (
      await ch.query({
        query: `SELECT countIf(dimension = 'video' AND grain = 'day') AS video_days, countIf(dimension = 'country' AND grain = 'hour') AS country_hours,
  countIf(dimension = 'video' AND notEmpty(played_orders)) AS traced, countIf(dimension = 'sales' AND notEmpty(orders)) AS sold,
  countIf(dimension = 'split_test' AND grain = 'day') AS variation_days, countIf(dimension = 'split_test' AND notEmpty(played_buyer_sales)) AS variation_buyers
FROM analytics_group_rollups WHERE workspace_id BETWEEN {a:UInt64} AND {b:UInt64}`,
        query_params: { a: firstWs, b: ws },
        format: "JSONEachRow",
      })
    ).json<Record<string, string>>();
    for (const n of Object.values(groups!)) expect(Number(n)).toBeGreaterThan(3);
    // Every period was sealed several times (three seals a run), and only its latest generation stays.
    for (const [table, keys] of [
      ["analytics_rollups", "video_id, grain, period"],
      ["analytics_group_rollups", "video_id, dimension, grain, period"],
    ])
      expect(
        await (
          await ch.query({
            query: `SELECT max(n) AS n FROM (SELECT uniqExact(generation) AS n FROM ${table} WHERE workspace_id BETWEEN {a:UInt64} AND {b:UInt64} GROUP BY workspace_id, ${keys})`,
            query_params: { a: firstWs, b: ws },
            format: "JSONEachRow",
          })
        ).json(),
      ).toEqual([{ n: 1 }]);
  }, 600_000); // 30 cases of three seals each: minutes on a slow machine

  test("a window of weeks or months takes a few blocks of days and hours, and counts each session once", async () => {
    const { ch } = await getEngines();
    const ws = 6_000 + Math.floor(Math.random() * 1_000_000);
    // A session every three hours (and some minutes) for 70 days, from sources that alternate.
    const days = 70;
    const sessions = Array.from({ length: days * 8 }, (_, i) =>
      plainSession({ startMinute: i * 180 + (i % 7) * 11, source: ["google", "facebook", ""][i % 3]!, country: i % 2 ? "US" : "DE" }),
    );
    await insertEventRows(
      ch,
      sessions.flatMap((s, i) => rowsOf(ws, s, i, 0)),
    );
    const now = BASE_MS + days * DAY_MS - 30 * 60_000;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    await sealRollups(deps);
    const until = await sealedUntil(deps);
    for (const [fromDay, toDay, tz] of [
      [0, 69, "UTC"],
      [3, 64, "America/New_York"],
      [40, 69, "Asia/Kolkata"],
      [11, 19, "Australia/Adelaide"],
    ] as const) {
      const day = (n: number) => new Date(BASE_MS + n * DAY_MS).toISOString().slice(0, 10);
      const w = resolveWindow(now, { from: day(fromDay), to: day(toDay), tz }, 30);
      const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
      const sealed = await sealedSpan(deps, scope, until);
      const summaryOf = async (span: Sealed) => summaryFromRow((await rows<SummaryRow>(ch, summarySql(scope, span)))[0]);
      expect(await summaryOf(sealed)).toEqual(await summaryOf(NOTHING_SEALED));
      expect([...(await computeRetention(deps, scope, 100)).entries()]).toEqual([
        ...(await computeRetention(deps, scope, 100, "all", { sealed: false })).entries(),
      ]);
      expect(await computeBreakdown(deps, scope, "source", [], { sealed: true })).toEqual(await computeBreakdown(deps, scope, "source", [], { sealed: false }));
      // The rows the read merges: at most two blocks of each level, rather than a row per day and hour.
      const taken = await rows<{ grain: string; n: string }>(ch, {
        query: `SELECT grain, count() AS n FROM analytics_rollups WHERE ${PERIODS} AND ${latest(PERIODS)} GROUP BY grain`,
        query_params: { ...scopeParams(scope), ...sealedParam(sealed) },
      });
      for (const { n } of taken) expect(Number(n)).toBeLessThanOrEqual(2);
      expect(taken.length).toBeGreaterThan(2);
    }
  });

  test("the buyers of a sealed day who bought on both sides of the window's end: only those who bought inside count", async () => {
    const { ch } = await getEngines();
    const ws = 3_000 + Math.floor(Math.random() * 1_000_000);
    const now = BASE_MS + 3 * DAY_MS;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    const buyer = (ranges: [number, number][], afterMinute: number) =>
      plainSession({
        startMinute: 23 * 60 + 10,
        ranges,
        sale: { afterMinute, currency: "USD", amount: 10, test: false, browserFirst: false, credits: "own" },
      });
    // Both start at 23:10 on the 10th: the first buys at 23:30 that day, the second at 01:10 on the 11th.
    const sessions = [buyer([[0, 60]], 20), buyer([[300, 600]], 120)];
    const all = (batch: 0 | 1) => [
      ...sessions.flatMap((s, i) => rowsOf(ws, s, i, batch)),
      ...sessions.flatMap((s, i) => saleRows(ws, `${ws}-${i}`, 1, BASE_MS + s.startMinute * 60_000, s.sale!, batch, `s${ws}-${i}`)),
    ];
    await insertEventRows(ch, [...all(0), ...all(1)]);
    await sealRollups(deps);
    const w = resolveWindow(now, { from: "2026-11-10", to: "2026-11-10", tz: "UTC" }, 30);
    const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
    const curve = async (segment: "buyers" | "non_buyers", sealed: boolean) => (await computeRetention(deps, scope, 100, segment, { sealed })).get(1)!;
    const buyers = await curve("buyers", true);
    const others = await curve("non_buyers", true);
    expect([buyers[0]!.watch_pct, buyers[60]!.watch_pct]).toEqual([1, 0]);
    expect([others[0]!.watch_pct, others[60]!.watch_pct]).toEqual([0, 1]);
    expect(buyers).toEqual(await curve("buyers", false));
    expect(others).toEqual(await curve("non_buyers", false));
    // The day was sealed with both buyers: the read counted its sessions one by one.
    const [day] = await (
      await ch.query({
        query: "SELECT buyers FROM analytics_rollups WHERE workspace_id = {ws:UInt64} AND grain = 'day'",
        query_params: { ws },
        format: "JSONEachRow",
      })
    ).json<{ buyers: string }>();
    expect(Number(day!.buyers)).toBe(2);
  });

  test("a re-encoded video's overview counts its own sales, sealed or not: the read of every session takes every sale", async () => {
    const { ch } = await getEngines();
    const ws = 4_000 + Math.floor(Math.random() * 1_000_000);
    const now = BASE_MS + 3 * DAY_MS;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    const sale = (afterMinute: number, amount: number): GenSale => ({ afterMinute, currency: "USD", amount, test: false, browserFirst: false, credits: "own" });
    // Two sessions on the 10th, the second after the video was re-encoded (its rows carry another duration), so the stored
    // masks do not hold; a sale traced to the first, and one traced to no session, both in hours the seal takes.
    const sessions = [plainSession({ startMinute: 60, sale: sale(30, 10) }), plainSession({ startMinute: 120 })];
    const reencoded = <Row extends Record<string, unknown>>(r: Row): Row =>
      r.session_code === `s${ws}-1` && r.event_type === "watched" ? { ...r, properties: { duration_s: String(DURATION_S / 2) } } : r;
    await insertEventRows(ch, [
      ...sessions.flatMap((s, i) => [...rowsOf(ws, s, i, 0), ...rowsOf(ws, s, i, 1)].map(reencoded)),
      ...saleRows(ws, `${ws}-0`, 1, BASE_MS + 60 * 60_000, sessions[0]!.sale!, 1, `s${ws}-0`),
      ...saleRows(ws, `${ws}-untraced`, 1, BASE_MS + 180 * 60_000, sale(0, 25), 1, ""),
    ]);
    await sealRollups(deps);
    const w = resolveWindow(now, { from: "2026-11-10", to: "2026-11-10", tz: "UTC" }, 30);
    const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
    expect((await maskPlan(deps, scope)).storedMasks).toBe(false);
    const sealed = (await computeVideoMetrics(deps, scope, [], { sealed: true })).get(1)!;
    expect([sealed.plays, sealed.orders, sealed.revenue.map((r) => [r.currency, r.orders, r.revenue])]).toEqual([2, 2, [["USD", 2, 35]]]);
    expect(sealed).toEqual((await computeVideoMetrics(deps, scope, [], { sealed: false })).get(1)!);
  });

  test("a split test's daily series outside UTC comes from sealed hours; a sale of a video outside the test sends the report to every session", async () => {
    const { ch } = await getEngines();
    const ws = 6_000 + Math.floor(Math.random() * 1_000_000);
    const now = BASE_MS + 3 * DAY_MS;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    const session = (video: number, variation: number, startMinute: number, sale: GenSale | null) => plainSession({ video, variation, startMinute, sale });
    const sale = (credits: GenSale["credits"]): GenSale => ({ afterMinute: 5, currency: "USD", amount: 40, test: false, browserFirst: false, credits });
    // 02:00 UTC on the 11th is the 10th in New York; the first buys the test's other video.
    const sessions = [session(1, 1, 26 * 60, sale("other")), session(1, 1, 36 * 60, null), session(2, 2, 44 * 60, sale("own"))];
    const write = async (list: GenSession[], from: number) =>
      insertEventRows(ch, [
        ...list.flatMap((s, i) => [...rowsOf(ws, s, from + i, 0), ...rowsOf(ws, s, from + i, 1)]),
        ...list.flatMap((s, i) =>
          s.sale
            ? [0, 1].flatMap((b) => saleRows(ws, `${ws}-${from + i}`, s.video, BASE_MS + s.startMinute * 60_000, s.sale!, b as 0 | 1, `s${ws}-${from + i}`))
            : [],
        ),
      ]);
    await write(sessions, 0);
    await sealRollups(deps);
    const w = resolveWindow(now, { from: "2026-11-10", to: "2026-11-12", tz: "America/New_York" }, 30);
    const scope = { workspaceId: ws, videoIds: [1, 2], start: w.start, end: w.end, tz: w.tz };
    const series = async (sealed: boolean) =>
      Object.fromEntries(
        (await splitTestRows(deps, scope, true, { sealed })).map((r) => [
          r.g,
          [Number(r.impressions), Number(r.played_buyers), Number(r.played_orders), r.revenue[""] ?? r.revenue.USD ?? 0],
        ]),
      );
    // A row per day has the series' counts, not the money (its variation's row has).
    expect(await series(true)).toEqual({
      "77:1": [2, 1, 1, 40],
      "77:1|2026-11-10": [1, 1, 1, 0],
      "77:1|2026-11-11": [1, 0, 0, 0],
      "77:2": [1, 1, 1, 40],
      "77:2|2026-11-11": [1, 1, 1, 0],
    });
    expect(await series(true)).toEqual(await series(false));
    const foreign = async () =>
      (await rows<GroupRollupRow>(ch, groupRollupSql(scope, { kind: "split_test", daily: false }, STORED_MASKS, await sealedFor(deps, scope)))).some((r) =>
        Number(r.foreign),
      );
    expect(await foreign()).toBe(false);
    // A sale of video 3, which is not in the test, traced to a session of it: the report counts only the test's videos.
    await write([session(2, 2, 45 * 60, sale("outside"))], 10);
    await Bun.sleep(1_100);
    deps.clock.now = () => now + 60_000;
    await sealRollups(deps);
    expect(await foreign()).toBe(true);
    const totals = async (sealed: boolean) =>
      (await splitTestRows(deps, scope, false, { sealed })).map((r) => [r.g, Number(r.impressions), r.played_buyers, r.revenue]);
    expect(await totals(true)).toEqual(await totals(false));
    expect((await totals(true)).find((r) => r[0] === "77:2")).toEqual(["77:2", 2, 1, { USD: 40 }]);
  });

  test("a reseal leaves the reads no more masked rows to scan than half the live ones, and the same answers", async () => {
    const { ch } = await getEngines();
    const ws = 5_000 + Math.floor(Math.random() * 1_000_000);
    // March 2025, a month no other test writes: its partition holds this workspace's rows alone.
    const day = Date.parse("2025-03-10T00:00:00Z");
    const startMinute = (hour: number) => (day - BASE_MS) / 60_000 + hour * 60;
    const sessions = Array.from({ length: 48 }, (_, h) =>
      plainSession({
        startMinute: startMinute(h),
        ranges: [
          [0, 60],
          [100, 200],
        ],
        completed: h % 2 === 0,
        source: h % 3 ? "google" : "",
      }),
    );
    let now = day + 3 * DAY_MS;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    await insertEventRows(
      ch,
      sessions.flatMap((s, i) => rowsOf(ws, s, i, 0)),
    );
    await sealRollups(deps);
    // A row for every hour sealed: the next seal seals every period again and prunes the first generation.
    await sealAfterLateRows(
      deps,
      sessions.flatMap((s, i) => rowsOf(ws, s, i, 1)),
      () => (now += 60_000),
    );
    for (const table of ["analytics_rollups", "analytics_group_rollups"]) {
      const [found] = await (
        await ch.query({
          query: `SELECT (SELECT sum(rows) FROM system.parts WHERE database = currentDatabase() AND table = '${table}' AND active AND partition_id = '202503') AS stored,
  (SELECT count() FROM ${table} WHERE toYYYYMM(period) = 202503) AS live`,
          query_params: {},
          format: "JSONEachRow",
        })
      ).json<{ stored: string; live: string }>();
      expect(Number(found!.live)).toBeGreaterThan(48);
      expect(Number(found!.stored) - Number(found!.live)).toBeLessThan(Number(found!.live) / 2);
    }
    // A late row in one hour masks that hour's and day's rows, far below half: the partition is not rewritten for them.
    // (The mutations say so; the masked rows themselves may leave with a background merge.)
    const [{ before }] = await (await ch.query({ query: "SELECT toString(now()) AS before", format: "JSONEachRow" })).json<{ before: string }>();
    await sealAfterLateRows(deps, rowsOf(ws, sessions[5]!, 5, 1), () => (now += 60_000));
    const [rewrites] = await (
      await ch.query({
        query: `SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND create_time > {before:DateTime}
  AND command LIKE '%APPLY DELETED MASK%' AND command LIKE '%202503%'`,
        query_params: { before },
        format: "JSONEachRow",
      })
    ).json<{ n: string }>();
    expect(Number(rewrites!.n)).toBe(0);
    const w = resolveWindow(now, { from: "2025-03-10", to: "2025-03-11", tz: "UTC" }, 30);
    const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
    const metrics = await computeVideoMetrics(deps, scope, [], { sealed: true });
    expect(metrics.get(1)!.plays).toBe(48);
    expect(metrics).toEqual(await computeVideoMetrics(deps, scope, [], { sealed: false }));
    expect(await computeBreakdown(deps, scope, "source", [], { sealed: true })).toEqual(await computeBreakdown(deps, scope, "source", [], { sealed: false }));
    expect([...(await computeRetention(deps, scope, 100)).entries()]).toEqual([
      ...(await computeRetention(deps, scope, 100, "all", { sealed: false })).entries(),
    ]);
  });

  test("distinct viewers are exact past thousands, across sealed hours and sessions not sealed yet, with seals running at once", async () => {
    const engines = await getEngines();
    const { ch } = engines;
    const ws = 7_000 + Math.floor(Math.random() * 1_000_000);
    // 7,000 played sessions over ten hours of a day past every other test's seal marks: 5,000 devices, those below 2,000
    // back a second time, and every tenth session without one.
    const day = BASE_MS + 400 * DAY_MS;
    const minuteOf = (i: number) => Math.floor((i * 600) / 7_000);
    const device = (i: number) => (i % 10 === 9 ? "" : `d${i % 5_000}`);
    const sessions = Array.from({ length: 7_000 }, (_, i) =>
      plainSession({ startMinute: (day - BASE_MS) / 60_000 + minuteOf(i), source: i % 3 ? "google" : "" }),
    );
    await insertEventRows(
      ch,
      sessions.flatMap((s, i) => rowsOf(ws, s, i, 0).map((row) => ({ ...row, device_id: device(i) }))),
    );
    const viewersOf = (keep: (i: number) => boolean) =>
      new Set(
        sessions
          .map((_, i) => i)
          .filter(keep)
          .map((i) => device(i) || `session ${i}`),
      ).size;
    let now = day + 6 * 3_600_000 + SEAL_LAG_MS;
    const config = { databaseUrl: engines.server ? engines.databaseUrl : undefined };
    const deps = { ch, sql: engines.sql, clock: { now: () => now }, config } as unknown as Deps;
    // Two seals at once (two workers): the viewers are numbered once each, 1 to n without a gap.
    await Promise.all([sealRollups(deps), sealRollups(deps)]);
    const numbered = async () => {
      const [n] = await (
        await ch.query({
          query:
            "SELECT count() AS n, uniqExact(viewer_hash) AS viewers, uniqExact(ordinal) AS ordinals, max(ordinal) AS top FROM viewer_ordinals WHERE workspace_id = {ws:UInt64}",
          query_params: { ws },
          format: "JSONEachRow",
        })
      ).json<Record<string, string>>();
      return Object.values(n!).map(Number);
    };
    // Hours 0 to 5 are sealed (sessions 0 to 4,199); 6 to 9 are read from the sessions.
    const inSealedHours = viewersOf((i) => minuteOf(i) < 6 * 60);
    expect(inSealedHours).toBeGreaterThan(4_096);
    expect(await numbered()).toEqual([inSealedHours, inSealedHours, inSealedHours, inSealedHours]);
    const date = new Date(day).toISOString().slice(0, 10);
    const w = resolveWindow(now, { from: date, to: date, tz: "UTC" }, 30);
    const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
    const check = async (sealedHours: number) => {
      const sealed = await sealedFor(deps, scope);
      expect(sealed.until).toBe(day + sealedHours * 3_600_000);
      const summary = summaryFromRow((await rows<SummaryRow>(ch, summarySql(scope, sealed)))[0]);
      expect(summary.unique_plays).toBe(viewersOf(() => true));
      const metrics = (await computeVideoMetrics(deps, scope, [], { sealed: true })).get(1)!;
      expect([metrics.unique_viewers, metrics.unique_viewers_exact]).toEqual([viewersOf(() => true), true]);
      expect(metrics).toEqual((await computeVideoMetrics(deps, scope, [], { sealed: false })).get(1)!);
      const bySource = await computeBreakdown(deps, scope, "source", [], { sealed: true });
      expect(bySource).toEqual(await computeBreakdown(deps, scope, "source", [], { sealed: false }));
      expect(bySource.find((r) => r.value === "google")!.unique_viewers).toBe(viewersOf((i) => i % 3 !== 0));
    };
    await check(6);
    // Three hours later hours 6 to 8 are sealed too: their new viewers are numbered after the others, their returning ones keep theirs.
    now += 3 * 3_600_000;
    await sealRollups(deps);
    const inLaterHours = viewersOf((i) => minuteOf(i) < 9 * 60);
    expect(await numbered()).toEqual([inLaterHours, inLaterHours, inLaterHours, inLaterHours]);
    await check(9);
    // Across processes the numbering waits for PostgreSQL's lock: while another session holds it, nothing is numbered.
    if (engines.server) {
      let release!: () => void;
      let locked!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const holder = engines.sql.begin(async (tx) => {
        await tx`SELECT pg_advisory_xact_lock(${ORDINALS_LOCK})`;
        locked();
        await new Promise<void>((resolve) => (release = resolve));
      });
      await isLocked;
      let done = false;
      const numbering = numberViewers(deps, "workspace_id = {ws:UInt64}", { ws }).then(() => (done = true));
      await Bun.sleep(500);
      expect(done).toBe(false);
      release();
      await holder;
      await numbering;
      expect(await numbered()).toEqual([viewersOf(() => true), viewersOf(() => true), viewersOf(() => true), viewersOf(() => true)]);
    }
  }, 300_000);

  test("a seal of an earlier release, whose rows keep no buyers, split tests or blocks, or bitmaps is refused (a rolling upgrade)", async () => {
    const { ch } = await getEngines();
    const ws = 4_000 + Math.floor(Math.random() * 1_000_000);
    // The statement a worker of the release before 0017_rollup_buyers.sql runs: the columns it knew.
    const before = `INSERT INTO analytics_rollups (workspace_id, video_id, grain, period, generation, sealed_at, plays, completions, watch_s, bounces, buckets)
VALUES (${ws}, 1, 'hour', '2026-11-10 00:00:00', 1, now64(3), 1, 0, 1, 0, [])`;
    await expect(ch.command({ query: before })).rejects.toThrow(/sealed_with_buyers/);
    // And of the seller rows, sealed before 0018_split_test_rollups.sql without the split tests' variations.
    const groupsBefore = `INSERT INTO analytics_group_rollups (workspace_id, video_id, dimension, value, grain, period, generation, sealed_at, impressions)
VALUES (${ws}, 1, 'video', '1', 'hour', '2026-11-10 00:00:00', 1, now64(3), 1)`;
    await expect(ch.command({ query: groupsBefore })).rejects.toThrow(/sealed_with_split_tests/);
    // And the rows of either table sealed before 0019_rollup_blocks.sql, without the blocks of hours and days.
    const blocksBefore = `INSERT INTO analytics_group_rollups (workspace_id, video_id, dimension, value, grain, period, generation, sealed_at, impressions, seal_format)
VALUES (${ws}, 1, 'video', '1', 'hour', '2026-11-10 00:00:00', 1, now64(3), 1, 1)`;
    await expect(ch.command({ query: blocksBefore })).rejects.toThrow(/sealed_with_blocks/);
    await expect(ch.command({ query: before.replace("buckets)", "buckets, seal_format)").replace("[])", "[], 1)") })).rejects.toThrow(/sealed_with_blocks/);
    // And those sealed before 0020_viewer_bitmaps.sql, without the viewers' bitmaps.
    await expect(ch.command({ query: before.replace("buckets)", "buckets, seal_format)").replace("[])", "[], 2)") })).rejects.toThrow(/sealed_with_bitmaps/);
    await expect(ch.command({ query: blocksBefore.replace("1, 1)", "1, 2)") })).rejects.toThrow(/sealed_with_bitmaps/);
    for (const table of ["analytics_rollups", "analytics_group_rollups"]) {
      const [found] = await (
        await ch.query({ query: `SELECT count() AS n FROM ${table} WHERE workspace_id = {ws:UInt64}`, query_params: { ws }, format: "JSONEachRow" })
      ).json<{ n: string }>();
      expect(Number(found!.n)).toBe(0);
    }
  });

  test("a group of more startup times than a sealed row keeps answers from its t-digest, within 1 %", async () => {
    const { ch } = await getEngines();
    const ws = 5_000 + Math.floor(Math.random() * 1_000_000);
    let now = BASE_MS + 30 * 3_600_000;
    const deps = { ch, clock: { now: () => now }, config: {} } as unknown as Deps;
    const session = (i: number) =>
      plainSession({
        startMinute: i % (20 * 60),
        ranges: [[0, 30]],
        // A long tail, as startup times have: 300 ms to a few seconds.
        startupMs: 300 + ((i * 7919) % 97) * (1 + (i % 5)) * 7,
      });
    const sessions = Array.from({ length: 1_500 }, (_, i) => session(i));
    await insertEventRows(
      ch,
      sessions.flatMap((s, i) => rowsOf(ws, s, i, 0)),
    );
    await sealRollups(deps);
    now += 60_000;
    const w = resolveWindow(now, { from: "2026-11-10", to: "2026-11-10", tz: "UTC" }, 30);
    const scope = { workspaceId: ws, videoIds: [1], start: w.start, end: w.end, tz: w.tz };
    const sealed = (await computeVideoMetrics(deps, scope, [], { sealed: true })).get(1)!;
    const exact = (await computeVideoMetrics(deps, scope, [], { sealed: false })).get(1)!;
    expect(sealed.plays).toBe(1_500);
    for (const q of ["p50", "p95"] as const) {
      expect(Math.abs(sealed.startup_time_ms[q]! - exact.startup_time_ms[q]!)).toBeLessThanOrEqual(0.01 * exact.startup_time_ms[q]!);
    }
    // The hours were sealed without their startup times: the answer came from the digest.
    const [kept] = await (
      await ch.query({
        query:
          "SELECT sum(length(startups)) AS kept, sum(startup_count) AS n FROM analytics_group_rollups WHERE workspace_id = {ws:UInt64} AND dimension = 'video' AND grain = 'day'",
        query_params: { ws },
        format: "JSONEachRow",
      })
    ).json<{ kept: string; n: string }>();
    expect(Number(kept!.n)).toBeGreaterThan(256);
    expect(Number(kept!.kept)).toBe(0);
  });
});
