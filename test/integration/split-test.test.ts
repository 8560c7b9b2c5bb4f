/**
 * A split test end to end through the public paths: simulated viewers ask the events
 * host which variation to play (`POST /v1/split-test`), send player batches
 * (`POST /v1/collect`), and buy through `POST /api/v1/conversions` with their session
 * codes. The served split, the report's figures and the winner webhook are checked
 * against what this test counted itself.
 *
 * The winner rule (README "Split tests") replaced the raw-count rule "at least 100
 * sales and (a - b) / √(a + b) ≥ 1.96, assuming equal traffic": its tests' intent
 * stays (the winner is declared once, exactly when the rule is met, and a close race,
 * test sales and sales without a session decide nothing), restated on rates per
 * variation's traffic. The rule runs in the sweeper; here the test runs it itself
 * (`evaluateSplitTests`) at the moments it checks.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { loadConfig } from "../../server/config.ts";
import { evaluateSplitTests } from "../../server/api/split-tests/report.ts";
import { type Arm, decide } from "../../server/api/split-tests/stats.ts";
import { ADMIN_KEY, testApp, UNLIMITED, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { collect, evenSplit, inParallel, newViewer, served, seeded, type Viewer } from "../helpers/split-viewers.ts";

let t: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  const base = loadConfig({});
  t = await testApp({ config: { ...UNLIMITED, eventLimits: { ...base.eventLimits, perIpPerMinute: 1_000_000, perWorkspacePerMinute: 1_000_000 } } });
  ws = await t.workspace();
  await t.call("PUT", `/admin/v1/workspaces/${ws.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
}, 60_000);

interface Visit {
  viewer: Viewer;
  variation: number;
  videoCode: string;
  played: boolean;
}

/** Creates a 50/50 conversion test of two new videos. */
async function fiftyFifty(name: string) {
  const control = await t.createVideo(ws, { title: `${name} A` });
  const other = await t.createVideo(ws, { title: `${name} B` });
  const res = await t.call("POST", "/api/v1/split-tests", {
    token: ws.token,
    body: {
      name,
      goal: "conversion",
      variations: evenSplit(control.id, other.id),
    },
  });
  expect(res.status).toBe(201);
  return res.body.split_test as { id: number; code: string; variations: { id: number; video_code: string }[] };
}

/** `n` viewers: each is served a variation, then its player sends one batch (a load, and a play for `playShare` of them). */
async function visit(test: { code: string }, n: number, playShare: number, seed: number): Promise<Visit[]> {
  const random = seeded(seed);
  const plays = Array.from({ length: n }, () => random() < playShare);
  return inParallel(Array.from({ length: n }, newViewer), 64, async (viewer, i) => {
    const s = await served(t, ws.code, test.code, viewer);
    expect(s.in_test).toBe(true);
    const res = await collect(t, ws.code, s.video_code, viewer, plays[i] ? ["load", "play"] : ["load"]);
    expect(res.status).toBe(200);
    return { viewer, variation: s.variation_id, videoCode: s.video_code, played: plays[i]! };
  });
}

const sell = (body: Record<string, unknown>) => t.call("POST", "/api/v1/conversions", { token: ws.token, body });

const declarations = async (testId: number) =>
  t.deps.sql`SELECT data FROM outbox WHERE workspace_id = ${ws.id} AND event = 'split_test.winner_declared' AND (data->>'split_test_id')::bigint = ${testId}`;

/** The first `share` of each variation's played visits, in visit order: the buyers. */
function buyersOf(visits: Visit[], variation: number, share: number): Visit[] {
  const played = visits.filter((v) => v.variation === variation && v.played);
  return played.slice(0, Math.round(played.length * share));
}

/** Sales of both lists, interleaved in proportion (the order in which they arrive). */
function interleave<T>(a: T[], b: T[]): T[] {
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && i / a.length <= j / b.length)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}

