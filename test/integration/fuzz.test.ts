/**
 * Property: whatever a client sends to any route (bodies and query strings
 * generated from the route's own schema, with issue 14's hostile values mixed
 * in at any depth, and odd headers), the service answers without a 5xx, in
 * one of docs/api.md's shapes, and `/health` and a database-backed read still
 * answer afterwards. Routes come from `app.routes`, so new ones are covered.
 * `FUZZ_RUNS` (per route, default 25) and `FUZZ_SEED` reproduce or widen a run.
 */
import { beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { BASE, testApp, UNLIMITED, type TestApp } from "../helpers/app.ts";
import { alive, baseBody, fillPath, headersFor, makeFixtures, routesOf, send, type Fixtures } from "../helpers/probe.ts";
import { hostileOf } from "../helpers/schema-arbitrary.ts";
import { loadConfig } from "../../server/config.ts";

const RUNS = Number(process.env.FUZZ_RUNS) || 25;
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

let t: TestApp;
let f: Fixtures;

beforeAll(async () => {
  const base = loadConfig({});
  t = await testApp({
    config: {
      ...UNLIMITED,
      eventLimits: { perWorkspacePerMinute: 1e9, perIpPerMinute: 1e9, browserConversionPerIpPerMinute: 1e9 },
      webhookAllowPrivate: true,
      bodyTimeoutMs: 500,
      ingest: { ...base.ingest, maxWaitMs: 5 },
    },
    fixturePlayer: true,
  });
  f = await makeFixtures(t);
}, 120_000);

const ODD_HEADERS: Record<string, string>[] = [
  {},
  { "Idempotency-Key": "ÿ þ clé" },
  { "Idempotency-Key": "k".repeat(300) },
  { "X-Forwarded-For": "x".repeat(5_000) },
  { "Content-Type": "text/plain" },
  { "Content-Type": "application/json; charset=latin1" },
  { "Upload-Offset": "18446744073709551616" },
];

/** Path parameters: an id, or what issue 14 sent there. */
const PATH_VALUES = [
  "\u0000",
  "a\u0000b",
  "99999999999999999999",
  "9223372036854775808",
  "-1",
  "0",
  "1.5",
  "x".repeat(2_000),
  "😀\u202e",
  "%",
  "..%2F..%2Fetc",
];

const wellFormed = (s: string) => (s as unknown as { toWellFormed(): string }).toWellFormed();

function queryString(value: unknown): string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "";
  const params = new URLSearchParams();
  for (const [name, item] of Object.entries(value)) {
    // A lone surrogate cannot be percent-encoded; it travels as U+FFFD, as a browser would send it.
    params.set(name, wellFormed(typeof item === "string" ? item : (JSON.stringify(item) ?? "")));
  }
  return `?${params}`;
}

test("any body, query and headers to any route: no 5xx, a docs/api.md shape, the service alive after each", async () => {
  const started = performance.now();
  let cases = 0;
  const routes = routesOf(t.app).filter((r) => r.body || r.query || r.path.includes(":"));
  for (const route of routes) {
    const body = route.body ? hostileOf(route.body as never) : fc.constant(baseBody(route, f));
    const query = route.query ? hostileOf(route.query as never) : fc.constant(undefined);
    const path = route.path.includes(":") ? fc.option(fc.constantFrom(...PATH_VALUES), { freq: 3 }) : fc.constant(null);
    await fc.assert(
      fc.asyncProperty(body, query, path, fc.constantFrom(...ODD_HEADERS), async (value, params, pathValue, odd) => {
        cases++;
        const hasBody = !["GET", "HEAD", "OPTIONS"].includes(route.method);
        const result = await send(
          t,
          {
            route,
            label: "fuzz",
            url: `${BASE}${fillPath(route, f, pathValue === null ? undefined : encodeURIComponent(pathValue))}${queryString(params)}`,
            headers: { ...headersFor(route, f), ...odd },
            body: hasBody ? JSON.stringify(value ?? null) : undefined,
          },
          15_000,
        );
        expect(`${route.method} ${route.path} ${result.outcome} ${result.status} ${result.text?.slice(0, 200)}`).toBe(
          `${route.method} ${route.path} ok ${result.status} ${result.text?.slice(0, 200)}`,
        );
        expect(await alive(t, f)).toBe(true);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }
  console.log(`fuzz: ${routes.length} routes, ${cases} cases in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, 600_000);
