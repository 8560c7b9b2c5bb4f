/**
 * The seller's analytics (README "What the numbers mean") driven through the real paths:
 * the player's `/v1/collect` batches (loads, autoplays, unmutes, plays, watched ranges,
 * CTA clicks, lead forms, startups, stalls, errors; each visit from its own User-Agent
 * and IP), sales through `POST /conversions` and the browser fallback, and ad spend
 * through its API. Every expected figure is computed below from the scenario itself,
 * by the definitions, independently of the server's SQL.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { processNextExport } from "../../server/workers/export-builder.ts";
import { readMetrics } from "../../server/api/analytics/metrics.ts";

const NOW = Date.parse("2026-11-20T12:00:00Z");
const TODAY = "2026-11-20";
/** The read window: yesterday and today (the visits are all today; some ad spend is yesterday's). */
const FROM = "2026-11-19";
const DURATION = 100;
let t: TestApp;
let a: TestWorkspace;
let b: TestWorkspace;

// ---- the scenario ----

const UA = {
  chromeWin: {
    ua: "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
    device: "desktop",
    browser: "Chrome",
    os: "Windows",
  },
  iphone: {
    ua: "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
    device: "mobile",
    browser: "Safari",
    os: "iOS",
  },
  ipad: {
    ua: "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1",
    device: "tablet",
    browser: "Safari",
    os: "iOS",
  },
  firefoxMac: {
    ua: "Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:121.0) Gecko/20100101 Firefox/121.0",
    device: "desktop",
    browser: "Firefox",
    os: "macOS",
  },
  android: {
    ua: "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
    device: "mobile",
    browser: "Chrome",
    os: "Android",
  },
};
/** Addresses whose country the shipped GeoIP database knows; a private one has none. */
const IP = {
  de: ["193.99.144.80", "DE"],
  gb: ["81.2.69.142", "GB"],
  us: ["8.8.8.8", "US"],
  jp: ["133.242.0.3", "JP"],
  br: ["200.160.2.3", "BR"],
  lan: ["10.0.0.7", null],
} as const;

interface Visit {
  video: "v" | "w";
  session: string;
  device: string;
  client: { ua: string; device: string; browser: string; os: string };
  ip: readonly [string, string | null];
  /** Landing context the player sends with `load`. */
  page?: { referrer_host?: string; utm_source?: string; utm_medium?: string; utm_campaign?: string };
  /** Page views (each sends one `load`); 0 for an older player that sends none. */
  loads: number;
  autoplay?: boolean;
  unmute?: boolean;
  play?: boolean;
  ranges: [number, number][];
  cta?: number[];
  lead?: boolean;
  startups?: number[];
  stalls?: number[];
  errors?: number;
}

