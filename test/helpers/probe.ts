/**
 * The bad-input probe of issue 14, kept: every route of the app (read from
 * `app.routes`, so new routes are covered), each fed the issue's cases in its
 * body fields, query parameters, path parameters and headers, through
 * `app.handle`. Each answer is classified (5xx, outside docs/api.md's shapes, no
 * answer in time) and after every case `/health` and a database-backed read
 * must still answer. `fuzz.test.ts` reuses the pieces with generated values.
 */
import fc from "fast-check";
import { ADMIN_KEY, BASE, type TestApp, type TestWorkspace } from "./app.ts";
import { fieldsOf, HOSTILE_VALUES, nested, validOf, withValue } from "./schema-arbitrary.ts";
import { evenSplit } from "./split-viewers.ts";

export interface RouteInfo {
  method: string;
  path: string;
  body?: Record<string | symbol, unknown>;
  query?: Record<string | symbol, unknown>;
}

/** The routes worth probing: everything but the docs pages. */
export function routesOf(app: TestApp["app"]): RouteInfo[] {
  const routes = (app as unknown as { routes: { method: string; path: string; hooks?: { body?: unknown; query?: unknown } }[] }).routes;
  return routes
    .filter((r) => !r.path.startsWith("/api/v1/docs") && r.path !== "/api/v1/openapi.json")
    .map((r) => ({
      method: r.method,
      path: r.path,
      body: schemaOf(r.hooks?.body),
      query: schemaOf(r.hooks?.query),
    }));
}

function schemaOf(hook: unknown): Record<string | symbol, unknown> | undefined {
  if (!hook || typeof hook !== "object") return undefined;
  const schema = (hook as { schema?: unknown }).schema ?? hook;
  return typeof schema === "object" ? (schema as Record<string | symbol, unknown>) : undefined;
}

/** Files, not API answers: a 404 there is plain text. */
const FILE_PREFIXES = ["/cdn/", "/media/", "/dashboard", "/t.js"];

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** True when an answer is in one of docs/api.md "Errors" shapes (or is not an error). */
export function inSpecShape(status: number, body: unknown, path: string): boolean {
  if (status < 400) return true;
  if (FILE_PREFIXES.some((p) => path.startsWith(p))) return status < 500;
  if (!isObject(body)) return false;
  const eventsHost = path.startsWith("/v1/");
  const error = body.error;
  if (isObject(error)) return !eventsHost && typeof error.code === "string" && typeof error.message === "string";
  if (typeof error === "string") {
    if (eventsHost) return typeof body.message === "string" || status === 429;
    return status === 502 && body.delivered === false; // the webhook test's failed delivery
  }
  if (typeof body.message !== "string") return false;
  if (status === 422 && isObject(body.errors)) return Object.values(body.errors).every((v) => Array.isArray(v) && v.every((s) => typeof s === "string"));
  return status === 404 && Object.keys(body).length === 1; // "No query results for model [...]"
}

export interface Fixtures {
  ws: TestWorkspace;
  videoId: number;
  videoCode: string;
  /** Deleted by the DELETE routes, so the others keep theirs. */
  doomedVideoId: number;
  webhookId: number;
  uploadId: string;
  exportId: string;
  versionId: number;
  spareTokenId: number;
  splitTestId: number;
  splitTestCode: string;
  /** The split test's second variation. */
  otherVideoId: number;
  adSpendId: number;
}

