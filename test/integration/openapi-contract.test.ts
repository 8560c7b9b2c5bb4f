/**
 * The OpenAPI description is a contract a generator can use (docs/api.md, intro):
 * it is valid OpenAPI 3 whose references all resolve, every operation documents its
 * success body and its errors in the shapes of docs/api.md "Errors", and every
 * documented operation, called on the real app, answers a status it documents with
 * a body its schema for that status accepts.
 *
 * Operations exercised only partly (their other documented statuses are checked
 * for shape wherever they are provoked, and for presence below):
 * - `GET /api/v1/{platform}/me`: no 404 `{error: "unknown_workspace"}`; it needs the
 *   token's workspace to be gone, and no route deletes a workspace.
 * - `GET /api/v1/{platform}/triggers/{key}/sample`: no 422; only a key over 16,384
 *   characters is refused, and the URL limit (414) answers first.
 * - `POST /api/v1/uploads/{upload}` with `X-HTTP-Method-Override: HEAD`: its answer
 *   has no body (the offset travels in headers), so only its status is checked.
 * - 409 (an Idempotency-Key still running, a write race), 429, 500, 503 and 507 are
 *   not provoked: they need a rate limit spent, a failure or a full disk.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import SwaggerParser from "@apidevtools/swagger-parser";
import Ajv2020, { type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { FormatRegistry } from "@sinclair/typebox";
import { ADMIN_KEY, testApp, UNLIMITED, type TestApp, type TestResponse, type TestVideo, type TestWorkspace } from "../helpers/app.ts";
import { startReceiver, type Receiver } from "../helpers/receiver.ts";
import { clip } from "../helpers/media.ts";
import { loadConfig } from "../../server/config.ts";
import { processNextExport } from "../../server/workers/export-builder.ts";
import { evenSplit } from "../helpers/split-viewers.ts";
import { fromBase32, hotp, stepAt } from "../../server/domains/accounts/totp.ts";

type Operation = {
  security?: unknown[];
  requestBody?: { content?: Record<string, unknown> };
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, object> } };

const METHODS = ["get", "post", "put", "patch", "delete"];
const HUGE = 999_999_999;
const LONG = "x".repeat(1025);
const base = loadConfig({});
const METRICS_TOKEN = "mt_contract";

let t: TestApp;
let doc: Doc;
let resolved: Doc;
let ws: TestWorkspace;
let denied: string;
let rx: Receiver;
let video: TestVideo;
let other: TestVideo;

beforeAll(async () => {
  const unlimited = { perIpPerMinute: 1_000_000, perWorkspacePerMinute: 1_000_000, browserConversionPerIpPerMinute: 1_000_000 };
  t = await testApp({
    fixturePlayer: true,
    config: { ...UNLIMITED, webhookAllowPrivate: true, eventLimits: { ...base.eventLimits, ...unlimited }, metricsToken: METRICS_TOKEN },
  });
  doc = (await t.call("GET", "/api/v1/openapi.json")).body;
  resolved = (await SwaggerParser.dereference(structuredClone(doc) as never)) as unknown as Doc;
  ws = await t.workspace();
  // No route needs conversions:read (docs/api.md "Authentication"): this token is refused by every scoped route.
  denied = (await ws.mint(["conversions:read"])).secret;
  rx = startReceiver();
  video = await t.createVideo(ws, { title: "Contract" });
  other = await t.createVideo(ws, { title: "Variation" });
}, 120_000);

afterAll(async () => {
  await rx?.stop();
});

const operations = () =>
  Object.entries(resolved.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((method) => ({ key: `${method.toUpperCase()} ${path}`, path, method, operation: item[method]! })),
  );
/** A route that takes a token or the admin key: every route but the browser ones (`security: []`). */
const needsToken = (op: Operation) => op.security === undefined || op.security.length > 0;
const isScoped = (path: string) => path.startsWith("/api/v1/") || path === "/v1/event";
const takesJson = (op: Operation) => op.requestBody?.content?.["application/json"] !== undefined;

// ---- the answers' check

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
// The server's own formats (text, iso-date, the settings' colours and selectors, ...), checked as the server checks them.
for (const [name, check] of FormatRegistry.Entries()) if (!ajv.formats[name]) ajv.addFormat(name, { validate: (value: string) => check(value) });
const compiled = new WeakMap<object, ValidateFunction>();
const validatorOf = (schema: object) => compiled.get(schema) ?? compiled.set(schema, ajv.compile(schema)).get(schema)!;

/** Operation key → statuses it answered in this file. */
const seen = new Map<string, Set<number>>();

/** Why `res` breaks the description of `key`, or undefined. */
function breach(key: string, res: TestResponse, bodyless = false): string | undefined {
  const [method, path] = key.split(" ") as [string, string];
  const operation = resolved.paths[path]?.[method.toLowerCase()];
  if (!operation) return `${key} is not in the description`;
  const documented = operation.responses[String(res.status)];
  if (!documented) return `${key} answered ${res.status}, which it does not document: ${res.text.slice(0, 300)}`;
  if (bodyless || !documented.content) return res.text === "" ? undefined : `${key} ${res.status} documents no body but sent ${res.text.slice(0, 200)}`;
  const type = (res.headers.get("content-type") ?? "").split(";")[0]!.trim();
  const media = documented.content[type];
  if (!media) return `${key} ${res.status} sent ${type || "no content type"}; documented: ${Object.keys(documented.content).join(", ")}`;
  const validate = validatorOf(media.schema);
  const value = type === "application/json" ? JSON.parse(res.text) : res.text;
  if (validate(value)) return undefined;
  return `${key} ${res.status} body does not match its schema: ${ajv.errorsText(validate.errors, { separator: "; " }).slice(0, 1500)}\nbody: ${res.text.slice(0, 500)}`;
}

/** Awaits the answer, expects `status`, and checks it against the description. */
async function answers(key: string, status: number, pending: Promise<TestResponse>, opts: { bodyless?: boolean } = {}): Promise<TestResponse> {
  const res = await pending;
  expect({ key, status: res.status }, res.text.slice(0, 500)).toEqual({ key, status });
  expect(breach(key, res, opts.bodyless)).toBeUndefined();
  let statuses = seen.get(key);
  if (!statuses) seen.set(key, (statuses = new Set()));
  statuses.add(res.status);
  return res;
}

const api = (method: string, path: string, opts: { body?: unknown; raw?: BodyInit; headers?: Record<string, string>; token?: string } = {}) =>
  t.call(method, `/api/v1${path}`, { token: ws.token, ...opts });
const admin = (method: string, path: string, body?: unknown) => t.call(method, `/admin/v1${path}`, { token: ADMIN_KEY, body });
const events = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => t.call(method, path, { body, headers });
const longKey = { "Idempotency-Key": "k".repeat(256) };

