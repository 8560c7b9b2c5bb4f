/**
 * Issue 14: bad input never reaches the database, never answers 5xx, never
 * stalls the service. The probe (test/helpers/probe.ts) sends the cases
 * to every route; valid but unusual Unicode is stored and read back exactly.
 */
import { beforeAll, describe, expect, test } from "bun:test";
import { BASE, testApp, UNLIMITED, type TestApp } from "../helpers/app.ts";
import { alive, makeFixtures, probe, routesOf, type Fixtures } from "../helpers/probe.ts";
import { loadConfig } from "../../server/config.ts";
import { nested } from "../helpers/schema-arbitrary.ts";
import { Kind } from "@sinclair/typebox";
import { DATE_FORMAT, DATE_TIME_FORMAT, PATH_ID, TEXT_FORMAT } from "../../server/http/schemas.ts";

/** String formats that admit no NUL or unpaired surrogate (Elysia's numeric query strings among them). */
const SAFE_FORMATS = new Set([TEXT_FORMAT, DATE_FORMAT, DATE_TIME_FORMAT, "integer", "numeric"]);

let t: TestApp;
let f: Fixtures;

const base = loadConfig({});
/** Limits high enough that the probe's thousands of calls never meet them; a short body timeout. */
const config = {
  ...UNLIMITED,
  eventLimits: { perWorkspacePerMinute: 1e9, perIpPerMinute: 1e9, browserConversionPerIpPerMinute: 1e9 },
  webhookAllowPrivate: true,
  bodyTimeoutMs: 500,
  ingest: { ...base.ingest, maxWaitMs: 5 },
};

beforeAll(async () => {
  t = await testApp({ config, fixturePlayer: true });
  f = await makeFixtures(t);
}, 120_000);

test("every route, the issue's cases: no 5xx, every answer in a docs/api.md shape, no stall, the service alive after each", async () => {
  const summary = await probe(t, f, routesOf(t.app));
  const lines = summary.failures
    .slice(0, 40)
    .map((r) => `${r.outcome} ${r.status ?? ""} ${r.request.route.method} ${r.request.route.path} [${r.request.label}] ${r.text ?? ""}`);
  console.log(
    `probe: ${summary.routes} routes, ${summary.requests} requests in ${(summary.ms / 1000).toFixed(1)} s: ` +
      Object.entries(summary.counts)
        .map(([k, v]) => `${v} ${k}`)
        .join(", "),
  );
  expect(lines).toEqual([]);
}, 600_000);

/** Where a route's schema takes a string that no helper checks (a new route that used `t.String()`). */
function uncheckedStrings(schema: unknown, at: string, out: string[]): string[] {
  if (typeof schema !== "object" || schema === null) return out;
  const s = schema as Record<string | symbol, unknown>;
  if (s[Kind] === "JsonObject" || s[Kind] === "JsonValue" || s[Kind] === "PropertyMap") return out;
  if (s.type === "string" && !SAFE_FORMATS.has(s.format as string) && !s[PATH_ID] && s.const === undefined && !("enum" in s)) out.push(at);
  for (const [name, child] of Object.entries((s.properties as object) ?? {})) uncheckedStrings(child, `${at}.${name}`, out);
  if (s.items) uncheckedStrings(s.items, `${at}[]`, out);
  for (const child of (s.anyOf as unknown[]) ?? []) uncheckedStrings(child, at, out);
  if (typeof s.additionalProperties === "object") uncheckedStrings(s.additionalProperties, `${at}.*`, out);
  return out;
}

test("every string any route takes (body, query, path) goes through the schema helpers: Text, PathId or a fixed set", () => {
  const routes = (t.app as unknown as { routes: { method: string; path: string; hooks: Record<string, unknown> }[] }).routes;
  const unchecked: string[] = [];
  for (const route of routes) {
    for (const part of ["body", "query", "params"]) {
      const hook = route.hooks?.[part] as { schema?: unknown } | undefined;
      uncheckedStrings(hook?.schema ?? hook, `${route.method} ${route.path} ${part}`, unchecked);
    }
  }
  expect(unchecked).toEqual([]);
});