const visits: Visit[] = [
  {
    video: "v",
    session: "s-fb-1",
    device: "dev-1",
    client: UA.chromeWin,
    ip: IP.de,
    page: { referrer_host: "facebook.com", utm_source: "facebook", utm_medium: "cpc", utm_campaign: "spring" },
    loads: 1,
    play: true,
    ranges: [[0, 60]],
    cta: [0],
    startups: [400],
    stalls: [200],
  },
  {
    video: "v",
    session: "s-goog-auto",
    device: "dev-2",
    client: UA.iphone,
    ip: IP.gb,
    page: { referrer_host: "google.com" },
    loads: 1,
    autoplay: true,
    ranges: [[0, 20]],
    startups: [300],
  },
  {
    video: "v",
    session: "s-fb-unmute",
    device: "dev-3",
    client: UA.iphone,
    ip: IP.us,
    page: { referrer_host: "facebook.com", utm_source: "facebook", utm_medium: "cpc", utm_campaign: "summer" },
    loads: 1,
    autoplay: true,
    unmute: true,
    ranges: [
      [0, 8],
      [0, 100],
    ],
    cta: [0, 1, 1],
    lead: true,
    startups: [250],
  },
  { video: "v", session: "s-direct-look", device: "dev-4", client: UA.firefoxMac, ip: IP.jp, loads: 1, ranges: [] },
  {
    video: "v",
    session: "s-tablet",
    device: "dev-5",
    client: UA.ipad,
    ip: IP.br,
    loads: 1,
    play: true,
    ranges: [
      [0, 30],
      [20, 50],
    ],
    startups: [900, 1200],
    stalls: [500, 300],
    errors: 1,
  },
  // The same device as s-fb-1 on a later visit: one more session, not one more viewer.
  {
    video: "v",
    session: "s-fb-again",
    device: "dev-1",
    client: UA.chromeWin,
    ip: IP.de,
    page: { referrer_host: "news.example.org" },
    loads: 2,
    play: true,
    ranges: [[0, 10]],
    startups: [350],
  },
  // An older player: no `load`, no autoplay mark; its play still counts (and shows it was shown).
  { video: "v", session: "s-old-player", device: "dev-6", client: UA.android, ip: IP.lan, loads: 0, play: true, ranges: [[40, 80]] },
  {
    video: "v",
    session: "s-auto-2",
    device: "dev-7",
    client: UA.android,
    ip: IP.us,
    page: { utm_source: "newsletter", utm_medium: "email" },
    loads: 1,
    autoplay: true,
    ranges: [[0, 5]],
    errors: 2,
  },
  // Another video of the workspace.
  {
    video: "w",
    session: "w-1",
    device: "dev-8",
    client: UA.chromeWin,
    ip: IP.gb,
    page: { referrer_host: "google.com" },
    loads: 1,
    play: true,
    ranges: [[0, 100]],
    startups: [500],
  },
  { video: "w", session: "w-2", device: "dev-9", client: UA.iphone, ip: IP.gb, loads: 1, autoplay: true, ranges: [[0, 10]] },
];

interface Sale {
  video: "v" | "w";
  via: "s2s" | "browser" | "browser then s2s";
  order: string;
  value: number;
  currency?: string;
  session?: string;
  test?: boolean;
}

const sales: Sale[] = [
  { video: "v", via: "s2s", order: "o-1", value: 100, currency: "USD", session: "s-fb-1" },
  { video: "v", via: "s2s", order: "o-2", value: 50, currency: "EUR", session: "s-fb-unmute" },
  { video: "v", via: "s2s", order: "o-3", value: 999, currency: "USD", session: "s-tablet", test: true },
  { video: "v", via: "s2s", order: "o-4", value: 30, currency: "USD" },
  { video: "v", via: "browser", order: "o-5", value: 80, currency: "USD", session: "s-goog-auto" },
  { video: "v", via: "browser then s2s", order: "o-6", value: 70, currency: "USD", session: "s-tablet" },
  { video: "v", via: "s2s", order: "o-7", value: 20, currency: "USD", session: "s-direct-look" },
  { video: "v", via: "s2s", order: "o-8", value: 15, session: "s-fb-again" },
  { video: "w", via: "s2s", order: "o-9", value: 40, currency: "USD", session: "w-1" },
];

const spend = [
  { video: "v", date: TODAY, source: "facebook", currency: "USD", amount: 50 },
  { video: "v", date: TODAY, source: "Google.com", currency: "USD", amount: 10 },
  { video: "v", date: FROM, source: "facebook", currency: "EUR", amount: 20 },
  { video: "v", date: "2026-10-01", source: "facebook", currency: "USD", amount: 1000 },
  { video: "w", date: TODAY, source: "google.com", currency: "USD", amount: 8 },
] as const;

// ---- what the definitions say about it ----

const shown = (v: Visit) => v.loads > 0 || !!v.play || !!v.autoplay;
const played = (v: Visit) => !!v.play || !!v.unmute;
const watchTime = (v: Visit) => v.ranges.reduce((n, [from, to]) => n + to - from, 0);
/** Buckets of 1 % whose midpoints the visit's ranges cover (rewatches once). */
const buckets = (v: Visit, n = 100) =>
  Array.from({ length: n }, (_, i) => v.ranges.some(([from, to]) => (i + 0.5) * (DURATION / n) >= from && (i + 0.5) * (DURATION / n) < to));