describe("the description", () => {
  test("is valid OpenAPI 3 and every $ref resolves", async () => {
    expect(doc.openapi).toMatch(/^3\./);
    await SwaggerParser.validate(structuredClone(doc) as never);
    expect(JSON.stringify(resolved)).not.toContain('"$ref"');
  });

  test('names the error shapes of docs/api.md "Errors" once, as components', () => {
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(["ApiError", "EventsError", "ValidationError", "ModelNotFound", "FlatError"]));
    const accepts = (name: string, body: unknown) => validatorOf(resolved.components.schemas[name]!)(body);
    expect(accepts("ApiError", { error: { code: "NOT_FOUND", message: "Video not found" } })).toBe(true);
    expect(accepts("EventsError", { error: "INVALID_PAYLOAD", message: "Unknown field" })).toBe(true);
    expect(accepts("ValidationError", { message: "The given data was invalid.", errors: { title: ["required"] } })).toBe(true);
    expect(accepts("ModelNotFound", { message: "No query results for model [Video] 42" })).toBe(true);
    expect(accepts("ApiError", { message: "x" })).toBe(false);
    expect(accepts("ModelNotFound", { message: "The given data was invalid.", errors: {} })).toBe(false);
  });

  test("every operation documents a success body and its errors, each error by reference to a named shape", () => {
    const problems: string[] = [];
    for (const { key, path, method, operation } of operations()) {
      const raw = doc.paths[path]![method]!;
      const statuses = Object.keys(operation.responses).map(Number);
      const success = statuses.filter((s) => s >= 200 && s < 300);
      if (!success.some((s) => Object.values(operation.responses[s]!.content ?? {}).some((m) => m.schema))) problems.push(`${key}: no success body schema`);
      if (!statuses.some((s) => s >= 400)) problems.push(`${key}: no error response`);
      if (needsToken(operation) && !statuses.includes(401)) problems.push(`${key}: takes a token but does not document 401`);
      if (isScoped(path) && !statuses.includes(403)) problems.push(`${key}: needs a scope but does not document 403`);
      for (const status of statuses.filter((s) => s >= 400)) {
        // The webhook test's 502 is its outcome, `{delivered: false, error}`, not an error shape (docs/api.md "Webhook subscriptions").
        if (status === 502) continue;
        const schema = (raw.responses[status] as { content?: Record<string, { schema: { $ref?: string; oneOf?: { $ref?: string }[] } }> }).content?.[
          "application/json"
        ]?.schema;
        const refs = schema?.oneOf ?? [schema];
        if (!refs.every((r) => r?.$ref?.startsWith("#/components/schemas/"))) problems.push(`${key}: ${status} is not a reference to a named error shape`);
      }
    }
    expect(problems).toEqual([]);
    expect(operations().length).toBeGreaterThanOrEqual(89);
  });
});

describe("without a token, or with one lacking the scope", () => {
  test("every operation that takes a token answers 401, and every scoped one 403, as documented", async () => {
    for (const { key, path, method, operation } of operations()) {
      if (!needsToken(operation)) continue;
      const url = path.replace(/\{(\w+)\}/g, (_, name: string) => (name === "upload" ? "flup_00" : name === "export" ? "flex_00" : "1"));
      // A body is parsed before the token is read: send one that parses (the events host's must also validate), so the token decides.
      const body = path === "/v1/event" ? { event: "x" } : method === "get" || method === "delete" ? undefined : {};
      await answers(key, 401, t.call(method.toUpperCase(), url, { body }));
      if (path === "/v1/event") await answers(key, 403, t.call("POST", url, { token: ws.legacyKey, body: { event: "x" } }));
      else if (isScoped(path)) await answers(key, 403, t.call(method.toUpperCase(), url, { token: denied, body }));
    }
  }, 60_000);
});

describe("a body that is not JSON", () => {
  test("is 400 INVALID_PAYLOAD on every operation that takes a JSON body, as documented", async () => {
    for (const { key, path, method, operation } of operations()) {
      if (!takesJson(operation)) continue;
      const url = path.replace(/\{(\w+)\}/g, "1");
      const token = path.startsWith("/admin/") ? ADMIN_KEY : needsToken(operation) ? ws.token : undefined;
      await answers(key, 400, t.call(method.toUpperCase(), url, { token, body: "{not json" }));
    }
  });
});

describe("the operator API", () => {
  test("workspaces, tokens, metrics and integrations", async () => {
    await answers("POST /admin/v1/workspaces", 201, admin("POST", "/workspaces", { name: "Contract" }));
    await answers("POST /admin/v1/workspaces", 422, admin("POST", "/workspaces", { name: "" }));
    await answers("GET /admin/v1/workspaces", 200, admin("GET", "/workspaces"));
    const minted = await answers(
      "POST /admin/v1/workspaces/{id}/tokens",
      201,
      admin("POST", `/workspaces/${ws.id}/tokens`, { name: "spare", scopes: ["videos:read"] }),
    );
    await answers("POST /admin/v1/workspaces/{id}/tokens", 404, admin("POST", `/workspaces/${HUGE}/tokens`, { name: "x", scopes: ["videos:read"] }));
    await answers("POST /admin/v1/workspaces/{id}/tokens", 422, admin("POST", `/workspaces/${ws.id}/tokens`, { name: "x", scopes: ["nope"] }));
    await answers("GET /admin/v1/workspaces/{id}/tokens", 200, admin("GET", `/workspaces/${ws.id}/tokens`));
    await answers("GET /admin/v1/workspaces/{id}/tokens", 404, admin("GET", `/workspaces/${HUGE}/tokens`));
    await answers("DELETE /admin/v1/tokens/{id}", 200, admin("DELETE", `/tokens/${minted.body.token.id}`));
    await answers("DELETE /admin/v1/tokens/{id}", 404, admin("DELETE", `/tokens/${minted.body.token.id}`));
    await answers("POST /admin/v1/workspaces/{id}/custom-metrics", 201, admin("POST", `/workspaces/${ws.id}/custom-metrics`, { name: "signup" }));
    await answers("POST /admin/v1/workspaces/{id}/custom-metrics", 404, admin("POST", `/workspaces/${HUGE}/custom-metrics`, { name: "signup" }));
    await answers("POST /admin/v1/workspaces/{id}/custom-metrics", 422, admin("POST", `/workspaces/${ws.id}/custom-metrics`, { name: "!!!" }));
    await answers("GET /admin/v1/workspaces/{id}/custom-metrics", 200, admin("GET", `/workspaces/${ws.id}/custom-metrics`));
    await answers("GET /admin/v1/workspaces/{id}/custom-metrics", 404, admin("GET", `/workspaces/${HUGE}/custom-metrics`));
    const integration = "PUT /admin/v1/workspaces/{id}/integrations/{integration}";
    await answers(integration, 200, admin("PUT", `/workspaces/${ws.id}/integrations/shopify`, { browser_fallback: true }));
    await answers(integration, 200, admin("PUT", `/workspaces/${ws.id}/integrations/closed`, { browser_fallback: false }));
    await answers(integration, 404, admin("PUT", `/workspaces/${HUGE}/integrations/shopify`, { browser_fallback: true }));
    await answers(integration, 422, admin("PUT", `/workspaces/${ws.id}/integrations/Not%20A%20Name`, { browser_fallback: true }));
    await answers("GET /admin/v1/workspaces/{id}/integrations", 200, admin("GET", `/workspaces/${ws.id}/integrations`));
    await answers("GET /admin/v1/workspaces/{id}/integrations", 404, admin("GET", `/workspaces/${HUGE}/integrations`));
    await answers("GET /admin/v1/processes", 200, admin("GET", "/processes"));
    await answers("GET /admin/v1/ingest/counters", 200, admin("GET", "/ingest/counters"));
    await answers("GET /admin/v1/ingest/counters", 422, admin("GET", "/ingest/counters?from=yesterday"));
    // docs/api.md "The operator API": without the key it is 401, whatever else is wrong with the call.
    await answers("GET /admin/v1/ingest/counters", 401, t.call("GET", "/admin/v1/ingest/counters?from=yesterday"));
    await answers("GET /admin/v1/processes", 200, admin("GET", "/processes"));
    await answers("GET /admin/v1/processes", 401, t.call("GET", "/admin/v1/processes"));
  });

  test("settings of every group", async () => {
    const draft = "POST /admin/v1/workspaces/{id}/videos/{video}/draft";
    const deploy = "POST /admin/v1/workspaces/{id}/videos/{video}/deploy";
    await answers(draft, 200, admin("POST", `/workspaces/${ws.id}/videos/${video.id}/draft`, { pitch_time_options: { enabled: true, time_s: 5 } }));
    await answers(draft, 404, admin("POST", `/workspaces/${HUGE}/videos/${video.id}/draft`, {}));
    await answers(draft, 404, admin("POST", `/workspaces/${ws.id}/videos/${HUGE}/draft`, {}));
    await answers(draft, 422, admin("POST", `/workspaces/${ws.id}/videos/${video.id}/draft`, { style_options: { main_color: "not a colour" } }));
    await answers(deploy, 200, admin("POST", `/workspaces/${ws.id}/videos/${video.id}/deploy`, { pitch_time_options: { enabled: true, time_s: 5 } }));
    await answers(deploy, 404, admin("POST", `/workspaces/${ws.id}/videos/${HUGE}/deploy`, {}));
    await answers(deploy, 422, admin("POST", `/workspaces/${ws.id}/videos/${video.id}/deploy`, { style_options: { main_color: "not a colour" } }));
  }, 60_000);
});

