/** docs/api.md paths: /api/v1/openapi.json and /api/v1/docs describe every route built. */
import { beforeAll, describe, expect, test } from "bun:test";
import { testApp, type TestApp } from "../helpers/app.ts";

let t: TestApp;

beforeAll(async () => {
  t = await testApp();
}, 60_000);

/** The docs' own routes describe the API; they are not part of it. */
const SELF = new Set(["/api/v1/openapi.json", "/api/v1/docs", "/api/v1/docs/scalar.js"]);
const toOpenApiPath = (path: string) => path.replace(/:(\w+)/g, "{$1}");

describe("OpenAPI", () => {
  test("/api/v1/openapi.json is valid JSON, version 1.0.0, with no token needed", async () => {
    const res = await t.call("GET", "/api/v1/openapi.json");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("json");
    expect(() => JSON.parse(res.text)).not.toThrow();
    expect(res.body.openapi).toMatch(/^3\./);
    expect(res.body.info.version).toBe("1.0.0");
    expect(res.body.info.title).toBeString();
    expect(res.body.paths).toBeObject();
  });

  test("lists every /api/v1 and /admin/v1 route the app registers, with its method", async () => {
    const doc = (await t.call("GET", "/api/v1/openapi.json")).body;
    const built = (t.app.routes as { method: string; path: string }[])
      .filter((r) => (r.path.startsWith("/api/v1/") || r.path.startsWith("/admin/v1/")) && !SELF.has(r.path))
      .filter((r) => !["HEAD", "OPTIONS"].includes(r.method.toUpperCase()));
    expect(built.length).toBeGreaterThanOrEqual(19);
    const missing = built.filter((r) => !doc.paths[toOpenApiPath(r.path)]?.[r.method.toLowerCase()]).map((r) => `${r.method} ${r.path}`);
    expect(missing).toEqual([]);
    // The foundation's routes, by name, so an empty app cannot pass.
    for (const [method, path] of [
      ["get", "/api/v1/videos"],
      ["post", "/api/v1/videos"],
      ["get", "/api/v1/videos/{video}"],
      ["patch", "/api/v1/videos/{video}"],
      ["delete", "/api/v1/videos/{video}"],
      ["get", "/api/v1/videos/{video}/settings"],
      ["get", "/api/v1/videos/{video}/status"],
      ["post", "/api/v1/videos/{video}/duplicate"],
      ["get", "/api/v1/folders"],
      ["post", "/api/v1/folders"],
      ["post", "/admin/v1/workspaces"],
      ["get", "/admin/v1/workspaces"],
      ["post", "/admin/v1/workspaces/{id}/tokens"],
      ["get", "/admin/v1/workspaces/{id}/tokens"],
      ["delete", "/admin/v1/tokens/{id}"],
      ["post", "/admin/v1/workspaces/{id}/custom-metrics"],
      ["put", "/admin/v1/workspaces/{id}/integrations/{integration}"],
    ]) {
      expect(doc.paths[path]?.[method!]).toBeObject();
    }
  });

  test("describes authentication and request bodies", async () => {
    const doc = (await t.call("GET", "/api/v1/openapi.json")).body;
    const schemes = doc.components.securitySchemes;
    expect(Object.values(schemes).some((s: any) => s.type === "http" && s.scheme === "bearer")).toBe(true);
    expect(Object.values(schemes).some((s: any) => s.type === "apiKey" && s.in === "header" && s.name === "X-API-Key")).toBe(true);
    const create = doc.paths["/api/v1/videos"].post;
    expect(JSON.stringify(create.requestBody)).toContain("title");
    expect(JSON.stringify(create.requestBody)).toContain("copy_from");
  });

  test("/api/v1/docs is an HTML page whose scripts load from this server, not a CDN", async () => {
    const res = await t.call("GET", "/api/v1/docs");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/html");
    expect(res.text).toMatch(/<html/i);
    const sources = [...res.text.matchAll(/<script[^>]*\bsrc\s*=\s*["']([^"']+)["']/gi)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(0);
    for (const src of sources) {
      expect(src).not.toMatch(/^(https?:)?\/\//i);
      const script = await t.call("GET", new URL(src, "http://127.0.0.1:8080/api/v1/docs").pathname);
      expect(script.status).toBe(200);
      expect(script.headers.get("content-type")).toContain("javascript");
      expect(script.text.length).toBeGreaterThan(10_000);
    }
    // No stylesheet or font from elsewhere either.
    for (const m of res.text.matchAll(/<link[^>]*\bhref\s*=\s*["']([^"']+)["']/gi)) expect(m[1]).not.toMatch(/^(https?:)?\/\//i);
    // The page's configured spec URL, resolved as the browser does against the page URL, answers the description.
    const config = /data-configuration='([^']+)'/.exec(res.text);
    expect(config).not.toBeNull();
    const specUrl = new URL(JSON.parse(config![1]!).url, "http://127.0.0.1:8080/api/v1/docs");
    expect(specUrl.pathname).toBe("/api/v1/openapi.json");
    const spec = await t.call("GET", specUrl.pathname);
    expect(spec.status).toBe(200);
    expect(spec.body.info.version).toBe("1.0.0");
  });
});