const counted = (s: Sale) => s.via !== "browser" && !s.test;
const nearestRank = (values: number[], q: number) => [...values].sort((x, y) => x - y)[Math.min(values.length - 1, Math.floor(q * values.length))]!;
const r = (x: number, places: number) => Math.round(x * 10 ** places) / 10 ** places;
const rate = (num: number, den: number, places = 4) => (den ? r(num / den, places) : null);

const SOURCE = (v: Visit) => v.page?.utm_source || v.page?.referrer_host || "direct";
const DIMS: Record<string, (v: Visit) => string | null> = {
  source: SOURCE,
  utm_source: (v) => v.page?.utm_source ?? null,
  utm_medium: (v) => v.page?.utm_medium ?? null,
  utm_campaign: (v) => v.page?.utm_campaign ?? null,
  referrer_host: (v) => v.page?.referrer_host ?? null,
  device: (v) => v.client.device,
  browser: (v) => v.client.browser,
  os: (v) => v.client.os,
  country: (v) => v.ip[1],
};

/** The metrics of a group of visits and the sales counted for it (`spendRows`: undefined where ROAS does not apply). */
function expected(group: Visit[], groupSales: Sale[], spendRows?: { currency: string; amount: number }[]) {
  const seen = group.filter(shown);
  const plays = seen.filter(played);
  const viewers = new Set(seen.map((v) => v.device)).size;
  const autoplays = seen.filter((v) => v.autoplay);
  const unmutes = autoplays.filter((v) => v.unmute);
  // Each session's startup time: the longest of its starts.
  const startups = seen.filter((v) => v.startups?.length).map((v) => Math.max(...v.startups!));
  const watchAll = seen.reduce((n, v) => n + watchTime(v), 0);
  const cta = new Map<number, number>();
  // Per card, the sessions that clicked it (twice is once).
  for (const v of seen) for (const i of new Set(v.cta ?? [])) cta.set(i, (cta.get(i) ?? 0) + 1);
  const money = groupSales.filter(counted);
  const currencies = new Set<string>([...money.map((s) => s.currency ?? ""), ...(spendRows ?? []).map((s) => s.currency)]);
  const revenue = [...currencies]
    .map((c) => {
      const inC = money.filter((s) => (s.currency ?? "") === c);
      const rev = inC.reduce((n, s) => n + s.value, 0);
      const spent = spendRows?.filter((s) => s.currency === c).reduce((n, s) => n + s.amount, 0);
      const adSpend = spendRows?.some((s) => s.currency === c) ? spent! : null;
      return {
        currency: c === "" ? null : c,
        orders: inC.length,
        revenue: rev,
        aov: rate(rev, inC.length, 2),
        rpv: rate(rev, viewers, 2),
        epc: rate(rev, seen.length, 2),
        ad_spend: adSpend,
        roas: adSpend === null ? null : rate(rev, adSpend, 2),
      };
    })
    .sort((x, y) => y.revenue - x.revenue || (x.currency ?? "~").localeCompare(y.currency ?? "~"));
  const playedSessions = new Set(plays.map((v) => v.session));
  return {
    impressions: seen.length,
    plays: plays.length,
    play_rate: rate(plays.length, seen.length),
    autoplays: autoplays.length,
    unmutes: unmutes.length,
    unmute_rate: rate(unmutes.length, autoplays.length),
    unique_viewers: viewers,
    unique_viewers_exact: true,
    avg_watch_time_s: rate(
      plays.reduce((n, v) => n + watchTime(v), 0),
      plays.length,
      2,
    ),
    avg_percent_watched: rate(
      plays.reduce((n, v) => n + buckets(v).filter(Boolean).length, 0),
      plays.length,
      2,
    ),
    cta_clicks: [...cta.entries()].sort((x, y) => x[0] - y[0]).map(([card_index, sessions]) => ({ card_index, sessions })),
    leads: seen.filter((v) => v.lead).length,
    orders: money.length,
    conversion_rate: rate(money.filter((s) => s.session && playedSessions.has(s.session)).length, plays.length),
    revenue,
    startup_time_ms: { p50: startups.length ? nearestRank(startups, 0.5) : null, p95: startups.length ? nearestRank(startups, 0.95) : null },
    rebuffer_ratio: rate(seen.reduce((n, v) => n + (v.stalls ?? []).reduce((m, s) => m + s, 0), 0) / 1000, watchAll),
    errors: seen.reduce((n, v) => n + (v.errors ?? 0), 0),
  };
}