describe("dashboard accounts", () => {
  test("users, sign-in, the session's routes, invites, the team and the audit list", async () => {
    const password = "plum orchard sunrise";
    const email = `contract.${crypto.randomUUID().slice(0, 8)}@shop.example`;
    const users = "POST /admin/v1/users";
    await answers(users, 201, admin("POST", "/users", { email, password, workspace_id: ws.id, role: "owner" }));
    await answers(users, 404, admin("POST", "/users", { email: `x.${email}`, password, workspace_id: HUGE }));
    await answers(users, 422, admin("POST", "/users", { email: `y.${email}`, password: "short" }));
    const signIn = (body: unknown) => t.call("POST", "/account/v1/sign-in", { body });
    await answers("POST /account/v1/sign-in", 401, signIn({ email, password: "not the password" }));
    await answers("POST /account/v1/sign-in", 422, signIn({ email: "", password }));
    const signedIn = await answers("POST /account/v1/sign-in", 200, signIn({ email, password }));
    const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
    const headers = { Cookie: cookie, "X-CSRF-Token": signedIn.body.csrf_token };
    const account = (method: string, path: string, body?: unknown) => t.call(method, `/account/v1${path}`, { body, headers });
    await answers("GET /account/v1/me", 200, account("GET", "/me"));
    await answers("POST /account/v1/workspaces/{id}/api-token", 201, account("POST", `/workspaces/${ws.id}/api-token`));
    await answers("POST /account/v1/workspaces/{id}/api-token", 404, account("POST", `/workspaces/${HUGE}/api-token`));
    const invites = "POST /account/v1/workspaces/{id}/invites";
    const invited = await answers(invites, 201, account("POST", `/workspaces/${ws.id}/invites`, { email: `z.${email}`, role: "analyst" }));
    await answers(invites, 404, account("POST", `/workspaces/${HUGE}/invites`, { email: `z.${email}`, role: "analyst" }));
    await answers(invites, 422, account("POST", `/workspaces/${ws.id}/invites`, { email: `z.${email}`, role: "boss" }));
    const token = invited.body.url.split("#")[1];
    const accept = (body: unknown) => t.call("POST", "/account/v1/invites/accept", { body });
    await answers("POST /account/v1/invites/accept", 422, accept({ token, password: "short" }));
    const joined = await answers("POST /account/v1/invites/accept", 200, accept({ token, password }));
    await answers("POST /account/v1/invites/accept", 404, accept({ token, password }));
    await answers("GET /account/v1/workspaces/{id}/members", 200, account("GET", `/workspaces/${ws.id}/members`));
    await answers("GET /account/v1/workspaces/{id}/members", 404, account("GET", `/workspaces/${HUGE}/members`));
    await answers("GET /account/v1/workspaces/{id}/audit", 200, account("GET", `/workspaces/${ws.id}/audit`));
    await answers("GET /account/v1/workspaces/{id}/audit", 404, account("GET", `/workspaces/${HUGE}/audit`));
    const remove = "DELETE /account/v1/workspaces/{id}/members/{user}";
    await answers(remove, 422, account("DELETE", `/workspaces/${ws.id}/members/${signedIn.body.user.id}`));
    await answers(remove, 404, account("DELETE", `/workspaces/${ws.id}/members/${HUGE}`));
    await answers(remove, 200, account("DELETE", `/workspaces/${ws.id}/members/${joined.body.user.id}`));
    const setup = await answers("POST /account/v1/two-factor/setup", 200, account("POST", "/two-factor/setup"));
    await answers("POST /account/v1/two-factor/enable", 422, account("POST", "/two-factor/enable", { code: "000000x" }));
    const code = hotp(fromBase32(setup.body.secret), stepAt(Date.now()));
    await answers("POST /account/v1/two-factor/enable", 200, account("POST", "/two-factor/enable", { code }));
    await answers("POST /account/v1/two-factor/setup", 422, account("POST", "/two-factor/setup"));
    await answers("POST /account/v1/two-factor/disable", 422, account("POST", "/two-factor/disable", { password: "not the password" }));
    await answers("POST /account/v1/two-factor/disable", 200, account("POST", "/two-factor/disable", { password }));
    await answers("POST /account/v1/sign-out", 200, account("POST", "/sign-out"));
    const again = await signIn({ email, password });
    const headers2 = { Cookie: again.headers.get("set-cookie")!.split(";")[0]!, "X-CSRF-Token": again.body.csrf_token };
    await answers("POST /account/v1/sign-out-everywhere", 200, t.call("POST", "/account/v1/sign-out-everywhere", { headers: headers2 }));
  }, 60_000);
});

describe("the operator's probes", () => {
  test("readiness and metrics", async () => {
    // The 503 of GET /ready needs an engine away: test/integration/probes.test.ts builds the app over a dead one.
    await answers("GET /ready", 200, t.call("GET", "/ready"));
    await answers("GET /metrics", 200, t.call("GET", "/metrics", { token: METRICS_TOKEN }));
    await answers("GET /metrics", 401, t.call("GET", "/metrics", { token: "mt_wrong" }));
  });
});

