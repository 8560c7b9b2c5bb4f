/**
 * Analytics reads over 10 million generated events (docs/architecture.md "What fast means here": "analytics reads over
 * millions of events" against "the same SQL run directly on the engine").
 *
 * A fresh embedded chDB in its own temp directory gets 10,000,000 player events of one
 * workspace: 100 videos over 30 days, 10 events per session (a load carrying the
 * session's source, utm_*, device, browser, OS and country; a play, or for one session
 * in four a muted autoplay; startup; four watched ranges with seeks and rewatches; a
 * milestone; pause, seek, unmute (half the autoplays) or a CTA click; ended or
 * rebuffer; video 1's sessions served one of two variations of a split test), plus a verified sale (in USD or EUR, one in five a test) for one session
 * in fifty. Video 1 is the hot one with 10% of all events (1,000,000 events, 100,000
 * sessions); the other 99 share the rest (~90,900 events each). Once the store has
 * settled (merged, no merge running, written data flushed to disk), summary,
 * retention (100 buckets), the seller overview and the breakdown by source (200
 * campaigns' worth of values: top 50 and other) over the 30 days are timed through the
 * service (cache bypassed, JSON parsed and shaped) and as the same SQL on chDB's
 * native session, 30 runs each after warm-up. Then the reads of one viewer (a device
 * that came back twice to the hot video: its timeline and heatmap) with an embedded
 * PostgreSQL holding every session's viewer (bench/lib/viewer-reads.ts), against a
 * 50 ms p95 target.
 *
 * Run: `node_modules/.bin/bun bench/analytics.bench.ts` (or `npm run bench analytics`).
 * EVENTS=1000000 shrinks the data set for a quick look; HOT_SHARE=1 puts every event on
 * video 1 (the worst case for one read).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { Session } from "chdb";
import type { Deps } from "../server/deps.ts";
import { connectClickHouse, migrateClickHouse, splitStatements } from "../server/storage/clickhouse.ts";
import { OVERVIEW_TOP_VALUES } from "../server/api/analytics/definitions.ts";
import { metricsSql, salesSql } from "../server/api/analytics/metrics.ts";
import { computeBreakdown, computeVideoMetrics } from "../server/api/analytics/overview.ts";
import { growthReads } from "./lib/growth-reads.ts";
import * as q from "../server/api/analytics/queries.ts";
import { computeRetention, computeSummary } from "../server/api/analytics/service.ts";
import { sealedParam } from "../server/api/analytics/periods.ts";
import { SEAL_LAG_MS, sealedRetentionSql, sealedSpan, sealRollups, summarySql } from "../server/api/analytics/rollups.ts";
import type { Ch } from "../server/storage/clickhouse.ts";
import { resolveWindow } from "../server/http/window.ts";
import { report, type Row } from "./lib/report.ts";
import { stealMeter } from "./lib/steal.ts";
import { timed } from "./lib/timed.ts";
import { viewerReads } from "./lib/viewer-reads.ts";

const EVENTS = Number(process.env.EVENTS ?? 10_000_000);
const VIDEOS = 100;
const HOT_SHARE = Number(process.env.HOT_SHARE ?? 0.1);
const RUNS = 30;
const WARMUP = 3;
const TARGET_P95_MS = 100;
/** Reads of one viewer (docs/api.md "Viewers"). */
const VIEWER_TARGET_P95_MS = 50;
const WORKSPACE = 1;
const FROM = "2026-10-23";
const TO = "2026-11-21";
/** Late on the last day: the hours up to an hour ago are sealed, the rest read from sessions. */
const NOW_MS = Date.parse(`${TO}T23:59:00Z`);
/** What the seal at NOW_MS covers (rollups.ts), for the engine-side runs of the same SQL. */
const SEALED_UNTIL = Math.floor((NOW_MS - SEAL_LAG_MS) / 3_600_000) * 3_600_000;
/** GROWTH=1: the reads of one video (bench/lib/growth-reads.ts) at each size of GROWTH_SIZES (all events on it), and the insert cost of the rollups. */
const GROWTH = process.env.GROWTH === "1";
const GROWTH_SIZES = (process.env.GROWTH_SIZES ?? "1000000,10000000,100000000").split(",").map(Number);
/** Runs per read in the growth mode: its ratios divide two p95s, and the p95 of 30 runs is their second slowest. */
const GROWTH_RUNS = 100;