const visitsOf = (video: "v" | "w") => visits.filter((v) => v.video === video);
const salesOf = (video: "v" | "w") => sales.filter((s) => s.video === video);
const spendOf = (video: "v" | "w", keep: (s: (typeof spend)[number]) => boolean = () => true) =>
  spend.filter((s) => s.video === video && s.date >= FROM && s.date <= TODAY && keep(s)).map((s) => ({ currency: s.currency, amount: s.amount }));

// ---- driving it through the real paths ----

const ids: Record<"v" | "w", { id: number; code: string }> = {} as never;

async function collect(visit: Visit, events: Record<string, unknown>[]) {
  const res = await t.app.handle(
    new Request("http://127.0.0.1:8080/v1/collect", {
      method: "POST",
      headers: { "content-type": "text/plain", "user-agent": visit.client.ua, "x-forwarded-for": visit.ip[0] },
      body: JSON.stringify({ workspace_code: a.code, video_code: ids[visit.video].code, session_id: visit.session, device_id: visit.device, events }),
    }),
  );
  expect(res.status).toBe(200);
}

/** A visit as its player reports it: one batch per page view, the watching in the last one. */
async function play(visit: Visit, n: number) {
  let at = NOW - 40 * 60_000 + n * 60_000;
  const ev = (type: string, fields: Record<string, unknown> = {}) => ({ type, t: (at += 100), video_time: 0, ...fields });
  for (let i = 1; i < visit.loads; i++) await collect(visit, [ev("load", { page_host: "shop.example", page_path: "/offer", ...visit.page })]);
  const events: Record<string, unknown>[] = [];
  if (visit.loads > 0) events.push(ev("load", { page_host: "shop.example", page_path: "/offer", ...visit.page }));
  if (visit.autoplay) events.push(ev("autoplay"));
  if (visit.play) events.push(ev("play"));
  for (const ms of visit.startups ?? []) events.push(ev("startup", { ms }));
  if (visit.unmute) events.push(ev("unmute", { video_time: 3 }));
  for (const [from, to] of visit.ranges) events.push(ev("watched", { from_s: from, to_s: to, duration_s: DURATION }));
  for (const i of visit.cta ?? []) events.push(ev("cta_click", { card_index: i, url: "https://shop.example/buy" }));
  if (visit.lead) events.push(ev("lead_form_submitted", { email: `${visit.session}@example.com` }));
  for (const ms of visit.stalls ?? []) events.push(ev("rebuffer", { ms }));
  for (let i = 0; i < (visit.errors ?? 0); i++) events.push(ev("error", { message: "hls networkError", fatal: false }));
  events.push(ev("pause"));
  await collect(visit, events);
}

async function sell(sale: Sale) {
  const video_code = ids[sale.video].code;
  const s2s = async () => {
    const res = await t.call("POST", "/api/v1/conversions", {
      token: a.token,
      body: {
        video_code,
        conversion_id: sale.order,
        conversion_value: sale.value,
        ...(sale.currency ? { conversion_currency: sale.currency } : {}),
        ...(sale.session ? { session_code: sale.session } : {}),
        ...(sale.test ? { is_test: true } : {}),
        conversion_data: { integration: "shopify" },
      },
    });
    expect(res.status).toBe(201);
  };
  const browser = async () => {
    const res = await t.call("POST", "/v1/conversion", {
      body: {
        workspace_code: a.code,
        integration: "shopify",
        order_id: sale.order,
        value: sale.value,
        currency: sale.currency,
        session_id: sale.session,
        video_code,
      },
      headers: { "X-Forwarded-For": "192.0.2.10" },
    });
    expect(res.status).toBe(200);
  };
  if (sale.via !== "s2s") await browser();
  if (sale.via !== "browser") await s2s();
}

const get = (path: string, ws: TestWorkspace = a) => t.call("GET", `/api/v1${path}`, { token: ws.token });