describe("videos and folders", () => {
  test("folders", async () => {
    const folder = await answers("POST /api/v1/folders", 201, api("POST", "/folders", { body: { name: "Launch" } }));
    await answers("POST /api/v1/folders", 201, api("POST", "/folders", { body: { name: "Child", parent_id: folder.body.folder.id, color: "#ff0000" } }));
    await answers("POST /api/v1/folders", 422, api("POST", "/folders", { body: { name: "" } }));
    await answers("POST /api/v1/folders", 422, api("POST", "/folders", { body: { name: "Orphan", parent_id: HUGE } }));
    await answers("GET /api/v1/folders", 200, api("GET", "/folders"));
    await answers("PATCH /api/v1/videos/{video}", 200, api("PATCH", `/videos/${video.id}`, { body: { folder_id: folder.body.folder.id, tags: ["a"] } }));
  });

  test("create, list, read, change, duplicate and delete", async () => {
    const created = await answers("POST /api/v1/videos", 201, api("POST", "/videos", { body: { title: "Doomed", tags: ["x"], copy_from: video.id } }));
    await answers("POST /api/v1/videos", 422, api("POST", "/videos", { body: { title: "" } }));
    await answers("POST /api/v1/videos", 422, api("POST", "/videos", { body: { title: "Lost", folder_id: HUGE } }));
    await answers("GET /api/v1/videos", 200, api("GET", "/videos?per_page=2&sort=title&order=asc"));
    await answers("GET /api/v1/videos", 422, api("GET", "/videos?per_page=0"));
    await answers("GET /api/v1/videos/{video}", 200, api("GET", `/videos/${video.id}`));
    await answers("GET /api/v1/videos/{video}", 404, api("GET", `/videos/${HUGE}`));
    await answers("PATCH /api/v1/videos/{video}", 200, api("PATCH", `/videos/${video.id}`, { body: { title: "Contract video" } }));
    await answers("PATCH /api/v1/videos/{video}", 404, api("PATCH", `/videos/${HUGE}`, { body: { title: "x" } }));
    await answers("PATCH /api/v1/videos/{video}", 422, api("PATCH", `/videos/${video.id}`, { body: { title: "" } }));
    await answers("PATCH /api/v1/videos/{video}", 422, api("PATCH", `/videos/${video.id}`, { body: { folder_id: HUGE } }));
    await answers("POST /api/v1/videos/{video}/duplicate", 201, api("POST", `/videos/${created.body.video.id}/duplicate`));
    await answers("POST /api/v1/videos/{video}/duplicate", 404, api("POST", `/videos/${HUGE}/duplicate`));
    await answers("POST /api/v1/videos/{video}/duplicate", 422, api("POST", `/videos/${video.id}/duplicate`, { headers: longKey }));
    await answers("DELETE /api/v1/videos/{video}", 200, api("DELETE", `/videos/${created.body.video.id}`));
    await answers("DELETE /api/v1/videos/{video}", 404, api("DELETE", `/videos/${created.body.video.id}`));
    await answers("DELETE /api/v1/videos/{video}", 422, api("DELETE", `/videos/${video.id}`, { headers: longKey }));
  });

  test("settings, status, embed and config reads", async () => {
    await answers("GET /api/v1/videos/{video}/settings", 200, api("GET", `/videos/${video.id}/settings`));
    await answers("GET /api/v1/videos/{video}/settings", 404, api("GET", `/videos/${HUGE}/settings`));
    await answers("GET /api/v1/videos/{video}/status", 200, api("GET", `/videos/${video.id}/status`));
    await answers("GET /api/v1/videos/{video}/status", 404, api("GET", `/videos/${HUGE}/status`));
    await answers("GET /api/v1/videos/{video}/embed", 200, api("GET", `/videos/${video.id}/embed`));
    await answers("GET /api/v1/videos/{video}/embed", 200, api("GET", `/videos/${video.id}/embed?mode=plain`));
    await answers("GET /api/v1/videos/{video}/embed", 404, api("GET", `/videos/${HUGE}/embed`));
    await answers("GET /api/v1/videos/{video}/embed", 422, api("GET", `/videos/${video.id}/embed?mode=${"p".repeat(65)}`));
    await answers("GET /api/v1/videos/{video}/config", 200, api("GET", `/videos/${video.id}/config`));
    await answers("GET /api/v1/videos/{video}/config", 404, api("GET", `/videos/${HUGE}/config`));
  });
});

describe("video settings", () => {
  test("draft, deploy, versions and restore", async () => {
    const payload = { style_options: { main_color: "#112233" }, timed_events_options: { events: [{ time_s: 2, selector: "#offer" }] } };
    await answers("POST /api/v1/videos/{video}/draft", 200, api("POST", `/videos/${video.id}/draft`, { body: payload }));
    await answers("POST /api/v1/videos/{video}/draft", 404, api("POST", `/videos/${HUGE}/draft`, { body: payload }));
    await answers("POST /api/v1/videos/{video}/draft", 422, api("POST", `/videos/${video.id}/draft`, { body: { style_options: { main_color: "nope" } } }));
    const deployed = await answers(
      "POST /api/v1/videos/{video}/deploy",
      200,
      api("POST", `/videos/${video.id}/deploy`, { body: { ...payload, _version_label: "v" } }),
    );
    await answers("POST /api/v1/videos/{video}/deploy", 404, api("POST", `/videos/${HUGE}/deploy`, { body: payload }));
    await answers("POST /api/v1/videos/{video}/deploy", 422, api("POST", `/videos/${video.id}/deploy`, { body: { style_options: { main_color: "nope" } } }));
    await answers("GET /api/v1/videos/{video}/deploys", 200, api("GET", `/videos/${video.id}/deploys`));
    await answers("GET /api/v1/videos/{video}/deploys", 404, api("GET", `/videos/${HUGE}/deploys`));
    await answers("GET /api/v1/videos/{video}/deploys", 422, api("GET", `/videos/${video.id}/deploys?page=0`));
    const restore = "POST /api/v1/videos/{video}/deploys/{version}/restore";
    await answers(restore, 200, api("POST", `/videos/${video.id}/deploys/${deployed.body.version_id}/restore`));
    await answers(restore, 404, api("POST", `/videos/${video.id}/deploys/${HUGE}/restore`));
    // The reads again, now that the settings hold a deployed list.
    await answers("GET /api/v1/videos/{video}/settings", 200, api("GET", `/videos/${video.id}/settings`));
    await answers("GET /api/v1/videos/{video}/embed", 200, api("GET", `/videos/${video.id}/embed`));
    await answers("GET /api/v1/videos/{video}/config", 200, api("GET", `/videos/${video.id}/config`));
  }, 60_000);
});