const dir = await mkdtemp(join(tmpdir(), "frameline-analytics-bench-"));
let ch = await connectClickHouse({ embeddedPath: join(dir, "clickhouse") });
let native: Session | undefined;

try {
  await migrateClickHouse(ch);
  if (GROWTH) {
    await growth();
    // The store of the largest size takes gigabytes: removed before the process ends.
    await ch.close();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  }

  // ---- generate ----
  const hotEvents = Math.round(EVENTS * HOT_SHARE);
  const started = performance.now();
  await generate(ch, 0, EVENTS, hotEvents);
  // The state after background merges: one part per partition of each table.
  await ch.command({ query: "OPTIMIZE TABLE events FINAL" });
  await ch.command({ query: "OPTIMIZE TABLE analytics_session_slots FINAL" });
  await ch.command({ query: "OPTIMIZE TABLE analytics_sessions FINAL" });
  const generateS = (performance.now() - started) / 1000;
  // Measure a settled store: no merge still running, freshly written data flushed to disk
  // (the generation leaves gigabytes of dirty pages whose write-back would land in the reads).
  await settle();
  const [stats] = await q.rows<{ events: string; videos: string; hot: string; typical: string }>(ch, {
    query: "SELECT count() AS events, uniqExact(video_id) AS videos, countIf(video_id = 1) AS hot, countIf(video_id = 2) AS typical FROM events",
    query_params: {},
  });
  console.log(
    `generated ${stats!.events} events over ${stats!.videos} videos in ${generateS.toFixed(1)} s (video 1: ${stats!.hot}, video 2: ${stats!.typical})`,
  );

  // ---- measure ----
  const deps = { ch, clock: { now: () => NOW_MS }, config: {} } as unknown as Deps; // the compute functions touch only ClickHouse (and the seal, the cluster setting)
  await sealRollups(deps);
  const window = resolveWindow(NOW_MS, { from: FROM, to: TO }, 30);
  native = new Session(join(dir, "clickhouse"));

  const time = (run: () => Promise<unknown>) => timed(run, WARMUP, RUNS);

  const direct = (sql: q.Sql) => native!.queryBindAsync(sql.query, sql.query_params, { format: "JSONEachRow" }).then((r) => r.text());

  const steal = await stealMeter();
  const rows: Row[] = [];
  const n = (v: string) => Number(v).toLocaleString("en-US");
  for (const [label, videoId] of [
    [`hot video (${n(stats!.hot)} events)`, 1],
    [`typical video (${n(stats!.typical)} events)`, 2],
  ] as const) {
    const scope: q.Scope = { workspaceId: WORKSPACE, videoIds: [videoId], start: window.start, end: window.end, tz: window.tz };
    const summaryBody = await computeSummary(deps, WORKSPACE, videoId, `video-${videoId}`, window);
    const ours = await time(() => computeSummary(deps, WORKSPACE, videoId, `video-${videoId}`, window));
    const sealed = await sealedSpan(deps, scope, SEALED_UNTIL);
    const engine = await time(() => direct(summarySql(scope, sealed)));
    rows.push(row(`summary, ${label}`, ours, engine));
    console.log(`summary of video ${videoId}: ${JSON.stringify(summaryBody.summary)}`);

    const found = await q.rows<q.DurationRow>(ch, q.durationSql(scope));
    const durations = new Map(found.map((r) => [Number(r.video_id), Number(r.duration)]));
    const storedMasks = q.storedMasksHold(found);
    const oursR = await time(() => computeRetention(deps, scope, 100));
    const engineR = await time(async () => {
      await direct(q.durationSql(scope));
      await direct(
        storedMasks
          ? sealedRetentionSql(q.SESSION_WHERE, { ...q.scopeParams(scope), ...sealedParam(sealed) })
          : q.retentionSql(scope, 100, durations, storedMasks),
      );
    });
    rows.push(row(`retention (100 buckets), ${label}`, oursR, engineR));

    // The seller overview and the breakdown by source: durations (as retention), the metrics and the sales; one after the other on the engine.
    const masks = { durations, storedMasks };
    const overview = (await computeVideoMetrics(deps, scope, [])).get(videoId)!;
    const oursO = await time(() => computeVideoMetrics(deps, scope, []));
    const engineO = await time(async () => {
      await direct(q.durationSql(scope));
      await direct(metricsSql(scope, { kind: "video" }, masks));
      await direct(salesSql(scope));
    });
    rows.push(row(`seller overview, ${label}`, oursO, engineO));
    console.log(`overview of video ${videoId}: ${JSON.stringify({ ...overview, revenue: overview.revenue.map((c) => [c.currency, c.orders, c.revenue]) })}`);

    const bySource = { kind: "dimension", dimension: "source" } as const;
    const breakdownRows = await computeBreakdown(deps, scope, "source", []);
    const oursB = await time(() => computeBreakdown(deps, scope, "source", []));
    const engineB = await time(async () => {
      await direct(q.durationSql(scope));
      await direct(metricsSql(scope, bySource, masks, OVERVIEW_TOP_VALUES));
      await direct(salesSql(scope));
    });
    rows.push(row(`breakdown by source (top 50 + other), ${label}`, oursB, engineB));
    console.log(`breakdown of video ${videoId}: ${breakdownRows.length} rows, other = ${breakdownRows.find((r) => r.other)?.impressions ?? 0} impressions`);
  }

  for (const r of await viewerReads({
    dir,
    ch,
    native,
    workspaceId: WORKSPACE,
    sessions: Math.ceil(EVENTS / 10),
    hotEvents,
    videos: VIDEOS,
    from: FROM,
    time,
  })) {
    rows.push(row(r.label, r.ours, r.engine, VIEWER_TARGET_P95_MS));
    console.log(`${r.label}: ${r.answer}`);
  }

  await report(
    "analytics",
    `Analytics reads over ${Number(stats!.events).toLocaleString("en-US")} events (30-day window, p50/p95 of ${RUNS} runs, cache bypassed)`,
    rows,
    {
      events: Number(stats!.events),
      videos: Number(stats!.videos),
      generate_seconds: Number(generateS.toFixed(1)),
      target_p95_ms: TARGET_P95_MS,
      viewer_target_p95_ms: VIEWER_TARGET_P95_MS,
      // The machine is shared: a high load average explains slow figures.
      load_average_1m: Number(loadavg()[0]!.toFixed(2)),
      // CPU the hypervisor took from this machine while the reads were timed.
      machine_steal_pct: (await steal()) ?? null,
      all_within_target: rows.every((r) => r.within_target === "yes"),
    },
  );
} finally {
  native?.close();
  await ch.close();
  await rm(dir, { recursive: true, force: true });
}