beforeAll(async () => {
  t = await testApp({ clock: { now: () => NOW }, config: { trustProxy: true } });
  a = await t.workspace();
  b = await t.workspace();
  for (const key of ["v", "w"] as const) {
    const res = await t.call("POST", "/api/v1/videos", { token: a.token, body: { title: `seller ${key}` } });
    ids[key] = { id: res.body.video.id, code: res.body.video.code };
  }
  await t.call("PUT", `/admin/v1/workspaces/${a.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
  for (const [n, visit] of visits.entries()) await play(visit, n);
  for (const sale of sales) await sell(sale);
  for (const s of spend) {
    const res = await t.call("POST", `/api/v1/videos/${ids[s.video].id}/ad-spend`, {
      token: a.token,
      body: { date: s.date, source: s.source, currency: s.currency, amount: s.amount },
    });
    expect(res.status).toBe(201);
  }
}, 120_000);

describe("seller overview", () => {
  test("every figure equals the definitions applied to the scenario", async () => {
    for (const key of ["v", "w"] as const) {
      const res = await get(`/videos/${ids[key].id}/analytics/overview?from=${FROM}&to=${TODAY}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        video_id: ids[key].id,
        video_code: ids[key].code,
        from: FROM,
        to: TODAY,
        tz: "UTC",
        overview: expected(visitsOf(key), salesOf(key), spendOf(key)),
      });
    }
  });

  test("the scenario exercises what it claims: an unmuted autoplay is a play, a muted one is not; reloads are one impression", async () => {
    const o = (await get(`/videos/${ids.v.id}/analytics/overview?from=${FROM}&to=${TODAY}`)).body.overview;
    expect(o.autoplays).toBe(3);
    expect(o.unmutes).toBe(1);
    expect(o.plays).toBe(5);
    expect(o.impressions).toBe(8);
    expect(o.revenue.map((c: { currency: string | null }) => c.currency)).toEqual(["USD", "EUR", null]);
    // USD: o-1 100 + o-4 30 (no session) + o-6 70 (browser row, then verified) + o-7 20; o-3 is a test, o-5 never verified.
    expect(o.revenue[0]).toMatchObject({ orders: 4, revenue: 220, ad_spend: 60, roas: 3.67 });
  });

  test("masks built from the watched ranges give the figures the stored masks give", async () => {
    const scope = { workspaceId: a.id, videoIds: [ids.v.id], start: `${FROM} 00:00:00`, end: "2026-11-21 00:00:00", tz: "UTC" };
    const durations = new Map([[ids.v.id, DURATION]]);
    const [stored] = await readMetrics(t.deps.ch, scope, { kind: "video" }, { durations, storedMasks: true });
    const [built] = await readMetrics(t.deps.ch, scope, { kind: "video" }, { durations, storedMasks: false });
    expect(Number(stored!.buckets_played)).toBeGreaterThan(0);
    expect(built).toEqual(stored!);
  });

  test("docs/api.md's summary counts the same true plays", async () => {
    const res = await get(`/videos/${ids.v.id}/analytics/summary?from=${FROM}&to=${TODAY}`);
    const plays = visitsOf("v").filter(played);
    expect(res.body.summary.plays).toBe(plays.length);
    expect(res.body.summary.unique_plays).toBe(new Set(plays.map((v) => v.device)).size);
    expect(res.body.summary.avg_watch_time_s).toBe(r(plays.reduce((n, v) => n + watchTime(v), 0) / plays.length, 2));
  });

  test("the workspace overview lists every video with the same metrics, ranked", async () => {
    const res = await get(`/analytics/overview?from=${FROM}&to=${TODAY}&sort=play_rate`);
    expect(res.status).toBe(200);
    const mine = (["v", "w"] as const).map((key) => ({
      video_id: ids[key].id,
      video_code: ids[key].code,
      title: `seller ${key}`,
      ...expected(visitsOf(key), salesOf(key), spendOf(key)),
    }));
    mine.sort((x, y) => y.play_rate! - x.play_rate!);
    expect(res.body).toEqual({
      from: FROM,
      to: TODAY,
      tz: "UTC",
      sort: "play_rate",
      order: "desc",
      currency: "USD",
      page: 1,
      per_page: 50,
      total: 2,
      videos: mine,
    });
    const byRpv = await get(`/analytics/overview?from=${FROM}&to=${TODAY}&order=asc&per_page=1&page=2`);
    const rpv = (key: "v" | "w") => mine.find((m) => m.video_id === ids[key].id)!.revenue.find((c) => c.currency === "USD")!.rpv!;
    expect(byRpv.body.videos.map((v: { video_id: number }) => v.video_id)).toEqual([rpv("v") > rpv("w") ? ids.v.id : ids.w.id]);
    expect(byRpv.body).toMatchObject({ sort: "rpv", order: "asc", currency: "USD", total: 2, page: 2, per_page: 1 });
    // Another workspace sees only its own (none here).
    expect((await get(`/analytics/overview?from=${FROM}&to=${TODAY}`, b)).body.videos).toEqual([]);
  });
});