describe("playlists", () => {
  test("create, read, change, items and disable", async () => {
    const items = [{ video_code: other.code, title: "Lesson 1" }];
    await answers("POST /api/v1/playlists", 201, api("POST", "/playlists", { body: { video_id: video.id, items, playback_mode: "course" } }));
    await answers("POST /api/v1/playlists", 404, api("POST", "/playlists", { body: { video_id: HUGE } }));
    await answers("POST /api/v1/playlists", 422, api("POST", "/playlists", { body: { items } }));
    await answers("GET /api/v1/playlists", 200, api("GET", "/playlists"));
    await answers("GET /api/v1/playlists", 422, api("GET", "/playlists?per_page=0"));
    await answers("GET /api/v1/playlists/{playlist}", 200, api("GET", `/playlists/${video.id}`));
    await answers("GET /api/v1/playlists/{playlist}", 404, api("GET", `/playlists/${other.id}`));
    await answers("PATCH /api/v1/playlists/{playlist}", 200, api("PATCH", `/playlists/${video.id}`, { body: { lesson_navigation: "both", loop: true } }));
    await answers("PATCH /api/v1/playlists/{playlist}", 404, api("PATCH", `/playlists/${HUGE}`, { body: { loop: true } }));
    await answers("PATCH /api/v1/playlists/{playlist}", 422, api("PATCH", `/playlists/${video.id}`, { body: { playback_mode: "shuffle" } }));
    await answers("GET /api/v1/playlists/{playlist}/videos", 200, api("GET", `/playlists/${video.id}/videos`));
    await answers("GET /api/v1/playlists/{playlist}/videos", 404, api("GET", `/playlists/${HUGE}/videos`));
    const add = "POST /api/v1/playlists/{playlist}/videos";
    await answers(
      add,
      201,
      api("POST", `/playlists/${video.id}/videos`, { body: { video_code: "lesson-2", duration_s: 60, thumb_url: "https://example.com/t.jpg" } }),
    );
    await answers(add, 404, api("POST", `/playlists/${HUGE}/videos`, { body: { video_code: "x" } }));
    await answers(add, 422, api("POST", `/playlists/${video.id}/videos`, { body: { video_code: "" } }));
    const item = "PATCH /api/v1/playlists/{playlist}/videos/{video}";
    await answers(item, 200, api("PATCH", `/playlists/${video.id}/videos/lesson-2`, { body: { lesson_label: "Two" } }));
    await answers(item, 404, api("PATCH", `/playlists/${HUGE}/videos/lesson-2`, { body: { lesson_label: "Two" } }));
    await answers(item, 404, api("PATCH", `/playlists/${video.id}/videos/absent`, { body: { lesson_label: "Two" } }));
    await answers(item, 422, api("PATCH", `/playlists/${video.id}/videos/lesson-2`, { body: { duration_s: 0 } }));
    const remove = "DELETE /api/v1/playlists/{playlist}/videos/{video}";
    await answers(remove, 200, api("DELETE", `/playlists/${video.id}/videos/lesson-2`));
    await answers(remove, 404, api("DELETE", `/playlists/${video.id}/videos/42`));
    await answers(remove, 404, api("DELETE", `/playlists/${HUGE}/videos/lesson-2`));
    await answers(remove, 422, api("DELETE", `/playlists/${video.id}/videos/${LONG}`));
    await answers("DELETE /api/v1/playlists/{playlist}", 422, api("DELETE", `/playlists/${video.id}`, { headers: longKey }));
    await answers("DELETE /api/v1/playlists/{playlist}", 200, api("DELETE", `/playlists/${video.id}`));
    await answers("DELETE /api/v1/playlists/{playlist}", 404, api("DELETE", `/playlists/${video.id}`));
    await api("POST", "/playlists", { body: { video_id: video.id } });
  });
});

describe("webhooks and automation platforms", () => {
  test("subscriptions and the test delivery", async () => {
    const hook = await answers(
      "POST /api/v1/webhooks",
      201,
      api("POST", "/webhooks", { body: { name: "Orders", url: `${rx.url}/hook`, events: ["video.created"] } }),
    );
    await answers("POST /api/v1/webhooks", 422, api("POST", "/webhooks", { body: { name: "Bad", url: `${rx.url}/hook`, events: ["nope"] } }));
    const dead = await api("POST", "/webhooks", { body: { name: "Dead", url: "http://127.0.0.1:9/hook", events: ["video.created"] } });
    await answers("GET /api/v1/webhooks", 200, api("GET", "/webhooks"));
    await answers("POST /api/v1/webhooks/{webhook}/test", 200, api("POST", `/webhooks/${hook.body.webhook.id}/test`));
    await answers("POST /api/v1/webhooks/{webhook}/test", 502, api("POST", `/webhooks/${dead.body.webhook.id}/test`));
    await answers("POST /api/v1/webhooks/{webhook}/test", 404, api("POST", `/webhooks/${HUGE}/test`));
    await answers("DELETE /api/v1/webhooks/{webhook}", 200, api("DELETE", `/webhooks/${dead.body.webhook.id}`));
    await answers("DELETE /api/v1/webhooks/{webhook}", 404, api("DELETE", `/webhooks/${dead.body.webhook.id}`));
  }, 60_000);

  for (const platform of ["zapier", "make", "n8n"]) {
    test(`${platform}: me, triggers, sample, subscribe and unsubscribe`, async () => {
      const at = (rest: string) => `/api/v1/${platform}${rest}`;
      await answers(`GET ${at("/me")}`, 200, api("GET", `/${platform}/me`));
      await answers(`GET ${at("/triggers")}`, 200, api("GET", `/${platform}/triggers`));
      await answers(`GET ${at("/triggers/{key}/sample")}`, 200, api("GET", `/${platform}/triggers/new_lead/sample`));
      await answers(`GET ${at("/triggers/{key}/sample")}`, 200, api("GET", `/${platform}/triggers/lead.captured/sample`));
      const sub = await answers(
        `POST ${at("/subscribe")}`,
        201,
        api("POST", `/${platform}/subscribe`, { body: { target_url: `${rx.url}/z`, event: "new_lead" } }),
      );
      await answers(`POST ${at("/subscribe")}`, 200, api("POST", `/${platform}/subscribe`, { body: { target_url: `${rx.url}/z`, event: "nope" } }));
      await answers(`POST ${at("/subscribe")}`, 422, api("POST", `/${platform}/subscribe`, { body: { target_url: "", event: "new_lead" } }));
      await answers(`DELETE ${at("/subscribe/{id}")}`, 200, api("DELETE", `/${platform}/subscribe/${sub.body.id}`));
      await answers(`DELETE ${at("/subscribe/{id}")}`, 422, api("DELETE", `/${platform}/subscribe/${sub.body.id}`, { headers: longKey }));
    });
  }
});

describe("the events host", () => {
  const viewer = { session_id: "contract-session-1", device_id: "contract-device-1" };

  test("player beacons and the player's reads", async () => {
    const batch = (events: object[]) => ({ workspace_code: ws.code, video_code: video.code, ...viewer, events });
    const played = [{ type: "load", page_host: "shop.example" }, { type: "play" }, { type: "watched", from_s: 0, to_s: 2 }, { type: "milestone", percent: 25 }];
    await answers("POST /v1/collect", 200, events("POST", "/v1/collect", batch(played)));
    await answers("POST /v1/collect", 400, events("POST", "/v1/collect", { ...batch([{ type: "play" }]), extra: 1 }));
    await answers("POST /v1/collect", 404, events("POST", "/v1/collect", { ...batch([{ type: "play" }]), video_code: "no-such-video" }));
    const reads = ["/v1/lead-status", "/v1/course-progress", "/v1/resume-position"];
    for (const path of reads) {
      await answers(`GET ${path}`, 200, events("GET", `${path}?workspace_code=${ws.code}&video_code=${video.code}&session_id=${viewer.session_id}`));
      await answers(`GET ${path}`, 400, events("GET", `${path}?video_code=${video.code}`));
    }
  });

  test("custom events, with a token and from the browser", async () => {
    const event = "POST /v1/event";
    await answers(event, 200, events("POST", "/v1/event", { event: "signup", ...viewer, value: 3 }, { Authorization: `Bearer ${ws.token}` }));
    await answers(event, 202, events("POST", "/v1/event", { event: "signup", session_id: "nobody" }, { Authorization: `Bearer ${ws.token}` }));
    await answers(event, 400, events("POST", "/v1/event", { event: "signup", color: "red" }, { Authorization: `Bearer ${ws.token}` }));
    // docs/api.md "Custom events" rule 6: past 100 distinct names a new one is 422 TOO_MANY_EVENT_NAMES (a workspace of its own, so others keep room).
    const crowded = await t.workspace(["events:write"]);
    const auth = { Authorization: `Bearer ${crowded.token}` };
    await Promise.all(Array.from({ length: 100 }, (_, i) => events("POST", "/v1/event", { event: `name_${i}` }, auth)));
    await answers(event, 422, events("POST", "/v1/event", { event: "one_too_many" }, auth));
    const track = "POST /v1/track";
    await answers(track, 200, events("POST", "/v1/track", { workspace_code: ws.code, event: "signup", ...viewer }));
    await answers(track, 202, events("POST", "/v1/track", { workspace_code: ws.code, event: "signup", session_id: "nobody" }));
    await answers(track, 400, events("POST", "/v1/track", { workspace_code: ws.code, event: "signup", email: "a@example.com" }));
    await answers(track, 404, events("POST", "/v1/track", { workspace_code: "no-such-workspace", event: "signup" }));
    await answers(track, 422, events("POST", "/v1/track", { workspace_code: ws.code, event: "undeclared" }));
  }, 60_000);

  test("the browser conversion fallback", async () => {
    const sale = { workspace_code: ws.code, integration: "shopify", order_id: "order-1", value: 49, currency: "EUR", ...viewer, video_code: video.code };
    await answers("POST /v1/conversion", 200, events("POST", "/v1/conversion", sale));
    await answers("POST /v1/conversion", 400, events("POST", "/v1/conversion", { ...sale, coupon: "x" }));
    await answers("POST /v1/conversion", 403, events("POST", "/v1/conversion", { ...sale, integration: "closed" }));
    await answers("POST /v1/conversion", 404, events("POST", "/v1/conversion", { ...sale, integration: "absent" }));
  });
});