function row(name: string, ours: { p50: number; p95: number }, engine: { p50: number; p95: number }, target = TARGET_P95_MS): Row {
  return {
    read: name,
    "service p50 ms": round(ours.p50),
    "service p95 ms": round(ours.p95),
    "engine p50 ms": round(engine.p50),
    "engine p95 ms": round(engine.p95),
    "p95 ratio (engine/service)": round(engine.p95 / ours.p95),
    within_target: ours.p95 < target ? "yes" : "no",
  };
}

/** Waits for merges to end and flushes written data, so a timing measures reads alone. */
async function settle(): Promise<void> {
  for (let i = 0; i < 240; i++) {
    const [running] = await q.rows<{ n: string }>(ch, { query: "SELECT count() AS n FROM system.merges", query_params: {} });
    if (Number(running!.n) === 0) break;
    await Bun.sleep(500);
  }
  Bun.spawnSync(["sync"]);
}

/**
 * Merges every table of the store into one part per partition, as the background would given time; a partition
 * already in one part (the sessions, merged before the seal) is left as it is rather than written again.
 */
async function mergeEverything(): Promise<void> {
  const tables = await q.rows<{ name: string }>(ch, {
    query: "SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree'",
    query_params: {},
  });
  for (const { name } of tables) await ch.command({ query: `OPTIMIZE TABLE ${name} FINAL SETTINGS optimize_skip_merged_partitions = 1` });
}