export async function makeFixtures(t: TestApp): Promise<Fixtures> {
  const ws = await t.workspace();
  const video = await t.createVideo(ws, { title: "probe" });
  const doomed = await t.createVideo(ws, { title: "doomed" });
  const call = (method: string, path: string, body?: unknown) => t.call(method, path, { token: ws.token, body });
  await call("POST", "/api/v1/playlists", { video_id: video.id, items: [{ video_code: "a", title: "A" }] });
  await t.call("POST", `/admin/v1/workspaces/${ws.id}/custom-metrics`, { token: ADMIN_KEY, body: { name: "signup" } });
  await t.call("PUT", `/admin/v1/workspaces/${ws.id}/integrations/shopify`, { token: ADMIN_KEY, body: { browser_fallback: true } });
  const webhook = await call("POST", "/api/v1/webhooks", { name: "probe", url: "http://127.0.0.1:9/hook", events: ["video.created"] });
  const upload = await call("POST", `/api/v1/videos/${video.id}/upload/init`, { filename: "a.mp4", size: 100, mime_type: "video/mp4" });
  const exported = await call("POST", "/api/v1/exports", { video_ids: [video.id], from: "2026-01-01", to: "2026-01-02", format: "csv", type: "events" });
  const deployed = await call("POST", `/api/v1/videos/${video.id}/deploy`, { _version_label: "probe" });
  const spare = await ws.mint(["videos:read"]);
  const other = await t.createVideo(ws, { title: "variation" });
  const variations = evenSplit(video.id, other.id);
  const splitTest = await call("POST", "/api/v1/split-tests", { name: "probe", variations, goal: "conversion" });
  const spend = await call("POST", `/api/v1/videos/${video.id}/ad-spend`, { date: "2026-01-01", source: "probe", currency: "USD", amount: 1 });
  return {
    ws,
    videoId: video.id,
    videoCode: video.code,
    doomedVideoId: doomed.id,
    webhookId: webhook.body?.webhook?.id ?? 1,
    uploadId: upload.body?.upload_id ?? "flup_0",
    exportId: exported.body?.export_id ?? "flex_0",
    versionId: deployed.body?.version_id ?? 1,
    spareTokenId: spare.id,
    splitTestId: splitTest.body?.split_test?.id ?? 1,
    splitTestCode: splitTest.body?.split_test?.code ?? "none",
    otherVideoId: other.id,
    adSpendId: spend.body?.ad_spend?.id ?? 1,
  };
}

/** The path with its parameters filled from the fixtures (or with `override` for every parameter). */
export function fillPath(route: RouteInfo, f: Fixtures, override?: string): string {
  return route.path.replace(/:(\w+)|\*/g, (match, name: string | undefined) => {
    if (override !== undefined) return override;
    if (match === "*") return "p/none.js";
    switch (name) {
      case "video":
        if (route.path.startsWith("/api/v1/playlists/")) return "a";
        return String(route.method === "DELETE" && route.path === "/api/v1/videos/:video" ? f.doomedVideoId : f.videoId);
      case "playlist":
        return String(f.videoId);
      case "webhook":
        return String(f.webhookId);
      case "upload":
        return f.uploadId;
      case "export":
        return f.exportId;
      case "version":
        return String(f.versionId);
      case "key":
        return "new_lead";
      case "integration":
        return "shopify";
      case "file":
        return "none.js";
      case "id":
        if (route.path.startsWith("/admin/v1/tokens")) return String(f.spareTokenId);
        if (route.path.startsWith("/admin/")) return String(f.ws.id);
        if (route.path.startsWith("/api/v1/split-tests/")) return String(f.splitTestId);
        if (route.path.includes("/ad-spend/")) return String(f.adSpendId);
        return "1";
      default:
        return "1";
    }
  });
}

export interface ProbeRequest {
  route: RouteInfo;
  label: string;
  url: string;
  headers: Record<string, string>;
  body?: string | ReadableStream<Uint8Array>;
}

export function headersFor(route: RouteInfo, f: Fixtures): Record<string, string> {
  const token = route.path.startsWith("/admin/") ? ADMIN_KEY : f.ws.token;
  return { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "X-Forwarded-For": "203.0.113.7" };
}

/** A valid body for the route (deterministic), to which one field at a time is made hostile. */
export function baseBody(route: RouteInfo, f: Fixtures): unknown {
  if (!route.body) return undefined;
  const [sample] = fc.sample(validOf(route.body as never), { seed: 14, numRuns: 1 });
  const body = { ...(sample as Record<string, unknown>) };
  // Values that make a valid request get past lookups, so a hostile field reaches the deepest code.
  const known: Record<string, unknown> = {
    workspace_code: f.ws.code,
    video_code: f.videoCode,
    video_id: f.videoId,
    video_ids: [f.videoId],
    integration: "shopify",
    event: route.path.startsWith("/api/v1/") ? "new_lead" : "signup",
    url: "https://example.com/hook",
    target_url: "https://example.com/hook",
    events: route.path === "/v1/collect" ? [{ type: "play" }] : ["video.created"],
    scopes: ["videos:read"],
    split_test: f.splitTestCode,
    currency: "USD",
    variations: evenSplit(f.videoId, f.otherVideoId),
  };
  for (const [key, value] of Object.entries(known)) if (key in body || (route.body.required as string[] | undefined)?.includes(key)) body[key] = value;
  return body;
}