describe("conversions, analytics and ad spend", () => {
  test("server-to-server conversions", async () => {
    const sale = { video_code: video.code, session_code: "contract-session-1", conversion_id: "order-2", conversion_value: 99, conversion_currency: "USD" };
    await answers("POST /api/v1/conversions", 201, api("POST", "/conversions", { body: sale, headers: { "Idempotency-Key": "sale-2" } }));
    await answers("POST /api/v1/conversions", 404, api("POST", "/conversions", { body: { ...sale, video_code: "no-such-video" } }));
    await answers("POST /api/v1/conversions", 422, api("POST", "/conversions", { body: { ...sale, conversion_currency: "US" } }));
  });

  test("ad spend", async () => {
    const spend = { date: new Date().toISOString().slice(0, 10), amount: 20, currency: "USD", source: "facebook" };
    const created = await answers("POST /api/v1/videos/{video}/ad-spend", 201, api("POST", `/videos/${video.id}/ad-spend`, { body: spend }));
    await answers("POST /api/v1/videos/{video}/ad-spend", 200, api("POST", `/videos/${video.id}/ad-spend`, { body: { ...spend, amount: 25 } }));
    await answers("POST /api/v1/videos/{video}/ad-spend", 404, api("POST", `/videos/${HUGE}/ad-spend`, { body: spend }));
    await answers("POST /api/v1/videos/{video}/ad-spend", 422, api("POST", `/videos/${video.id}/ad-spend`, { body: { ...spend, amount: -1 } }));
    await answers("GET /api/v1/videos/{video}/ad-spend", 200, api("GET", `/videos/${video.id}/ad-spend`));
    await answers("GET /api/v1/videos/{video}/ad-spend", 404, api("GET", `/videos/${HUGE}/ad-spend`));
    await answers("GET /api/v1/videos/{video}/ad-spend", 422, api("GET", `/videos/${video.id}/ad-spend?from=soon`));
    const spare = await api("POST", `/videos/${video.id}/ad-spend`, { body: { ...spend, source: "spare" } });
    await answers("DELETE /api/v1/videos/{video}/ad-spend/{id}", 200, api("DELETE", `/videos/${video.id}/ad-spend/${spare.body.ad_spend.id}`));
    await answers("DELETE /api/v1/videos/{video}/ad-spend/{id}", 404, api("DELETE", `/videos/${video.id}/ad-spend/${spare.body.ad_spend.id}`));
    expect(created.body.ad_spend.source).toBe("facebook");
  });

  test("analytics reads", async () => {
    const reads = ["summary", "retention", "events", "conversions", "overview"];
    for (const read of reads) {
      const key = `GET /api/v1/videos/{video}/analytics/${read}`;
      await answers(key, 200, api("GET", `/videos/${video.id}/analytics/${read}`));
      await answers(key, 404, api("GET", `/videos/${HUGE}/analytics/${read}`));
      await answers(key, 422, api("GET", `/videos/${video.id}/analytics/${read}?to=yesterday`));
    }
    const summary = await api("GET", `/videos/${video.id}/analytics/summary`);
    await answers(
      "GET /api/v1/videos/{video}/analytics/summary",
      304,
      api("GET", `/videos/${video.id}/analytics/summary`, { headers: { "If-None-Match": summary.headers.get("etag")! } }),
    );
    await answers("GET /api/v1/videos/{video}/analytics/retention", 200, api("GET", `/videos/${video.id}/analytics/retention?buckets=10&segment=buyers`));
    await answers("GET /api/v1/videos/{video}/analytics/events", 200, api("GET", `/videos/${video.id}/analytics/events?event_type=play&per_page=5`));
    const breakdown = "GET /api/v1/videos/{video}/analytics/breakdown";
    await answers(breakdown, 200, api("GET", `/videos/${video.id}/analytics/breakdown?by=source`));
    await answers(breakdown, 404, api("GET", `/videos/${HUGE}/analytics/breakdown?by=source`));
    await answers(breakdown, 422, api("GET", `/videos/${video.id}/analytics/breakdown`));
    await answers("GET /api/v1/analytics/overview", 200, api("GET", "/analytics/overview?sort=revenue&currency=USD"));
    await answers("GET /api/v1/analytics/live", 200, api("GET", "/analytics/live"));
    await answers("GET /api/v1/analytics/overview", 422, api("GET", "/analytics/overview?currency=US"));
  });

  test("viewers: the list, a viewer's timeline and heatmap (the events host's contract session played the video)", async () => {
    const list = "GET /api/v1/videos/{video}/viewers";
    const page = await answers(list, 200, api("GET", `/videos/${video.id}/viewers`));
    await answers(list, 404, api("GET", `/videos/${HUGE}/viewers`));
    await answers(list, 422, api("GET", `/videos/${video.id}/viewers?identified=maybe`));
    const viewer = page.body.data[0].viewer_id;
    const one = "GET /api/v1/videos/{video}/viewers/{viewer}";
    await answers(one, 200, api("GET", `/videos/${video.id}/viewers/${viewer}`));
    await answers(one, 404, api("GET", `/videos/${video.id}/viewers/${HUGE}`));
    const heatmap = "GET /api/v1/videos/{video}/viewers/{viewer}/heatmap";
    await answers(heatmap, 200, api("GET", `/videos/${video.id}/viewers/${viewer}/heatmap?buckets=10`));
    await answers(heatmap, 404, api("GET", `/videos/${HUGE}/viewers/${viewer}/heatmap`));
    await answers(heatmap, 422, api("GET", `/videos/${video.id}/viewers/${viewer}/heatmap?buckets=0`));
  });

  test("funnels: the report from an entry video", async () => {
    const report = "GET /api/v1/funnels/report";
    await answers(report, 200, api("GET", `/funnels/report?entry_video=${video.id}`));
    await answers(report, 404, api("GET", `/funnels/report?entry_video=${HUGE}`));
    await answers(report, 422, api("GET", "/funnels/report?entry_video=first"));
  });

  test("viewers: erasure", async () => {
    const batch = {
      workspace_code: ws.code,
      video_code: video.code,
      session_id: "contract-erase",
      device_id: "contract-erase-device",
      events: [{ type: "play" }],
    };
    expect((await events("POST", "/v1/collect", batch)).status).toBe(200);
    const [row] = await t.deps.sql`SELECT viewer_id FROM viewer_sessions WHERE workspace_id = ${ws.id} AND session_code = 'contract-erase'`;
    await answers("DELETE /api/v1/viewers/{viewer}", 200, api("DELETE", `/viewers/${row!.viewer_id}`));
    await answers("DELETE /api/v1/viewers/{viewer}", 404, api("DELETE", `/viewers/${row!.viewer_id}`));
  });
});