/**
 * The growth mode: events are added to video 1 up to each size in turn (generated in
 * ClickHouse), sealed and merged, and the reads of a 30-day window are timed, each in a
 * process of its own that opens the store; each p95 is divided by the first size's. Then
 * the insert cost of the rollups' views: rounds of half a million events with them and
 * without, each timed from a settled store (the merges an insert leads to come after it).
 */
async function growth(): Promise<void> {
  const reads = Object.keys(growthReads(ch, NOW_MS, FROM, TO));
  const everything = Number.MAX_SAFE_INTEGER;
  const first = new Map<string, number>();
  const rows: Row[] = [];
  let have = 0;
  for (const size of GROWTH_SIZES) {
    const t0 = performance.now();
    await generate(ch, have, size, everything);
    // The tables the reads use, merged as the background would.
    for (const table of ["analytics_session_slots", "analytics_sessions"]) await ch.command({ query: `OPTIMIZE TABLE ${table} FINAL` });
    const generateS = (performance.now() - t0) / 1000;
    const s0 = performance.now();
    await sealRollups({ ch, clock: { now: () => NOW_MS }, config: {} } as unknown as Deps); // the seal touches only ClickHouse (and the cluster setting)
    const sealS = (performance.now() - s0) / 1000;
    // The store as a running service finds it: traffic writes these events over weeks, merged as they come; written
    // here in minutes, they would still be merging for minutes, in whichever process opens the store, during the reads.
    const m0 = performance.now();
    await mergeEverything();
    await settle();
    console.log(
      `${size.toLocaleString("en-US")} events: generated in ${generateS.toFixed(1)} s, sealed in ${sealS.toFixed(1)} s, merged in ${((performance.now() - m0) / 1000).toFixed(1)} s`,
    );
    // Each read in a process of its own that opens the store, as the service does (bench/lib/read-process.ts):
    // this process holds what generating the events left behind.
    await ch.close();
    for (const name of reads) {
      const args = [join(dir, "clickhouse"), name, String(NOW_MS), FROM, TO, String(WARMUP), String(GROWTH_RUNS)];
      const child = Bun.spawnSync([process.execPath, join(import.meta.dir, "lib", "read-process.ts"), ...args]);
      const t = JSON.parse(child.stdout.toString().trim().split("\n").pop() || "{}") as { p50?: number; p95?: number; opened_mib?: number; peak_mib?: number };
      if (t.p50 === undefined || t.p95 === undefined) throw new Error(`${name} at ${size} events failed: ${child.stderr.toString().slice(0, 500)}`);
      if (!first.has(name)) first.set(name, t.p95);
      rows.push({
        read: name,
        events: size.toLocaleString("en-US"),
        "p50 ms": round(t.p50),
        "p95 ms": round(t.p95),
        [`p95 / ${GROWTH_SIZES[0]!.toLocaleString("en-US")}`]: `${(t.p95 / first.get(name)!).toFixed(2)}x`,
        "seal s": round(sealS),
        "read process peak RSS MiB": `${t.peak_mib} (${t.opened_mib} opened)`,
      });
    }
    ch = await connectClickHouse({ embeddedPath: join(dir, "clickhouse") });
    have = size;
  }
  // Rounds of half a million events with the rollups' views and without them, in the order ABBA (so neither always
  // follows the other), each from a store whose merges are done: else a round pays for the merges of the one before.
  const schema = (file: string) => Bun.file(join(import.meta.dir, "..", "server", "storage", "clickhouse", file)).text();
  const views = splitStatements(`${await schema("0013_rollups.sql")}\n${await schema("0015_group_rollups.sql")}`).filter((st) =>
    st.startsWith("CREATE MATERIALIZED VIEW"),
  );
  const viewNames = views.map((v) => /VIEW IF NOT EXISTS (\w+)/.exec(v)![1]!);
  const insertRound = async () => {
    await settle();
    const t0 = performance.now();
    await generate(ch, have, have + 500_000, everything);
    have += 500_000;
    return (performance.now() - t0) / 1000;
  };
  let withViews = 0;
  let withoutViews = 0;
  for (const viewsFirst of [true, false, false, true, true, false]) {
    for (const on of viewsFirst ? [true, false] : [false, true]) {
      if (on) withViews += await insertRound();
      else {
        for (const view of viewNames) await ch.command({ query: `DROP VIEW ${view}` });
        withoutViews += await insertRound();
        for (const view of views) await ch.command({ query: view });
      }
    }
  }
  rows.push({
    read: "insert 6 x 500,000 player events",
    events: `${withViews.toFixed(2)} s with the rollups' views, ${withoutViews.toFixed(2)} s without`,
    "p50 ms": "",
    "p95 ms": "",
    [`p95 / ${GROWTH_SIZES[0]!.toLocaleString("en-US")}`]: `${(withViews / withoutViews).toFixed(2)}x`,
    "seal s": "",
    "read process peak RSS MiB": "",
  });
  await report("analytics-growth", `Analytics reads of one video as its events grow (30-day window, p50/p95 of ${GROWTH_RUNS} runs, cache bypassed)`, rows, {
    sizes: GROWTH_SIZES,
    load_average_1m: Number(loadavg()[0]!.toFixed(2)),
    insert_cost_ratio: Number((withViews / withoutViews).toFixed(3)),
  });
}