describe("strings", () => {
  const unusual = ["😀 \u202eevil\u202c \uffff", "漢字かな交じり", "مرحبا بالعالم", "\u200f\u2066isolated\u2069", "\ufdd0\ufffe", "e\u0301", "𝕏".repeat(10)];

  test("every well-formed Unicode string is stored and read back exactly: titles, tags, folder names, properties", async () => {
    for (const text of unusual) {
      const created = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body: { title: text, tags: [text.slice(0, 64)] } });
      expect(created.status).toBe(201);
      const read = await t.call("GET", `/api/v1/videos/${created.body.video.id}`, { token: f.ws.token });
      expect(read.body.video.title).toBe(text);
      expect(read.body.video.tags).toEqual([text.slice(0, 64)]);
      const folder = await t.call("POST", "/api/v1/folders", { token: f.ws.token, body: { name: text } });
      expect(folder.status).toBe(201);
      const folders = await t.call("GET", "/api/v1/folders", { token: f.ws.token });
      expect(folders.body.folders.map((x: { name: string }) => x.name)).toContain(text);
      const event = await t.call("POST", "/v1/event", { token: f.ws.token, body: { event: "signup", properties: { note: text } } });
      expect([200, 202]).toContain(event.status);
    }
  });

  test("NUL and lone surrogates are refused naming the field: 422 on the API, 400 INVALID_PAYLOAD on the events host, nothing stored", async () => {
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "x\udc00y"]) {
      const video = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body: { title: bad } });
      expect(video.status).toBe(422);
      expect(Object.keys(video.body.errors)).toEqual(["title"]);
      const tag = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body: { title: "ok", tags: ["fine", bad] } });
      expect(tag.status).toBe(422);
      expect(Object.keys(tag.body.errors)).toEqual(["tags.1"]);
      // A lone surrogate cannot travel in a URL (its UTF-8 bytes arrive as U+FFFD); a NUL can.
      if (bad.includes("\0")) expect((await t.call("GET", `/api/v1/videos?search=${encodeURIComponent(bad)}`, { token: f.ws.token })).status).toBe(422);
      const event = await t.call("POST", "/v1/event", { token: f.ws.token, body: { event: "signup", session_id: bad } });
      expect(event.status).toBe(400);
      expect(event.body.error).toBe("INVALID_PAYLOAD");
      expect(event.body.message).toContain("session_id");
      const props = await t.call("POST", "/v1/event", { token: f.ws.token, body: { event: "signup", properties: { k: bad } } });
      expect(props.status).toBe(400);
      expect(props.body.message).toContain("properties");
    }
    const titles = (await t.deps.sql<{ title: string }[]>`SELECT title FROM videos WHERE workspace_id = ${f.ws.id}`).map((r) => r.title);
    expect(titles.some((x) => x.includes("\0") || x.includes("\ufffd"))).toBe(false);
  });

  test("properties is an object of strings, numbers or booleans within docs/api.md's limits", async () => {
    for (const properties of [true, 0, "x", [], [1], null, { a: { b: 1 } }, { a: [1] }, { ["k".repeat(41)]: 1 }, { a: "v".repeat(101) }]) {
      for (const path of ["/v1/event", "/v1/track"]) {
        const body = path === "/v1/track" ? { workspace_code: f.ws.code, event: "signup", properties } : { event: "signup", properties };
        const res = await t.call("POST", path, { token: f.ws.token, body });
        expect([path, res.status, res.body.error]).toEqual([path, 400, "INVALID_PAYLOAD"]);
      }
      const collect = await t.call("POST", "/v1/collect", {
        body: { workspace_code: f.ws.code, video_code: f.videoCode, session_id: "s1", events: [{ type: "play", properties }] },
      });
      expect(collect.status).toBe(400);
      const conversion = await t.call("POST", "/v1/conversion", {
        body: { workspace_code: f.ws.code, integration: "shopify", order_id: "o1", value: 1, properties },
      });
      expect(conversion.status).toBe(400);
    }
    const fine = await t.call("POST", "/v1/event", { token: f.ws.token, body: { event: "signup", properties: { s: "x", n: 1.5, b: false } } });
    expect([200, 202]).toContain(fine.status);
  });
});

describe("numbers and dates", () => {
  test("integers past their column are 422 (404 for a path id), never a database error", async () => {
    for (const big of [2 ** 63, 2 ** 53 + 1, 1e20]) {
      for (const body of [
        { title: "x", folder_id: big },
        { title: "x", copy_from: big },
      ]) {
        const res = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body });
        expect(res.status).toBe(422);
      }
      const folder = await t.call("POST", "/api/v1/folders", { token: f.ws.token, body: { name: "x", parent_id: big } });
      expect(folder.status).toBe(422);
      const playlist = await t.call("POST", "/api/v1/playlists", { token: f.ws.token, body: { video_id: big } });
      expect(playlist.status).toBe(422);
      const exported = await t.call("POST", "/api/v1/exports", {
        token: f.ws.token,
        body: { video_ids: [big], from: "2026-01-01", to: "2026-01-02", format: "csv", type: "events" },
      });
      expect(exported.status).toBe(422);
      const conversion = await t.call("POST", "/api/v1/conversions", { token: f.ws.token, body: { video_code: f.videoCode, conversion_value: big * 1e6 } });
      expect(conversion.status).toBe(422);
    }
    expect((await t.call("GET", "/api/v1/videos?page=99999999999999999999", { token: f.ws.token })).status).toBe(422);
    expect((await t.call("GET", "/api/v1/videos/99999999999999999999", { token: f.ws.token })).status).toBe(404);
    expect((await t.call("GET", "/api/v1/videos/9223372036854775808/status", { token: f.ws.token })).status).toBe(404);
  });

  test("money: conversion_value within +-1,000,000,000,000 is recorded", async () => {
    const res = await t.call("POST", "/api/v1/conversions", {
      token: f.ws.token,
      body: { video_code: f.videoCode, conversion_id: "big-order", conversion_value: 999_999_999_999.1234, conversion_currency: "USD" },
    });
    expect(res.status).toBe(201);
    const [row] = await t.deps.sql<
      { value: string }[]
    >`SELECT value::text AS value FROM conversions WHERE workspace_id = ${f.ws.id} AND conversion_id = 'big-order'`;
    expect(row!.value).toBe("999999999999.1234");
  });

  test("dates outside 1970-01-01..2100-12-31 are 422 on the four analytics reads and exports", async () => {
    for (const read of ["summary", "retention", "events", "conversions"]) {
      for (const query of ["to=9999-12-31", "from=0000-01-01", "from=1969-12-31", "to=2101-01-01"]) {
        const res = await t.call("GET", `/api/v1/videos/${f.videoId}/analytics/${read}?${query}`, { token: f.ws.token });
        expect([read, query, res.status]).toEqual([read, query, 422]);
      }
      const edge = await t.call("GET", `/api/v1/videos/${f.videoId}/analytics/${read}?from=1970-01-01&to=2100-12-31`, { token: f.ws.token });
      expect([read, edge.status]).toEqual([read, 200]);
    }
    const exported = await t.call("POST", "/api/v1/exports", {
      token: f.ws.token,
      body: { video_ids: [f.videoId], from: "2026-01-01", to: "9999-12-31", format: "csv", type: "events" },
    });
    expect(exported.status).toBe(422);
    expect(Object.keys(exported.body.errors)).toEqual(["to"]);
  });
});