describe("uploads", () => {
  test("single-shot upload", async () => {
    const file = await clip("landscape");
    const form = (parts: Record<string, Blob | string>) => {
      const data = new FormData();
      for (const [name, value] of Object.entries(parts)) {
        if (typeof value === "string") data.append(name, value);
        else data.append(name, value, "a.mp4");
      }
      return data;
    };
    const key = "POST /api/v1/videos/{video}/upload";
    await answers(key, 202, api("POST", `/videos/${other.id}/upload`, { raw: form({ orientation: "landscape", file: Bun.file(file) }) }));
    await answers(key, 404, api("POST", `/videos/${HUGE}/upload`, { raw: form({ file: Bun.file(file) }) }));
    await answers(key, 422, api("POST", `/videos/${other.id}/upload`, { raw: form({ orientation: "landscape" }) }));
    await answers(key, 422, api("POST", `/videos/${other.id}/upload`, { raw: form({ file: new Blob(["not a video at all, only words. ".repeat(100)]) }) }));
  }, 60_000);

  test("resumable upload: init, chunks, read, method override, complete and delete", async () => {
    const bytes = new Uint8Array(await Bun.file(await clip("landscape")).arrayBuffer());
    const init = "POST /api/v1/videos/{video}/upload/init";
    const declare = (size = bytes.length) => ({ filename: "clip.mp4", size, mime_type: "video/mp4" });
    const session = await answers(init, 201, api("POST", `/videos/${other.id}/upload/init`, { body: declare() }));
    await answers(init, 404, api("POST", `/videos/${HUGE}/upload/init`, { body: declare() }));
    await answers(init, 422, api("POST", `/videos/${other.id}/upload/init`, { body: { ...declare(), mime_type: "text/plain" } }));
    const id = session.body.upload_id as string;
    const chunk = (offset: number, body: Uint8Array<ArrayBuffer>, extra: Record<string, string> = {}) => ({
      raw: body,
      headers: { "Content-Type": "application/offset+octet-stream", "Upload-Offset": String(offset), ...extra },
    });
    const half = Math.floor(bytes.length / 2);
    const patch = "PATCH /api/v1/uploads/{upload}";
    await answers(patch, 200, api("PATCH", `/uploads/${id}`, chunk(0, bytes.subarray(0, half))));
    await answers(patch, 400, api("PATCH", `/uploads/${id}`, { raw: bytes.subarray(half), headers: { "Content-Type": "application/offset+octet-stream" } }));
    await answers(patch, 409, api("PATCH", `/uploads/${id}`, chunk(bytes.length, bytes.subarray(half))));
    await answers(patch, 404, api("PATCH", "/uploads/flup_00", chunk(0, bytes)));
    await answers(patch, 422, api("PATCH", `/uploads/${LONG}`, chunk(0, bytes)));
    await answers("GET /api/v1/uploads/{upload}", 200, api("GET", `/uploads/${id}`));
    await answers("GET /api/v1/uploads/{upload}", 404, api("GET", "/uploads/flup_00"));
    await answers("GET /api/v1/uploads/{upload}", 422, api("GET", `/uploads/${LONG}`));
    await answers("POST /api/v1/uploads/{upload}/complete", 409, api("POST", `/uploads/${id}/complete`));
    const override = "POST /api/v1/uploads/{upload}";
    await answers(override, 200, api("POST", `/uploads/${id}`, chunk(half, bytes.subarray(half), { "X-HTTP-Method-Override": "PATCH" })));
    await answers(override, 200, api("POST", `/uploads/${id}`, { headers: { "X-HTTP-Method-Override": "HEAD" } }), { bodyless: true });
    await answers(override, 404, api("POST", `/uploads/${id}`));
    await answers(override, 404, api("POST", "/uploads/flup_00", { headers: { "X-HTTP-Method-Override": "DELETE" } }));
    await answers(override, 422, api("POST", `/uploads/${LONG}`, { headers: { "X-HTTP-Method-Override": "DELETE" } }));
    await answers("POST /api/v1/uploads/{upload}/complete", 202, api("POST", `/uploads/${id}/complete`));
    await answers("POST /api/v1/uploads/{upload}/complete", 404, api("POST", "/uploads/flup_00/complete"));
    await answers("POST /api/v1/uploads/{upload}/complete", 422, api("POST", `/uploads/${LONG}/complete`));
    const spare = await api("POST", `/videos/${other.id}/upload/init`, { body: declare() });
    const doomed = await api("POST", `/videos/${other.id}/upload/init`, { body: declare() });
    await answers(override, 200, api("POST", `/uploads/${doomed.body.upload_id}`, { headers: { "X-HTTP-Method-Override": "DELETE" } }));
    await answers("DELETE /api/v1/uploads/{upload}", 200, api("DELETE", `/uploads/${spare.body.upload_id}`));
    await answers("DELETE /api/v1/uploads/{upload}", 404, api("DELETE", "/uploads/flup_00"));
    await answers("DELETE /api/v1/uploads/{upload}", 422, api("DELETE", `/uploads/${LONG}`));
  }, 60_000);
});

describe("exports", () => {
  test("start, poll and download in csv and json", async () => {
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10);
    const window = { from: day(7), to: day(0) };
    const csv = await answers(
      "POST /api/v1/exports",
      202,
      api("POST", "/exports", { body: { video_ids: [video.id], ...window, format: "csv", type: "events" } }),
    );
    const json = await answers(
      "POST /api/v1/exports",
      202,
      api("POST", "/exports", { body: { video_ids: [video.id], ...window, format: "json", type: "summary" } }),
    );
    await answers("POST /api/v1/exports", 404, api("POST", "/exports", { body: { video_ids: [HUGE], ...window, format: "csv", type: "events" } }));
    await answers("POST /api/v1/exports", 422, api("POST", "/exports", { body: { video_ids: [video.id], ...window, format: "xml", type: "events" } }));
    await answers("GET /api/v1/exports/{export}", 200, api("GET", `/exports/${csv.body.export_id}`));
    await answers("GET /api/v1/exports/{export}", 404, api("GET", "/exports/flex_00"));
    await answers("GET /api/v1/exports/{export}", 422, api("GET", `/exports/${LONG}`));
    await answers("GET /api/v1/exports/{export}/download", 404, api("GET", `/exports/${csv.body.export_id}/download`));
    await answers("GET /api/v1/exports/{export}/download", 422, api("GET", `/exports/${LONG}/download`));
    for (let i = 0; i < 20 && (await processNextExport(t.deps)); i++);
    await answers("GET /api/v1/exports/{export}", 200, api("GET", `/exports/${json.body.export_id}`));
    await answers("GET /api/v1/exports/{export}/download", 200, api("GET", `/exports/${csv.body.export_id}/download`));
    await answers("GET /api/v1/exports/{export}/download", 200, api("GET", `/exports/${json.body.export_id}/download`));
  }, 60_000);
});

