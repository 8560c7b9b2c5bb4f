/**
 * Builds the real app over the shared engines and offers the calls every
 * integration test needs: a fresh workspace with tokens, and JSON requests.
 */
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import { createApp, type App } from "../../server/app.ts";
import { loadConfig, type Config } from "../../server/config.ts";
import { createDeps, type Deps, type Clock } from "../../server/deps.ts";
import { createFsBlobStore } from "../../server/storage/blob/index.ts";
import { ALL_SCOPES, type Scope } from "../../server/http/scopes.ts";
import type { Sql } from "../../server/storage/postgres.ts";
import { getEngines } from "./engines.ts";

export const BASE = "http://127.0.0.1:8080";
export const ADMIN_KEY = "fla_test_admin_key_0123456789abcdef";

export interface TestApp {
  app: App;
  deps: Deps;
  /** A JSON request against the app; `token` goes in Authorization: Bearer. */
  call(method: string, path: string, opts?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<TestResponse>;
  /** A fresh workspace with a token of the given scopes (all by default). */
  workspace(scopes?: Scope[]): Promise<TestWorkspace>;
}

export interface TestWorkspace {
  id: number;
  code: string;
  token: string;
  legacyKey: string;
  /** Mints another token in this workspace. */
  mint(scopes: Scope[], opts?: { expires_in_days?: number }): Promise<{ id: number; secret: string }>;
}

export interface TestResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  clock?: Clock;
  /** Another database than the run's shared one (a test that must see only its own rows). */
  sql?: Sql;
}

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const engines = await getEngines();
  const config: Config = { ...loadConfig({ DATA_DIR: engines.tmp, PUBLIC_URL: BASE, LOG_LEVEL: "error" }), ...options.config };
  const dir = await mkdtemp(join(engines.tmp, "blobs-"));
  const deps = await createDeps(config, {
    sql: options.sql ?? engines.sql,
    ch: engines.ch,
    clock: options.clock,
    blobs: {
      media: createFsBlobStore(join(dir, "media"), { publicBaseUrl: `${BASE}/media` }),
      cdnA: createFsBlobStore(join(dir, "cdn-a"), { publicBaseUrl: `${BASE}/cdn` }),
      cdnB: createFsBlobStore(join(dir, "cdn-b"), { publicBaseUrl: `${BASE}/cdn` }),
    },
  });
  const app = createApp(deps, { adminKey: ADMIN_KEY });

  const call: TestApp["call"] = async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
    let body: string | undefined;
    if (opts.body !== undefined) {
      headers["Content-Type"] ??= "application/json";
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    }
    const response = await app.handle(new Request(BASE + path, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text };
  };

  const workspace: TestApp["workspace"] = async (scopes = ALL_SCOPES) => {
    const created = await call("POST", "/admin/v1/workspaces", { token: ADMIN_KEY, body: { name: `ws ${crypto.randomUUID().slice(0, 8)}` } });
    if (created.status !== 201) throw new Error(`workspace create failed: ${created.text}`);
    const id = created.body.workspace.id as number;
    const mint: TestWorkspace["mint"] = async (s, extra = {}) => {
      const minted = await call("POST", `/admin/v1/workspaces/${id}/tokens`, { token: ADMIN_KEY, body: { name: "test", scopes: s, ...extra } });
      if (minted.status !== 201) throw new Error(`token mint failed: ${minted.text}`);
      return { id: minted.body.token.id, secret: minted.body.secret };
    };
    const { secret } = await mint(scopes);
    return { id, code: created.body.workspace.code, token: secret, legacyKey: created.body.legacy_key, mint };
  };

  return { app, deps, call, workspace };
}
