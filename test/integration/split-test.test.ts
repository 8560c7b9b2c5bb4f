import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";

let t: TestApp;
let ws: TestWorkspace;
let video: { id: number; code: string };

beforeAll(async () => {
  // Many sales from one token: the write limit is raised so only the rule is under test.
  t = await testApp({ config: { limits: { readsPerMinute: 600, writesPerMinute: 100_000 } } });
  ws = await t.workspace();
  const res = await t.call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Two headlines" } });
  video = { id: res.body.video.id, code: res.body.video.code };
}, 60_000);

const sale = (splitTest: string, variation: string, extra: Record<string, unknown> = {}) =>
  t.call("POST", "/api/v1/conversions", {
    token: ws.token,
    body: {
      video_code: video.code,
      session_code: `s-${crypto.randomUUID()}`,
      conversion_value: 10,
      split_test_id: splitTest,
      split_test_variation_id: variation,
      ...extra,
    },
  });

const declared = (splitTest: string) =>
  t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'split_test.winner_declared' AND data->>'split_test_id' = ${splitTest}`;

describe("split_test.winner_declared", () => {
  test("fires once, when the 100th attributed sale makes the leader significant", async () => {
    for (let i = 0; i < 36; i++) expect((await sale("st-clear", "b")).status).toBe(201);
    for (let i = 0; i < 63; i++) await sale("st-clear", "a");
    expect(await declared("st-clear")).toHaveLength(0); // 99 sales: not yet
    await sale("st-clear", "a");
    const rows = await declared("st-clear");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.data).toMatchObject({
      split_test_id: "st-clear",
      winner_variation_id: "a",
      video: { id: video.id, code: video.code },
      conversions: { a: 64, b: 36 },
    });
    for (let i = 0; i < 5; i++) await sale("st-clear", "b");
    expect(await declared("st-clear")).toHaveLength(1);
  });

  test("a close race, test sales and sales without a session decide nothing", async () => {
    for (let i = 0; i < 55; i++) await sale("st-close", "a");
    for (let i = 0; i < 45; i++) await sale("st-close", "b");
    for (let i = 0; i < 30; i++) await sale("st-close", "a", { is_test: true });
    for (let i = 0; i < 30; i++) await sale("st-close", "a", { session_code: undefined });
    expect(await declared("st-close")).toHaveLength(0);
  });
});
