/**
 * docs/api.md "Exports": create (validation, video ownership, idempotency), the build job
 * (pending → processing → ready | failed, streamed into the blob store), download in
 * both formats with the columns of the matching analytics read, isolation and expiry.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { BASE, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { BLANK_EVENT, insertEventRows } from "../helpers/event-rows.ts";
import type { Deps } from "../../server/deps.ts";
import type { BlobStore } from "../../server/storage/blob/index.ts";
import { sweepExpiredExports } from "../../server/api/exports/service.ts";
import { processNextExport, startExportBuilder } from "../../server/workers/export-builder.ts";
import { privateBlob } from "../../server/storage/media-keys.ts";

let now = Date.parse("2026-11-20T12:00:00Z");
let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;
let v1: number;
let v2: number;
let vBig: number;
let foreign: number;

const ch = (rows: (Record<string, unknown> & { event_type: string })[], workspaceId: number) =>
  insertEventRows(
    t.deps.ch,
    rows.map((r, i) => ({ ...BLANK_EVENT, workspace_id: workspaceId, video_code: "c", event_id: `x-${i}-${Math.random()}`, ...r })),
  );

const video = async (ws: TestWorkspace, title: string) => (await t.createVideo(ws, { title })).id;

beforeAll(async () => {
  t = await testApp({ clock: { now: () => now } });
  a = await t.workspace(["analytics:read", "videos:write"]);
  b = await t.workspace(["analytics:read", "videos:write"]);
  v1 = await video(a, "export one");
  v2 = await video(a, "export two");
  vBig = await video(a, "export big");
  foreign = await video(b, "other workspace");
  await ch(
    [
      { video_id: v1, event_type: "play", session_code: "s1", device_id: "d1", created_at: "2026-11-10 10:00:00.000" },
      {
        video_id: v1,
        event_type: "watched",
        session_code: "s1",
        device_id: "d1",
        video_time: 0,
        watch_seconds: 100,
        properties: { duration_s: "100" },
        created_at: "2026-11-10 10:00:01.000",
      },
      { video_id: v1, event_type: "ended", session_code: "s1", device_id: "d1", video_time: 100, created_at: "2026-11-10 10:00:02.000" },
      // A session code a spreadsheet would misread: quoted and defused in csv.
      { video_id: v1, event_type: "play", session_code: '=cmd,"x"', created_at: "2026-11-11 08:00:00.000" },
      {
        video_id: v1,
        event_type: "watched",
        session_code: '=cmd,"x"',
        video_time: 0,
        watch_seconds: 40,
        properties: { duration_s: "100" },
        created_at: "2026-11-11 08:00:01.000",
      },
      {
        video_id: v1,
        event_type: "conversion",
        event: "purchase",
        event_id: "shop:1",
        value: 30,
        properties: { source: "postback" },
        created_at: "2026-11-11 09:00:00.000",
      },
      {
        video_id: v1,
        event_type: "conversion",
        event: "purchase",
        event_id: "shop:2",
        value: 99,
        properties: { verified: "0", source: "browser" },
        created_at: "2026-11-11 09:01:00.000",
      },
      { video_id: v2, event_type: "play", session_code: "s9", created_at: "2026-11-12 23:59:59.999" },
      { video_id: v2, event_type: "pause", session_code: "s9", video_time: 4.5, created_at: "2026-11-13 00:00:00.000" }, // outside to=11-12
      { video_id: v1, event_type: "play", session_code: "early", created_at: "2026-11-09 23:59:59.999" }, // outside from=11-10
    ],
    a.id,
  );
  // Rows of workspace b under a's video id never leak into a's export.
  await ch([{ video_id: v1, event_type: "play", session_code: "intruder", created_at: "2026-11-10 11:00:00.000" }], b.id);
}, 120_000);

const post = (body: unknown, ws: TestWorkspace = a, headers?: Record<string, string>) => t.call("POST", "/api/v1/exports", { token: ws.token, body, headers });
const get = (path: string, ws: TestWorkspace = a) => t.call("GET", `/api/v1${path}`, { token: ws.token });

async function buildAll(deps: Deps = t.deps, sliceRows?: number): Promise<void> {
  for (let i = 0; i < 20 && (await processNextExport(deps, { sliceRows })); i++);
}

async function exported(body: Record<string, unknown>) {
  const created = await post(body);
  expect(created.status).toBe(202);
  await buildAll();
  const read = await get(`/exports/${created.body.export_id}`);
  expect(read.body).toEqual({ export_id: created.body.export_id, status: "ready", download_url: `${BASE}/api/v1/exports/${created.body.export_id}/download` });
  const file = await get(`/exports/${created.body.export_id}/download`);
  expect(file.status).toBe(200);
  return file;
}

const window = { from: "2026-11-10", to: "2026-11-12" };

describe("create", () => {
  test("202 pending with a flex_ id; download_url null and no file until built", async () => {
    const res = await post({ video_ids: [v1], ...window, format: "csv", type: "events" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ export_id: expect.stringMatching(/^flex_[0-9a-f]+$/), status: "pending" });
    expect((await get(`/exports/${res.body.export_id}`)).body).toEqual({ export_id: res.body.export_id, status: "pending", download_url: null });
    const early = await get(`/exports/${res.body.export_id}/download`);
    expect(early.status).toBe(404);
    expect(early.body.error.code).toBe("EXPORT_NOT_FOUND");
    await buildAll();
    expect((await get(`/exports/${res.body.export_id}`)).body.status).toBe("ready");
  });

  test("missing and invalid fields are 422 naming the field; nothing is created", async () => {
    const valid = { video_ids: [v1], ...window, format: "csv", type: "events" };
    const before = await t.deps.sql`SELECT count(*)::int AS n FROM exports WHERE workspace_id = ${a.id}`;
    const cases: [Record<string, unknown>, string][] = [
      [{ ...valid, video_ids: undefined }, "video_ids"],
      [{ ...valid, video_ids: [] }, "video_ids"],
      [{ ...valid, video_ids: Array.from({ length: 51 }, (_, i) => i + 1) }, "video_ids"],
      [{ ...valid, video_ids: ["x"] }, "video_ids.0"],
      [{ ...valid, from: undefined }, "from"],
      [{ ...valid, to: undefined }, "to"],
      [{ ...valid, format: undefined }, "format"],
      [{ ...valid, format: "xml" }, "format"],
      [{ ...valid, type: undefined }, "type"],
      [{ ...valid, type: "everything" }, "type"],
      [{ ...valid, from: "2026-11-31" }, "from"],
      [{ ...valid, from: "2026-11-12", to: "2026-11-10" }, "to"],
    ];
    for (const [body, field] of cases) {
      const res = await post(body);
      expect(res.status).toBe(422);
      expect(res.body.errors[field]).toBeArray();
    }
    const after = await t.deps.sql`SELECT count(*)::int AS n FROM exports WHERE workspace_id = ${a.id}`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test("a video of another workspace or an unknown id is 404 VIDEO_NOT_FOUND", async () => {
    for (const ids of [[v1, foreign], [999999999]]) {
      const res = await post({ video_ids: ids, ...window, format: "json", type: "summary" });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: { code: "VIDEO_NOT_FOUND", message: "One or more video IDs not found." } });
    }
  });

  test("a repeat with the same Idempotency-Key returns the same export, replayed", async () => {
    const body = { video_ids: [v2], ...window, format: "json", type: "events" };
    const first = await post(body, a, { "Idempotency-Key": "export-key-1" });
    const again = await post(body, a, { "Idempotency-Key": "export-key-1" });
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get("idempotency-replayed")).toBe("true");
    const rows = await t.deps.sql`SELECT count(*)::int AS n FROM exports WHERE public_id = ${first.body.export_id}`;
    expect(rows[0]!.n).toBe(1);
    await buildAll();
  });

  test("needs analytics:read", async () => {
    const token = await a.mint(["videos:read"]);
    const res = await t.call("POST", "/api/v1/exports", { token: token.secret, body: { video_ids: [v1], ...window, format: "csv", type: "events" } });
    expect(res.status).toBe(403);
  });
});

describe("files", () => {
  test("events csv: header row, one row per event with video_id, UTC window, quoting", async () => {
    const file = await exported({ video_ids: [v2, v1], ...window, format: "csv", type: "events" });
    expect(file.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(file.headers.get("content-disposition")).toMatch(/^attachment; filename="flex_[0-9a-f]+\.csv"$/);
    expect(file.text.split("\r\n")).toEqual([
      "video_id,event_type,event,session_code,watch_seconds,video_time,created_at,ip_hash",
      `${v1},play,,s1,0,0,2026-11-10T10:00:00.000Z,`,
      `${v1},watched,,s1,100,0,2026-11-10T10:00:01.000Z,`,
      `${v1},ended,,s1,0,100,2026-11-10T10:00:02.000Z,`,
      `${v1},play,,"'=cmd,""x""",0,0,2026-11-11T08:00:00.000Z,`,
      `${v1},watched,,"'=cmd,""x""",40,0,2026-11-11T08:00:01.000Z,`,
      `${v1},conversion,purchase,,0,0,2026-11-11T09:00:00.000Z,`,
      `${v1},conversion,purchase,,0,0,2026-11-11T09:01:00.000Z,`,
      `${v2},play,,s9,0,0,2026-11-12T23:59:59.999Z,`,
      "",
    ]);
  });

  test("events json: an array of the events read's objects plus video_id", async () => {
    const file = await exported({ video_ids: [v1], ...window, format: "json", type: "events" });
    expect(file.headers.get("content-type")).toBe("application/json");
    const read = await get(`/videos/${v1}/analytics/events?from=2026-11-10&to=2026-11-12&per_page=500`);
    // The read is newest first, the export oldest first.
    expect(file.body).toEqual(read.body.events.data.reverse().map((e: object) => ({ video_id: v1, ...e })));
    expect(file.body).toHaveLength(7);
  });

  test("summary: one row per video, equal to the summary read (UTC)", async () => {
    const file = await exported({ video_ids: [v1, v2], ...window, format: "json", type: "summary" });
    const rows = [];
    for (const id of [v1, v2]) {
      const read = await get(`/videos/${id}/analytics/summary?from=2026-11-10&to=2026-11-12`);
      const { summary, ...rest } = read.body;
      rows.push({ ...rest, ...summary });
    }
    expect(file.body).toEqual(rows);
    // By hand: v1 has sessions s1 (complete, 100 s) and the odd one (40 s); v2 one play, no watch.
    expect(file.body[0]).toMatchObject({
      video_id: v1,
      plays: 2,
      unique_plays: 2,
      completion_count: 1,
      completion_rate: 0.5,
      avg_watch_time_s: 70,
      bounce_count: 0,
    });
    expect(file.body[1]).toMatchObject({ video_id: v2, plays: 1, completion_count: 0, avg_watch_time_s: 0, bounce_count: 1 });
    const csv = await exported({ video_ids: [v2], ...window, format: "csv", type: "summary" });
    const code = file.body[1].video_code;
    expect(csv.text).toBe(
      "video_id,video_code,from,to,tz,plays,unique_plays,completion_count,completion_rate,avg_watch_time_s,bounce_count\r\n" +
        `${v2},${code},2026-11-10,2026-11-12,UTC,1,1,0,0,0,1\r\n`,
    );
  });

  test("retention: one row per video and bucket, equal to the retention read", async () => {
    const file = await exported({ video_ids: [v1], ...window, format: "csv", type: "retention" });
    const lines = file.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("video_id,bucket_pct,watch_pct");
    expect(lines).toHaveLength(101);
    const read = await get(`/videos/${v1}/analytics/retention?from=2026-11-10&to=2026-11-12`);
    expect(lines.slice(1)).toEqual(read.body.buckets.map((b: { bucket_pct: number; watch_pct: number }) => `${v1},${b.bucket_pct},${b.watch_pct}`));
    // Both sessions watched [0,40); only s1 the rest.
    expect(lines[1]).toBe(`${v1},0,1`);
    expect(lines[100]).toBe(`${v1},99,0.5`);
  });

  test("conversions: one row per video and event name; revenue from verified rows only", async () => {
    const file = await exported({ video_ids: [v1, v2], ...window, format: "json", type: "conversions" });
    expect(file.body).toEqual([{ video_id: v1, from: "2026-11-10", to: "2026-11-12", event_name: "purchase", count: 2, total_revenue: 30 }]);
    const empty = await exported({ video_ids: [v2], ...window, format: "json", type: "conversions" });
    expect(empty.body).toEqual([]);
  });

  test("a large events export reaches the blob store as a stream of bounded chunks", async () => {
    await t.deps.ch.command({
      query: `INSERT INTO player_events (workspace_id, video_id, video_code, event_type, event, event_id, session_code, device_id, watch_seconds, video_time, value, properties, created_at)
        SELECT {ws:UInt64}, {video:UInt64}, 'big', 'watched', '', toString(number), concat('s', toString(number % 1000)), '', 1, number % 600, NULL, map(),
          toDateTime64('2026-11-10 00:00:00', 3, 'UTC') + toIntervalSecond(number * 7)
        FROM numbers(30000)`,
      query_params: { ws: a.id, video: vBig },
    });
    const chunks: number[] = [];
    const store = t.deps.blobs.private;
    const watching: BlobStore = {
      ...store,
      put: async (key, body, opts) => {
        const reader = (body as ReadableStream<Uint8Array>).getReader();
        const counted = new ReadableStream<Uint8Array>({
          async pull(controller) {
            const { done, value } = await reader.read();
            if (done) controller.close();
            else {
              chunks.push(value.byteLength);
              controller.enqueue(value);
            }
          },
        });
        return store.put(key, counted, opts);
      },
    };
    const created = await post({ video_ids: [vBig], ...window, format: "csv", type: "events" });
    // 30,000 rows 7 s apart span 11-10 .. 11-12 (12,343 + 12,343 + 5,314 rows by day): slices of
    // at most 13,000 rows take one day each, and the file must still be complete and in order.
    await buildAll({ ...t.deps, blobs: { ...t.deps.blobs, private: watching } }, 13_000);
    const file = await get(`/exports/${created.body.export_id}/download`);
    const lines = file.text.trimEnd().split("\r\n");
    expect(lines).toHaveLength(30001);
    const times = lines.slice(1).map((line) => Date.parse(line.split(",")[6]!));
    expect(times[0]).toBe(Date.parse("2026-11-10T00:00:00Z"));
    expect(times.every((at, i) => i === 0 || at - times[i - 1]! === 7000)).toBe(true);
    expect(chunks.length).toBeGreaterThan(10);
    expect(Math.max(...chunks)).toBeLessThan(70_000);
    const [row] = await t.deps.sql`SELECT row_count, byte_size FROM exports WHERE public_id = ${created.body.export_id}`;
    expect(row).toEqual({ row_count: 30000, byte_size: Buffer.byteLength(file.text) });
  });
});

describe("job states, isolation and expiry", () => {
  test("a build that keeps failing goes back to pending, then reads failed after 3 attempts", async () => {
    const created = await post({ video_ids: [v1], ...window, format: "csv", type: "summary" });
    const broken: BlobStore = {
      ...t.deps.blobs.private,
      put: async (_key, body) => {
        await (body as ReadableStream).cancel();
        throw new Error("disk full");
      },
    };
    const deps = { ...t.deps, blobs: { ...t.deps.blobs, private: broken } };
    for (const expected of ["pending", "pending", "failed"]) {
      expect(await processNextExport(deps)).toBe(true);
      expect((await get(`/exports/${created.body.export_id}`)).body).toEqual({ export_id: created.body.export_id, status: expected, download_url: null });
    }
    expect(await processNextExport(deps)).toBe(false);
    expect((await get(`/exports/${created.body.export_id}/download`)).status).toBe(404);
  });

  test("the started builder picks up a new export at once and drains on stop", async () => {
    const stop = startExportBuilder(t.deps, { pollMs: 60_000 });
    try {
      const created = await post({ video_ids: [v1], ...window, format: "json", type: "retention" });
      let status = "pending";
      for (let i = 0; i < 100 && status !== "ready"; i++) {
        await Bun.sleep(50);
        status = (await get(`/exports/${created.body.export_id}`)).body.status;
      }
      expect(status).toBe("ready");
    } finally {
      await stop();
    }
  });

  test("another workspace, an unknown id and a malformed id are 404 EXPORT_NOT_FOUND", async () => {
    const created = await exported({ video_ids: [v1], ...window, format: "csv", type: "conversions" });
    const id = /filename="(flex_[0-9a-f]+)\.csv"/.exec(created.headers.get("content-disposition")!)![1]!;
    for (const [ws, path] of [
      [b, `/exports/${id}`],
      [b, `/exports/${id}/download`],
      [a, "/exports/flex_00000000000000000000"],
      [a, "/exports/nope"],
      [a, "/exports/nope/download"],
    ] as const) {
      const res = await get(path, ws);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe("EXPORT_NOT_FOUND");
    }
  });

  test("exports expire 7 days after creation and the sweep deletes their files", async () => {
    const created = await post({ video_ids: [v2], ...window, format: "csv", type: "events" });
    await buildAll();
    const [row] = await t.deps.sql`SELECT blob_key FROM exports WHERE public_id = ${created.body.export_id}`;
    // Export files are in the private store, which no public URL serves.
    expect(row!.blob_key).toStartWith("private/exports/");
    const file = privateBlob(t.deps.blobs, row!.blob_key);
    expect(await file.store.head(file.key)).toBeDefined();
    now += 7 * 86_400_000 - 1000;
    try {
      expect((await get(`/exports/${created.body.export_id}`)).status).toBe(200);
      now += 2000;
      const gone = await get(`/exports/${created.body.export_id}`);
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe("EXPORT_NOT_FOUND");
      expect((await get(`/exports/${created.body.export_id}/download`)).status).toBe(404);
      expect(await sweepExpiredExports(t.deps)).toBeGreaterThanOrEqual(1);
      expect(await file.store.head(file.key)).toBeUndefined();
      expect(await t.deps.sql`SELECT 1 FROM exports WHERE public_id = ${created.body.export_id}`).toHaveLength(0);
    } finally {
      now = Date.parse("2026-11-20T12:00:00Z");
    }
  });
});