describe("bodies", () => {
  test("a body nested 10,000 deep is refused before validation, in the route's shape; a settings draft nested 5,000 deep too", async () => {
    const deep = JSON.stringify(nested(10_000));
    const api = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body: deep });
    expect(api.status).toBe(422);
    expect(api.body.errors.body[0]).toContain("32");
    const events = await t.call("POST", "/v1/event", { token: f.ws.token, body: deep });
    expect(events.status).toBe(400);
    expect(events.body.error).toBe("INVALID_PAYLOAD");
    const draft = await t.call("POST", `/api/v1/videos/${f.videoId}/draft`, { token: f.ws.token, body: { style_options: { zz: nested(5_000) } } });
    expect(draft.status).toBe(422);
    expect(await alive(t, f)).toBe(true);
    // A payload within the bound is still a draft.
    const shallow = await t.call("POST", `/api/v1/videos/${f.videoId}/draft`, { token: f.ws.token, body: { style_options: { zz: nested(20) } } });
    expect(shallow.status).toBe(200);
  });

  test("a JSON body over 1 MiB is 413 in the route's shape", async () => {
    const res = await t.call("POST", "/api/v1/videos", { token: f.ws.token, body: { title: "x", pad: "x".repeat(1_100_000) } });
    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe("PAYLOAD_TOO_LARGE");
    const declared = await t.app.handle(
      new Request(`${BASE}/v1/event`, {
        method: "POST",
        headers: { Authorization: `Bearer ${f.ws.token}`, "Content-Type": "application/json", "Content-Length": "2147483648" },
        body: '{"event":"signup"}',
      }),
    );
    expect(declared.status).toBe(413);
    expect((await declared.json()).error).toBe("PAYLOAD_TOO_LARGE");
  });

  test("a body that stops arriving is a 400 within the body timeout, and the service goes on", async () => {
    const started = performance.now();
    const stalled = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"title":'));
      },
    });
    const res = await t.app.handle(
      new Request(`${BASE}/api/v1/videos`, {
        method: "POST",
        headers: { Authorization: `Bearer ${f.ws.token}`, "Content-Type": "application/json", "Content-Length": "100" },
        body: stalled,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error.code).toBe("INVALID_PAYLOAD");
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(await alive(t, f)).toBe(true);
  });

  test("a URL over 16,384 characters is 414 in the spec's shape", async () => {
    const res = await t.call("GET", `/api/v1/videos?search=${"a".repeat(100_000)}`, { token: f.ws.token });
    expect(res.status).toBe(414);
    expect(res.body.error.code).toBe("URI_TOO_LONG");
  });
});

describe("strict readings", () => {
  test("only `Authorization: Bearer <token>` or X-API-Key: a bare token in Authorization is INVALID_TOKEN", async () => {
    const bare = await t.call("GET", "/api/v1/videos", { headers: { Authorization: f.ws.token } });
    expect(bare.status).toBe(401);
    expect(bare.body.error.code).toBe("INVALID_TOKEN");
    const events = await t.call("POST", "/v1/event", { headers: { Authorization: f.ws.token }, body: { event: "signup" } });
    expect(events.status).toBe(401);
    expect((await t.call("GET", "/api/v1/videos", { headers: { "X-API-Key": f.ws.token } })).status).toBe(200);
  });

  test('expires_in_days is an integer: the string "1" is 422', async () => {
    const res = await t.call("POST", `/admin/v1/workspaces/${f.ws.id}/tokens`, {
      headers: { Authorization: "Bearer fla_test_admin_key_0123456789abcdef" },
      body: { name: "x", scopes: ["videos:read"], expires_in_days: "1" },
    });
    expect(res.status).toBe(422);
    expect(Object.keys(res.body.errors)).toEqual(["expires_in_days"]);
  });
});