/**
 * Player events n in [first, last) (session s = n / 10, position p = n % 10) and the sales
 * of their sessions, generated in ClickHouse. Events below `hot` go to video 1.
 */
async function generate(ch: Ch, first: number, last: number, hot: number): Promise<void> {
  const batch = 2_000_000;
  for (let offset = first; offset < last; offset += batch) {
    // Row n: session s = n / 10, position p = n % 10. Sessions below hotEvents / 10 watch
    // video 1; the rest are spread over videos 2..VIDEOS.
    await ch.command({
      query: `
INSERT INTO player_events (workspace_id, video_id, video_code, event_type, event, event_id, session_code, device_id, watch_seconds, video_time, value, properties, created_at, session_start)
SELECT {ws:UInt64}, video, concat('video-', toString(video)),
  multiIf(p = 0, 'load', p = 1, if(auto, 'autoplay', 'play'), p = 2, 'startup', p <= 6, 'watched', p = 7, 'milestone',
    p = 8, if(auto, if(s % 8 = 0, 'unmute', 'pause'), multiIf(s % 3 = 0, 'cta_click', s % 3 = 1, 'pause', 'seek')), s % 3 = 0, 'ended', 'rebuffer') AS et,
  '', '', lower(hex(cityHash64(s, 'session'))), concat('d', toString(s % 70000)),
  if(et = 'watched', toFloat64(5 + cityHash64(n, 2) % 115), 0),
  if(et = 'watched', toFloat64(least(590, (p - 3) * 140 + cityHash64(n, 1) % 90)), toFloat64(p * 10)),
  if(et IN ('startup', 'rebuffer'), toFloat64(cityHash64(n) % 2000), NULL),
  multiIf(
    et = 'load', map(
      'device', ['desktop', 'mobile', 'mobile', 'tablet'][1 + cityHash64(s, 'dev') % 4],
      'browser', ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'][1 + cityHash64(s, 'br') % 5],
      'os', ['Windows', 'iOS', 'Android', 'macOS', 'Linux'][1 + cityHash64(s, 'os') % 5],
      'country', ['US', 'GB', 'DE', 'FR', 'BR', 'IN', 'JP', 'CA', 'AU', 'ES', ''][1 + cityHash64(s, 'geo') % 11],
      'referrer_host', ['facebook.com', 'google.com', 'youtube.com', '', 'news.example.org'][1 + cityHash64(s, 'ref') % 5],
      'utm_source', if(cityHash64(s, 'utm') % 3 = 0, '', concat('src', toString(cityHash64(s, 'src') % 200))),
      'utm_medium', ['cpc', 'email', 'social', ''][1 + cityHash64(s, 'med') % 4],
      'utm_campaign', concat('c', toString(cityHash64(s, 'camp') % 200)),
      -- Video 1's sessions are served one of two variations of split test 1.
      'split_test_id', if(video = 1, '1', ''),
      'split_test_variation_id', if(video = 1, toString(1 + s % 2), '')),
    et = 'watched', map('duration_s', '600'),
    et = 'milestone', map('percent', toString(25 * (1 + s % 4))),
    et = 'cta_click', map('card_index', toString(intDiv(s, 3) % 3)),
    map()),
  toDateTime64({from:String}, 3, 'UTC') + toIntervalSecond(cityHash64(s) % (30 * 86400) + p * 7),
  -- The session's start, as the events host stamps it on every row: its first event.
  toDateTime64({from:String}, 3, 'UTC') + toIntervalSecond(cityHash64(s) % (30 * 86400))
FROM (
  SELECT number + {offset:UInt64} AS n, intDiv(n, 10) AS s, n % 10 AS p,
    if(n < {hot:UInt64}, 1, 2 + cityHash64(s, 'video') % ({videos:UInt64} - 1)) AS video,
    s % 4 = 0 AS auto
  FROM numbers({count:UInt64})
)`,
      query_params: { ws: WORKSPACE, offset, count: Math.min(batch, last - offset), hot, videos: VIDEOS, from: `${FROM} 00:00:00` },
      clickhouse_settings: { max_insert_threads: "2" },
    });
  }
  // Sales: one session in fifty buys (verified; one sale in five a test), a minute after its load.
  await ch.command({
    query: `
INSERT INTO sale_events (workspace_id, video_id, video_code, event_type, event, event_id, session_code, device_id, watch_seconds, video_time, value, properties, created_at)
SELECT {ws:UInt64}, video, concat('video-', toString(video)), 'conversion', 'purchase', concat('api:', toString(s)),
  lower(hex(cityHash64(s, 'session'))), concat('d', toString(s % 70000)), 0, 0, toFloat64(20 + cityHash64(s, 'value') % 180),
  map('source', 'api', 'currency', if(s % 3 = 0, 'EUR', 'USD'), 'is_test', if(s % 5 = 0, 'true', 'false')),
  toDateTime64({from:String}, 3, 'UTC') + toIntervalSecond(cityHash64(s) % (30 * 86400) + 60)
FROM (
  SELECT number + {first:UInt64} AS s, if(s * 10 < {hot:UInt64}, 1, 2 + cityHash64(s, 'video') % ({videos:UInt64} - 1)) AS video
  FROM numbers({sessions:UInt64})
  WHERE cityHash64(s, 'sale') % 50 = 0
)`,
    query_params: { ws: WORKSPACE, first: first / 10, sessions: (last - first) / 10, hot, videos: VIDEOS, from: `${FROM} 00:00:00` },
  });
}

function round(v: number): number {
  return Math.round(v * 100) / 100;
}
process.exit(0);
