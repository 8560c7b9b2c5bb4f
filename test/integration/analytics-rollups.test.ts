/**
 * Sealed hours and days (server/api/analytics/rollups.ts) give the same retention and summary as
 * every session read one by one: fast-check generates sessions (videos, starts over three
 * days, played or not, watched ranges), a seal at a random moment, rows that arrive
 * after it for hours already sealed, and windows in several time zones; the curve read
 * through the rollups must equal the curve read from the sessions, exactly.
 */
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { Deps } from "../../server/deps.ts";
import { computeRetention } from "../../server/api/analytics/service.ts";
import { SEAL_LAG_MS, sealedUntil, sealRollups, summarySql } from "../../server/api/analytics/rollups.ts";
import { rows, type SummaryRow, summaryFromRow } from "../../server/api/analytics/queries.ts";
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
}

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
  if (batch === 0) {
    rows.push({ ...common, event_type: "load", event_id: `${ws}-${i}-load`, created_at: stamp(start), session_start: stamp(start) });
    rows.push({ ...common, event_type: s.played ? "play" : "autoplay", event_id: `${ws}-${i}-start`, created_at: stamp(start), session_start: stamp(start) });
  }
  return rows;
}

describe("retention and the summary from sealed hours and days", () => {
  test("equals the read of every session, with late rows, in any time zone", async () => {
    const { ch } = await getEngines();
    let ws = 9_000 + Math.floor(Math.random() * 1_000_000);
    const firstWs = ws + 1;
    await fc.assert(
      fc.asyncProperty(
        fc.array(sessionArb, { minLength: 1, maxLength: 25 }),
        fc.integer({ min: 0, max: 4 * 24 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        fc.constantFrom(...ZONES),
        async (sessions, sealHour, fromDay, days, tz) => {
          ws += 1;
          let now = BASE_MS + sealHour * 3_600_000 + SEAL_LAG_MS;
          const deps = { ch, clock: { now: () => now } } as unknown as Deps;
          await insertEventRows(
            ch,
            sessions.flatMap((s, i) => rowsOf(ws, s, i, 0)),
          );
          await sealRollups(deps);
          // Rows for hours sealed already: the next seal must take them.
          await insertEventRows(
            ch,
            sessions.flatMap((s, i) => rowsOf(ws, s, i, 1)),
          );
          now += 60_000;
          await sealRollups(deps);
          const from = new Date(BASE_MS + (fromDay - 1) * DAY_MS).toISOString().slice(0, 10);
          const to = new Date(BASE_MS + (fromDay - 1 + days) * DAY_MS).toISOString().slice(0, 10);
          const w = resolveWindow(now, { from, to, tz }, 30);
          const scope = { workspaceId: ws, videoIds: [1, 2], start: w.start, end: w.end, tz: w.tz };
          const sealed = await computeRetention(deps, scope, 100);
          const everySession = await computeRetention(deps, scope, 100, "all", { sealed: false });
          expect([...sealed.entries()]).toEqual([...everySession.entries()]);
          const summaryOf = async (until: number) => summaryFromRow((await rows<SummaryRow>(ch, summarySql({ ...scope, videoIds: [1] }, until)))[0]);
          expect(await summaryOf(await sealedUntil(deps))).toEqual(await summaryOf(0));
        },
      ),
      { numRuns: 30 },
    );
    // The rollups were read, not only the sessions: hours and whole days of these workspaces were sealed.
    const [sealed] = await (
      await ch.query({
        query:
          "SELECT countIf(grain = 'hour') AS hours, countIf(grain = 'day') AS days FROM analytics_rollups WHERE workspace_id BETWEEN {a:UInt64} AND {b:UInt64}",
        query_params: { a: firstWs, b: ws },
        format: "JSONEachRow",
      })
    ).json<{ hours: string; days: string }>();
    expect(Number(sealed!.hours)).toBeGreaterThan(10);
    expect(Number(sealed!.days)).toBeGreaterThan(3);
  });
});