describe("breakdowns", () => {
  test("every dimension: each value's figures equal the definitions applied to its visits", async () => {
    for (const [by, dimensionOf] of Object.entries(DIMS)) {
      const res = await get(`/videos/${ids.v.id}/analytics/breakdown?by=${by}&from=${FROM}&to=${TODAY}`);
      expect(res.status).toBe(200);
      const seen = visitsOf("v").filter(shown);
      const values = [...new Set(seen.map(dimensionOf))];
      const rows = values.map((value) => {
        const group = seen.filter((v) => dimensionOf(v) === value);
        const sessions = new Set(group.map((v) => v.session));
        const groupSales = salesOf("v").filter((s) => s.session && sessions.has(s.session));
        const groupSpend = by === "source" ? spendOf("v", (s) => s.source.toLowerCase() === value) : undefined;
        return { value, other: false, ...expected(group, groupSales, groupSpend) };
      });
      rows.sort((x, y) => y.impressions - x.impressions || (x.value ?? "").localeCompare(y.value ?? ""));
      expect({ by, body: res.body }).toEqual({
        by,
        body: { video_id: ids.v.id, video_code: ids.v.code, from: FROM, to: TODAY, tz: "UTC", by, rows },
      });
    }
  });

  test("source: utm_source first, then the referrer host, else direct; ROAS against that source's spend", async () => {
    const rows = (await get(`/videos/${ids.v.id}/analytics/breakdown?by=source&from=${FROM}&to=${TODAY}`)).body.rows;
    const facebook = rows.find((row: { value: string }) => row.value === "facebook");
    expect(facebook.impressions).toBe(2);
    expect(facebook.revenue).toEqual([
      { currency: "USD", orders: 1, revenue: 100, aov: 100, rpv: 50, epc: 50, ad_spend: 50, roas: 2 },
      { currency: "EUR", orders: 1, revenue: 50, aov: 50, rpv: 25, epc: 25, ad_spend: 20, roas: 2.5 },
    ]);
    expect(rows.map((row: { value: string }) => row.value)).toContain("direct");
  });
});

describe("buyers against everyone", () => {
  test("retention per segment equals the curve of its own played sessions", async () => {
    const buyers = new Set(
      salesOf("v")
        .filter((s) => counted(s) && s.session)
        .map((s) => s.session!),
    );
    const curve = (group: Visit[]) =>
      Array.from({ length: 10 }, (_, i) => ({
        bucket_pct: i * 10,
        watch_pct: group.length ? r(group.filter((v) => buckets(v, 10)[i]).length / group.length, 4) : 0,
      }));
    const plays = visitsOf("v").filter(played);
    for (const [segment, group] of [
      ["buyers", plays.filter((v) => buyers.has(v.session))],
      ["non_buyers", plays.filter((v) => !buyers.has(v.session))],
      ["all", plays],
      [undefined, plays],
    ] as const) {
      const res = await get(`/videos/${ids.v.id}/analytics/retention?from=${FROM}&to=${TODAY}&buckets=10${segment ? `&segment=${segment}` : ""}`);
      expect(res.status).toBe(200);
      expect({ segment, body: res.body }).toEqual({ segment, body: { video_id: ids.v.id, buckets: curve(group) } });
    }
    // The scenario has buyers who played and ones who did not.
    expect(plays.filter((v) => buyers.has(v.session)).length).toBe(4);
    expect(plays.filter((v) => !buyers.has(v.session)).length).toBe(1);
  });
});