describe("a 50/50 split test with 2,000 viewers", () => {
  test("served split, report figures equal to the counted ones, and the winner declared once exactly when the rule is met", async () => {
    const st = await fiftyFifty("Offer page");
    const [control, other] = st.variations as [{ id: number; video_code: string }, { id: number; video_code: string }];
    const visits = await visit(st, 2000, 0.6, 17);

    // Served within 45-55 % each (binomial standard deviation: 1.1 points).
    const servedA = visits.filter((v) => v.variation === control.id).length;
    expect(servedA / 2000).toBeGreaterThanOrEqual(0.45);
    expect(servedA / 2000).toBeLessThanOrEqual(0.55);
    for (const v of visits) expect(v.videoCode).toBe(v.variation === control.id ? control.video_code : other.video_code);

    // The control converts 6 % of its plays, the other variation 14 %. Every sale credits the control's
    // video code (the one on the seller's page): it counts for the variation its session was served.
    const buyersA = buyersOf(visits, control.id, 0.06);
    const buyersB = buyersOf(visits, other.id, 0.14);
    const order = interleave(buyersA, buyersB);
    const price = (v: Visit) => (v.variation === control.id ? 47 : 97);
    const arms = (sold: Visit[]): Arm[] =>
      [control.id, other.id].map((id) => ({
        trials: visits.filter((v) => v.variation === id && v.played).length,
        successes: sold.filter((v) => v.variation === id).length,
      }));
    // The rule on this test's own counts: the first sale after which it holds.
    const k = order.findIndex((_, i) => decide(arms(order.slice(0, i + 1))).winner !== undefined) + 1;
    expect(k).toBeGreaterThan(1);
    expect(decide(arms(order.slice(0, k))).winner).toBe(1);

    const buy = async (v: Visit) => {
      const res = await sell({ video_code: control.video_code, session_code: v.viewer.session, conversion_value: price(v), conversion_currency: "USD" });
      expect(res.status).toBe(201);
      expect(res.body.attributed_to_split_test).toBe(true);
    };
    // Sales that never count: a test sale, a sale without a session, an unverified browser sale (all on B's played sessions).
    const noise = visits.filter((v) => v.variation === other.id && v.played && !buyersB.includes(v)).slice(0, 3);
    expect((await sell({ video_code: other.video_code, session_code: noise[0]!.viewer.session, conversion_value: 500, is_test: true })).status).toBe(201);
    expect((await sell({ video_code: other.video_code, conversion_value: 500 })).body.attributed_to_split_test).toBe(false);
    const browser = await t.call("POST", "/v1/conversion", {
      body: {
        workspace_code: ws.code,
        integration: "shopify",
        order_id: "b-1",
        value: 500,
        session_id: noise[1]!.viewer.session,
        video_code: other.video_code,
      },
    });
    expect(browser.status).toBe(200);
    // A sale of a session that did not play: revenue of its variation, not a conversion.
    const idle = visits.find((v) => v.variation === other.id && !v.played)!;
    await sell({ video_code: control.video_code, session_code: idle.viewer.session, conversion_value: 20, conversion_currency: "EUR" });

    await inParallel(order.slice(0, k - 1), 16, buy);
    expect(await evaluateSplitTests(t.deps)).toBe(0);
    expect(await declarations(st.id)).toHaveLength(0);

    await buy(order[k - 1]!);
    await evaluateSplitTests(t.deps);
    const declared = await declarations(st.id);
    expect(declared).toHaveLength(1);
    const [a, b] = arms(order.slice(0, k));
    expect(declared[0]!.data).toMatchObject({
      split_test_id: st.id,
      goal: "conversion",
      winner_variation_id: other.id,
      control_variation_id: control.id,
      video: { code: other.video_code },
      auto_promoted: false,
      variations: [
        { variation_id: control.id, trials: a!.trials, successes: a!.successes },
        { variation_id: other.id, trials: b!.trials, successes: b!.successes },
      ],
    });

    await inParallel(order.slice(k), 16, buy);
    await evaluateSplitTests(t.deps);
    expect(await declarations(st.id)).toHaveLength(1);

    // The report, against this test's own counts.
    const report = (await t.call("GET", `/api/v1/split-tests/${st.id}/report`, { token: ws.token })).body;
    const round4 = (x: number) => Math.round(x * 10_000) / 10_000;
    const round2 = (x: number) => Math.round(x * 100) / 100;
    for (const [i, variation] of [control, other].entries()) {
      const mine = visits.filter((v) => v.variation === variation.id);
      const plays = mine.filter((v) => v.played).length;
      const buyers = i === 0 ? buyersA : buyersB;
      const usd = buyers.reduce((sum, v) => sum + price(v), 0);
      const row = report.variations[i];
      expect(row).toMatchObject({
        variation_id: variation.id,
        control: i === 0,
        impressions: mine.length,
        plays,
        play_rate: round4(plays / mine.length),
        unique_viewers: mine.length,
        unique_viewers_exact: true,
        conversions: buyers.length,
        conversion_rate: round4(buyers.length / plays),
        goal: { trials: plays, successes: buyers.length, rate: round4(buyers.length / plays) },
      });
      const revenue = [{ currency: "USD", orders: buyers.length, revenue: usd, rpv: round2(usd / mine.length) }];
      if (i === 1) revenue.push({ currency: "EUR", orders: 1, revenue: 20, rpv: round2(20 / mine.length) });
      expect(row.revenue).toEqual(revenue);
    }
    const full = arms([...buyersA, ...buyersB]);
    const pa = full[0]!.successes / full[0]!.trials;
    const pb = full[1]!.successes / full[1]!.trials;
    const se = Math.sqrt((pa * (1 - pa)) / full[0]!.trials + (pb * (1 - pb)) / full[1]!.trials);
    expect(report.variations[0].goal).toMatchObject({ difference: null, probability_to_beat_control: null });
    expect(report.variations[1].goal.difference).toBeCloseTo(pb - pa, 4);
    expect(report.variations[1].goal.ci_low).toBeCloseTo(pb - pa - 1.959964 * se, 4);
    expect(report.variations[1].goal.ci_high).toBeCloseTo(pb - pa + 1.959964 * se, 4);
    expect(report.variations[1].goal.probability_to_beat_control).toBeGreaterThan(0.99);
    expect(report.decision).toMatchObject({ sample_reached: true, leader_variation_id: other.id, significant: true, declared_variation_id: other.id });
    // One day of traffic: the chart's point is the whole test.
    expect(report.series).toHaveLength(1);
    expect(report.series[0].variations.map((v: any) => [v.trials, v.successes])).toEqual(full.map((arm) => [arm.trials, arm.successes]));
  }, 120_000);

  test("a close race decides nothing, though test sales, sales without a session and unverified sales would tip it", async () => {
    const st = await fiftyFifty("Close race");
    const [control, other] = st.variations as [{ id: number; video_code: string }, { id: number; video_code: string }];
    const visits = await visit(st, 600, 0.6, 29);
    // 10 % of each variation's plays buy: equal rates.
    const buyers = [...buyersOf(visits, control.id, 0.1), ...buyersOf(visits, other.id, 0.1)];
    await inParallel(buyers, 16, (v) => sell({ video_code: v.videoCode, session_code: v.viewer.session, conversion_value: 10 }));
    // On B's other played sessions: sales that must not count.
    const rest = visits.filter((v) => v.variation === other.id && v.played && !buyers.includes(v));
    const excluded = rest.slice(0, 45);
    await inParallel(excluded.slice(0, 15), 8, (v) =>
      sell({ video_code: other.video_code, session_code: v.viewer.session, conversion_value: 10, is_test: true }),
    );
    await inParallel(excluded.slice(15, 30), 8, () => sell({ video_code: other.video_code, conversion_value: 10 }));
    await inParallel(excluded.slice(30, 45), 8, (v, i) =>
      t.call("POST", "/v1/conversion", {
        body: {
          workspace_code: ws.code,
          integration: "shopify",
          order_id: `close-${i}`,
          value: 10,
          session_id: v.viewer.session,
          video_code: other.video_code,
        },
      }),
    );

    const trials = (id: number) => visits.filter((v) => v.variation === id && v.played).length;
    const counted: Arm[] = [control.id, other.id].map((id) => ({ trials: trials(id), successes: buyers.filter((v) => v.variation === id).length }));
    expect(decide(counted).sample_reached).toBe(true);
    expect(decide(counted).winner).toBeUndefined();
    // Counted, the excluded sales would make B the winner: they are what this test is about.
    expect(decide([counted[0]!, { trials: counted[1]!.trials, successes: counted[1]!.successes + excluded.length }]).winner).toBe(1);

    await evaluateSplitTests(t.deps);
    expect(await declarations(st.id)).toHaveLength(0);
    const report = (await t.call("GET", `/api/v1/split-tests/${st.id}/report`, { token: ws.token })).body;
    expect(report.variations.map((v: any) => [v.goal.trials, v.goal.successes])).toEqual(counted.map((arm) => [arm.trials, arm.successes]));
    expect(report.decision).toMatchObject({ sample_reached: true, significant: false, declared_variation_id: null });
  }, 60_000);
});