/** The route's required query parameters with valid values (known ones from the fixtures), so one hostile parameter reaches the route's code. */
export function baseQuery(route: RouteInfo, f: Fixtures): Record<string, string> {
  const required = (route.query?.required as string[] | undefined) ?? [];
  if (!route.query || required.length === 0) return {};
  const [sample] = fc.sample(validOf(route.query as never), { seed: 14, numRuns: 1 });
  const known: Record<string, string> = { workspace_code: f.ws.code, video_code: f.videoCode, by: "source" };
  return Object.fromEntries(required.map((name) => [name, known[name] ?? String((sample as Record<string, unknown>)[name])]));
}

/** The issue's cases for one route: each hostile value in each body field, query parameter and path parameter, plus whole-body and header cases. */
export function casesOf(route: RouteInfo, f: Fixtures): ProbeRequest[] {
  const headers = headersFor(route, f);
  const query = baseQuery(route, f);
  const path = `${BASE}${fillPath(route, f)}`;
  // Every case but the query's own carries the required query parameters.
  const withQuery = (to: string, extra?: string) => {
    const search = [new URLSearchParams(query).toString(), extra].filter(Boolean).join("&");
    return search ? `${to}?${search}` : to;
  };
  const url = withQuery(path);
  const out: ProbeRequest[] = [];
  const hasBody = !["GET", "HEAD", "OPTIONS"].includes(route.method);
  const base = baseBody(route, f);
  const json = (value: unknown) => JSON.stringify(value);
  if (route.body) {
    for (const field of fieldsOf(route.body as never)) {
      for (const [i, value] of HOSTILE_VALUES.entries()) {
        out.push({ route, label: `body.${field.path.join(".")}=#${i}`, url, headers, body: json(withValue(base, field.path, value)) });
      }
    }
  }
  if (hasBody) {
    out.push({ route, label: "body nested 10,000 deep", url, headers, body: json(nested(10_000)) });
    out.push({ route, label: "body field nested 10,000 deep", url, headers, body: json({ ...(base as object), style_options: { zz: nested(5_000) } }) });
    out.push({ route, label: "body over 1 MiB", url, headers, body: json({ ...(base as object), pad: "x".repeat(1_100_000) }) });
    out.push({ route, label: "body not JSON", url, headers, body: "{not json" });
    for (const value of [true, 0, "x", [], null]) out.push({ route, label: `body ${json(value)}`, url, headers, body: json(value) });
    out.push({ route, label: "text/plain body", url, headers: { ...headers, "Content-Type": "text/plain" }, body: json(base ?? {}) });
  }
  const params = route.query?.properties as Record<string, unknown> | undefined;
  for (const name of Object.keys(params ?? {})) {
    const others = new URLSearchParams(Object.entries(query).filter(([key]) => key !== name)).toString();
    for (const raw of ["%00", "a%00b", "%ED%A0%80", "99999999999999999999", "-1", "9999-12-31", "1e308", "0000-01-01"]) {
      out.push({ route, label: `query ${name}=${raw}`, url: `${path}?${others ? `${others}&` : ""}${name}=${raw}`, headers });
    }
  }
  if (route.path.includes(":")) {
    for (const raw of ["%00", "99999999999999999999", "-1", "%ED%A0%80", "9223372036854775808", "x".repeat(2000)]) {
      out.push({
        route,
        label: `path ${raw.slice(0, 24)}`,
        url: withQuery(`${BASE}${fillPath(route, f, raw)}`),
        headers,
        body: hasBody ? json(base ?? {}) : undefined,
      });
    }
  }
  const oddHeaders: [string, Record<string, string>][] = [
    ["Authorization without Bearer", { ...headers, Authorization: headers.Authorization!.slice("Bearer ".length) }],
    ["Idempotency-Key of 1000 characters", { ...headers, "Idempotency-Key": "k".repeat(1000) }],
    ["Idempotency-Key of odd characters", { ...headers, "Idempotency-Key": "ÿ þ key" }],
    ["X-Forwarded-For of 10,000 characters", { ...headers, "X-Forwarded-For": "1".repeat(10_000) }],
    ["Upload-Offset past 2^63", { ...headers, "Upload-Offset": "99999999999999999999", "Content-Type": "application/offset+octet-stream" }],
    ["Upload-Offset negative", { ...headers, "Upload-Offset": "-1", "Content-Type": "application/offset+octet-stream" }],
    ["Content-Type charset utf-16", { ...headers, "Content-Type": "application/json; charset=utf-16" }],
  ];
  for (const [label, h] of oddHeaders) out.push({ route, label, url, headers: h, body: hasBody ? json(base ?? {}) : undefined });
  out.push({ route, label: "URL of 100 KB", url: withQuery(path, `q=${"a".repeat(100_000)}`), headers });
  return out;
}