describe("ad spend", () => {
  test("upsert per date and source, Idempotency-Key replays, list and delete", async () => {
    const path = `/api/v1/videos/${ids.w.id}/ad-spend`;
    const body = { date: "2026-11-19", source: " TikTok ", currency: "usd", amount: 12.345 };
    const first = await t.call("POST", path, { token: a.token, body, headers: { "Idempotency-Key": "spend-1" } });
    expect(first.status).toBe(201);
    expect(first.body.ad_spend).toMatchObject({ video_id: ids.w.id, date: "2026-11-19", source: "tiktok", currency: "USD", amount: 12.35 });
    const replay = await t.call("POST", path, { token: a.token, body, headers: { "Idempotency-Key": "spend-1" } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotency-replayed")).toBe("true");
    expect(replay.body).toEqual(first.body);
    const replaced = await t.call("POST", path, { token: a.token, body: { ...body, amount: 20 } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.ad_spend).toMatchObject({ id: first.body.ad_spend.id, amount: 20 });
    const list = await t.call("GET", `${path}?from=2026-11-19&to=${TODAY}`, { token: a.token });
    expect(list.body.ad_spend.map((s: { source: string; amount: number }) => [s.source, s.amount])).toEqual([
      ["google.com", 8],
      ["tiktok", 20],
    ]);
    expect((await t.call("DELETE", `${path}/${first.body.ad_spend.id}`, { token: a.token })).body).toEqual({ deleted: true });
    expect((await t.call("DELETE", `${path}/${first.body.ad_spend.id}`, { token: a.token })).status).toBe(404);
  });

  test("bad input is 422 and writes nothing; the write needs videos:write", async () => {
    const path = `/api/v1/videos/${ids.w.id}/ad-spend`;
    const good = { date: TODAY, source: "x", currency: "USD", amount: 1 };
    for (const [field, value] of [
      ["date", "2026-02-30"],
      ["date", "yesterday"],
      ["amount", -1],
      ["amount", "ten"],
      ["currency", "US"],
      ["source", ""],
      ["source", "a\u0000b"],
    ] as const) {
      const res = await t.call("POST", path, { token: a.token, body: { ...good, [field]: value } });
      expect({ field, value, status: res.status }).toEqual({ field, value, status: 422 });
      expect(Object.keys(res.body.errors)).toEqual([field]);
    }
    const list = await t.call("GET", `${path}?from=${FROM}&to=${TODAY}`, { token: a.token });
    expect(list.body.ad_spend.map((s: { source: string }) => s.source)).toEqual(["google.com"]);
    const reader = await a.mint(["analytics:read"]);
    const refused = await t.call("POST", path, { token: reader.secret, body: good });
    expect(refused.status).toBe(403);
    expect(refused.body.error.required).toBe("videos:write");
  });
});

describe("validation and isolation", () => {
  test("invalid by, segment, dates, sort and ranges are 422 in docs/api.md's shape", async () => {
    const v = ids.v.id;
    for (const [path, field] of [
      [`/videos/${v}/analytics/breakdown?by=planet`, "by"],
      [`/videos/${v}/analytics/breakdown`, "by"],
      [`/videos/${v}/analytics/retention?segment=vips`, "segment"],
      [`/videos/${v}/analytics/overview?from=2026-02-30`, "from"],
      [`/videos/${v}/analytics/overview?from=2026-11-12&to=2026-11-10`, "to"],
      [`/videos/${v}/analytics/breakdown?by=device&tz=Mars/Olympus`, "tz"],
      [`/analytics/overview?sort=luck`, "sort"],
      [`/analytics/overview?order=sideways`, "order"],
      [`/analytics/overview?currency=dollars`, "currency"],
      [`/analytics/overview?per_page=201`, "per_page"],
      [`/videos/${v}/ad-spend?from=nope`, "from"],
    ] as const) {
      const res = await get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 422 });
      expect(res.body).toEqual({ message: expect.any(String), errors: { [field]: [expect.any(String)] } });
    }
  });

  test("another workspace's video is 404 on every new route", async () => {
    for (const path of [
      `/videos/${ids.v.id}/analytics/overview`,
      `/videos/${ids.v.id}/analytics/breakdown?by=source`,
      `/videos/${ids.v.id}/analytics/retention?segment=buyers`,
      `/videos/${ids.v.id}/ad-spend`,
    ]) {
      const res = await get(path, b);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
    }
    const write = await t.call("POST", `/api/v1/videos/${ids.v.id}/ad-spend`, {
      token: b.token,
      body: { date: TODAY, source: "x", currency: "USD", amount: 1 },
    });
    expect(write.status).toBe(404);
    const del = await t.call("DELETE", `/api/v1/videos/${ids.v.id}/ad-spend/1`, { token: b.token });
    expect(del.status).toBe(404);
  });
});

describe("exports", () => {
  async function exportFile(body: Record<string, unknown>) {
    const created = await t.call("POST", "/api/v1/exports", { token: a.token, body: { video_ids: [ids.v.id, ids.w.id], from: FROM, to: TODAY, ...body } });
    expect(created.status).toBe(202);
    while (await processNextExport(t.deps));
    const file = await get(`/exports/${created.body.export_id}/download`);
    expect(file.status).toBe(200);
    return file;
  }

  test("type=overview: one row per video and currency, the overview's figures", async () => {
    const json = (await exportFile({ type: "overview", format: "json" })).body as Record<string, unknown>[];
    const rows = (["v", "w"] as const).flatMap((key) => {
      const m = expected(visitsOf(key), salesOf(key), spendOf(key));
      return m.revenue.map((c) => ({
        video_id: ids[key].id,
        currency: c.currency,
        plays: m.plays,
        play_rate: m.play_rate,
        cta_clicks: m.cta_clicks.reduce((n, x) => n + x.sessions, 0),
        startup_time_ms_p95: m.startup_time_ms.p95,
        currency_orders: c.orders,
        revenue: c.revenue,
        rpv: c.rpv,
        roas: c.roas,
      }));
    });
    expect(json.map((row) => Object.fromEntries(Object.keys(rows[0]!).map((k) => [k, row[k]])))).toEqual(rows);
    const csv = (await exportFile({ type: "overview", format: "csv" })).text.trim().split("\r\n");
    expect(csv[0]!.split(",").slice(0, 8)).toEqual(["video_id", "video_code", "from", "to", "tz", "impressions", "plays", "play_rate"]);
    expect(csv).toHaveLength(rows.length + 1);
  });

  test("type=breakdown needs by; its rows are the breakdown's", async () => {
    const missing = await t.call("POST", "/api/v1/exports", {
      token: a.token,
      body: { video_ids: [ids.v.id], from: TODAY, to: TODAY, type: "breakdown", format: "csv" },
    });
    expect(missing.status).toBe(422);
    expect(Object.keys(missing.body.errors)).toEqual(["by"]);
    const wrong = await t.call("POST", "/api/v1/exports", {
      token: a.token,
      body: { video_ids: [ids.v.id], from: TODAY, to: TODAY, type: "breakdown", format: "csv", by: "planet" },
    });
    expect(wrong.status).toBe(422);
    const json = (await exportFile({ type: "breakdown", format: "json", by: "device" })).body as Record<string, unknown>[];
    const devices = json.filter((row) => row.video_id === ids.v.id);
    const seen = visitsOf("v").filter(shown);
    for (const device of new Set(seen.map((v) => v.client.device))) {
      const group = seen.filter((v) => v.client.device === device);
      const rowsOf = devices.filter((row) => row.value === device);
      expect(rowsOf.length).toBeGreaterThan(0);
      expect(rowsOf.every((row) => row.impressions === group.length && row.by === "device" && row.other === "false")).toBe(true);
    }
  });
});