describe("split tests", () => {
  test("create, list, read, pause, resume, end, report and the events host's assignment", async () => {
    const variations = evenSplit(video.id, other.id);
    const created = await answers("POST /api/v1/split-tests", 201, api("POST", "/split-tests", { body: { name: "Hook", variations, goal: "conversion" } }));
    await answers(
      "POST /api/v1/split-tests",
      404,
      api("POST", "/split-tests", { body: { name: "x", variations: [variations[0], { video_id: HUGE, weight: 50 }], goal: "play" } }),
    );
    await answers(
      "POST /api/v1/split-tests",
      422,
      api("POST", "/split-tests", { body: { name: "x", variations: [{ ...variations[0], weight: 60 }, variations[1]], goal: "play" } }),
    );
    const test = created.body.split_test;
    await answers("GET /api/v1/split-tests", 200, api("GET", "/split-tests"));
    await answers("GET /api/v1/split-tests", 422, api("GET", "/split-tests?per_page=0"));
    await answers("GET /api/v1/split-tests/{id}", 200, api("GET", `/split-tests/${test.id}`));
    await answers("GET /api/v1/split-tests/{id}", 404, api("GET", `/split-tests/${HUGE}`));
    const assign = { workspace_code: ws.code, split_test: test.code, session_id: "contract-session-2", device_id: "contract-device-2" };
    await answers("POST /v1/split-test", 200, events("POST", "/v1/split-test", assign));
    await answers("POST /v1/split-test", 400, events("POST", "/v1/split-test", { ...assign, extra: 1 }));
    await answers("POST /v1/split-test", 404, events("POST", "/v1/split-test", { ...assign, split_test: "no-such-test" }));
    await answers("POST /api/v1/split-tests/{id}/pause", 200, api("POST", `/split-tests/${test.id}/pause`));
    await answers("POST /api/v1/split-tests/{id}/pause", 404, api("POST", `/split-tests/${HUGE}/pause`));
    await answers("POST /api/v1/split-tests/{id}/resume", 200, api("POST", `/split-tests/${test.id}/resume`));
    await answers("POST /api/v1/split-tests/{id}/resume", 404, api("POST", `/split-tests/${HUGE}/resume`));
    await answers("GET /api/v1/split-tests/{id}/report", 200, api("GET", `/split-tests/${test.id}/report`));
    await answers("GET /api/v1/split-tests/{id}/report", 404, api("GET", `/split-tests/${HUGE}/report`));
    await answers("GET /api/v1/split-tests/{id}/report", 422, api("GET", `/split-tests/${test.id}/report?from=soon`));
    const end = "POST /api/v1/split-tests/{id}/end";
    await answers(end, 422, api("POST", `/split-tests/${test.id}/end`, { body: { winner_variation_id: HUGE } }));
    await answers(end, 404, api("POST", `/split-tests/${HUGE}/end`, { body: { winner_variation_id: 1 } }));
    await answers(end, 200, api("POST", `/split-tests/${test.id}/end`, { body: { winner_variation_id: test.variations[1].id } }));
    await answers("POST /api/v1/split-tests/{id}/pause", 422, api("POST", `/split-tests/${test.id}/pause`));
    await answers("POST /api/v1/split-tests/{id}/resume", 422, api("POST", `/split-tests/${test.id}/resume`));
  }, 60_000);
});

describe("playback protection", () => {
  test("defaults, protection of a video, tokens, signing keys and the embed player's token", async () => {
    await answers("GET /api/v1/playback-defaults", 200, api("GET", "/playback-defaults"));
    await answers("PATCH /api/v1/playback-defaults", 200, api("PATCH", "/playback-defaults", { body: { require_signed_urls: false } }));
    await answers("PATCH /api/v1/playback-defaults", 422, api("PATCH", "/playback-defaults", { body: { allowed_origins: ["no such host!"] } }));
    const guarded = await answers("POST /api/v1/videos", 201, api("POST", "/videos", { body: { title: "Guarded" } }));
    const id = guarded.body.video.id;
    await answers("PATCH /api/v1/videos/{video}", 200, api("PATCH", `/videos/${id}`, { body: { allowed_origins: ["shop.example"] } }));
    await answers("PATCH /api/v1/videos/{video}", 422, api("PATCH", `/videos/${id}`, { body: { allowed_origins: ["https://shop.example"] } }));
    const token = "POST /api/v1/videos/{video}/token";
    await answers(token, 200, api("POST", `/videos/${id}/token`, { body: { exp: Math.floor(Date.now() / 1000) + 60 } }));
    await answers(token, 404, api("POST", `/videos/${HUGE}/token`, { body: {} }));
    await answers(token, 422, api("POST", `/videos/${id}/token`, { body: { exp: 1 } }));
    const made = await answers("POST /api/v1/signing-keys", 201, api("POST", "/signing-keys"));
    await answers("GET /api/v1/signing-keys", 200, api("GET", "/signing-keys"));
    await answers("DELETE /api/v1/signing-keys/{id}", 200, api("DELETE", `/signing-keys/${made.body.signing_key.id}`));
    await answers("DELETE /api/v1/signing-keys/{id}", 404, api("DELETE", `/signing-keys/${made.body.signing_key.id}`));
    await answers("DELETE /api/v1/signing-keys/{id}", 422, api("DELETE", `/signing-keys/${"x".repeat(65)}`));
    await answers("POST /api/v1/signing-keys", 422, api("POST", "/signing-keys", { headers: longKey }));
    const player = "GET /v1/playback/{code}/token";
    await answers(player, 200, t.call("GET", `/v1/playback/${guarded.body.video.code}/token`, { headers: { Origin: "https://shop.example" } }));
    await answers(player, 403, t.call("GET", `/v1/playback/${guarded.body.video.code}/token`, { headers: { Origin: "https://elsewhere.example" } }));
    await answers(player, 404, t.call("GET", `/v1/playback/${crypto.randomUUID()}/token`));
    await answers(player, 404, t.call("GET", "/v1/playback/not-a-code/token"));
  });
});

describe("coverage", () => {
  /** Statuses an operation documents but this file does not provoke, and why (see the header). */
  const NOT_PROVOKED: Record<string, number[]> = Object.fromEntries(
    ["zapier", "make", "n8n"].flatMap((p) => [
      [`GET /api/v1/${p}/me`, [404]],
      [`GET /api/v1/${p}/triggers/{key}/sample`, [422]],
    ]),
  );

  test("every documented operation was called: its success, 400 for a body that is not JSON, 401 and 403 where it takes a token, its documented 404 and 422", () => {
    const missing: string[] = [];
    for (const { key, path, operation } of operations()) {
      const got = seen.get(key) ?? new Set<number>();
      const documented = Object.keys(operation.responses).map(Number);
      if (![...got].some((s) => s >= 200 && s < 300)) missing.push(`${key}: no success`);
      const wanted = [
        ...(takesJson(operation) ? [400] : []),
        ...(needsToken(operation) ? [401] : []),
        ...(isScoped(path) ? [403] : []),
        ...documented.filter((s) => s === 404 || s === 422),
      ].filter((s) => !NOT_PROVOKED[key]?.includes(s));
      for (const status of wanted) if (!got.has(status)) missing.push(`${key}: no ${status}`);
    }
    expect(missing).toEqual([]);
  });
});