export type Outcome = "ok" | "5xx" | "off-shape" | "no answer" | "not alive";

export interface ProbeResult {
  request: ProbeRequest;
  outcome: Outcome;
  status?: number;
  text?: string;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T | "timeout"> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([promise, new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), ms)))]).finally(() => clearTimeout(timer));
}

/** Sends one request; `answerMs` is how long an answer may take. */
export async function send(t: TestApp, request: ProbeRequest, answerMs: number): Promise<ProbeResult> {
  const response = await within(
    t.app
      .handle(new Request(request.url, { method: request.route.method, headers: request.headers, body: request.body }))
      .then(async (r) => ({ status: r.status, text: await r.text() })),
    answerMs,
  ).catch((error) => ({ status: 599, text: String(error) }));
  if (response === "timeout") return { request, outcome: "no answer" };
  const { status, text } = response;
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  const path = new URL(request.url).pathname;
  const outcome: Outcome = status >= 500 && status !== 502 ? "5xx" : inSpecShape(status, body, path) ? "ok" : "off-shape";
  return { request, outcome, status, text: text.slice(0, 300) };
}

/** `/health` and a database-backed read answer within `ms`. */
export async function alive(t: TestApp, f: Fixtures, ms = 5_000): Promise<boolean> {
  const health = await within(t.app.handle(new Request(`${BASE}/health`)), ms);
  if (health === "timeout" || health.status !== 200) return false;
  const read = await within(t.app.handle(new Request(`${BASE}/api/v1/folders`, { headers: { Authorization: `Bearer ${f.ws.token}` } })), ms);
  return read !== "timeout" && read.status === 200;
}

export interface ProbeSummary {
  routes: number;
  requests: number;
  counts: Record<Outcome, number>;
  failures: ProbeResult[];
  ms: number;
}

/**
 * Runs every case of every route; a case whose aftermath is a dead service counts as "not alive".
 * Stops after `maxFailures` failures (a stalled service would otherwise cost `answerMs` per case).
 */
export async function probe(t: TestApp, f: Fixtures, routes: RouteInfo[], answerMs = 15_000, maxFailures = 200): Promise<ProbeSummary> {
  const started = performance.now();
  const counts: Record<Outcome, number> = { ok: 0, "5xx": 0, "off-shape": 0, "no answer": 0, "not alive": 0 };
  const failures: ProbeResult[] = [];
  let requests = 0;
  for (const route of routes) {
    for (const request of casesOf(route, f)) {
      if (failures.length >= maxFailures) break;
      requests++;
      const result = await send(t, request, answerMs);
      if (result.outcome === "ok" && !(await alive(t, f, Math.min(answerMs, 5_000)))) result.outcome = "not alive";
      counts[result.outcome]++;
      if (result.outcome !== "ok") failures.push(result);
    }
  }
  return { routes: routes.length, requests, counts, failures, ms: performance.now() - started };
}
