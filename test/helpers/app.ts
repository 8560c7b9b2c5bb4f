/**
 * Builds the real app over the shared engines and offers the calls every
 * integration test needs: a fresh workspace with tokens, a video, and requests
 * with JSON or raw bodies.
 */
import { join } from "node:path";
import { mkdtemp } from "node:fs/promises";
import { FIXTURE_PLAYER } from "../fixtures/player/sources.ts";
import { createApp, type App } from "../../server/app.ts";
import { loadConfig, type Config } from "../../server/config.ts";
import type { Deps } from "../../server/deps.ts";
import type { Clock } from "../../server/lib/clock.ts";
import { createDeps } from "../../server/runtime.ts";
import { createFsBlobStore, type BlobStore } from "../../server/storage/blob/index.ts";
import type { Ch } from "../../server/storage/clickhouse.ts";
import { ALL_SCOPES, type Scope } from "../../contract/scopes.ts";
import type { Sql } from "../../server/storage/postgres.ts";
import { getEngines } from "./engines.ts";

export const BASE = "http://127.0.0.1:8080";
export const ADMIN_KEY = "fla_test_admin_key_0123456789abcdef";

/** Per-token limits high enough that a test's own calls never hit them. */
export const UNLIMITED: Pick<Config, "limits"> = { limits: { readsPerMinute: 100_000, writesPerMinute: 100_000 } };

/** The small player of test/fixtures/player: fast to compile, enough for what a bundle must carry. */

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  token?: string;
  /** Sent as JSON (a string as it is), with `Content-Type: application/json` unless headers say otherwise. */
  body?: unknown;
  /** Sent as it is, with no Content-Type added: form data, bytes, text that is not JSON. */
  raw?: BodyInit;
  headers?: Record<string, string>;
}

/** A request to the app: `path` is a path on BASE, or a full URL the app handed out. */
export type Call = (method: string, path: string, opts?: CallOptions) => Promise<TestResponse>;

export interface TestApp {
  app: App;
  deps: Deps;
  call: Call;
  /** A fresh workspace with a token of the given scopes (all by default). */
  workspace(scopes?: Scope[]): Promise<TestWorkspace>;
  /** `POST /api/v1/videos` in `ws` (title "Video" unless given); throws unless 201. */
  createVideo(ws: TestWorkspace, body?: Record<string, unknown>): Promise<TestVideo>;
  /** A single-shot multipart upload of a local file (`POST /api/v1/videos/{id}/upload`). */
  upload(ws: TestWorkspace, videoId: number, file: string, orientation?: string): Promise<TestResponse>;
}

export interface TestWorkspace {
  id: number;
  code: string;
  token: string;
  legacyKey: string;
  /** Mints another token in this workspace. */
  mint(scopes: Scope[], opts?: { expires_in_days?: number }): Promise<{ id: number; secret: string }>;
}

export interface TestVideo {
  id: number;
  code: string;
  script_url: string;
  [field: string]: unknown;
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
  /** Compile the fixture player instead of the real one. */
  fixturePlayer?: boolean;
  /** The origin the app's URLs name (default BASE): a test serving the app on a real port gives that port's. */
  publicUrl?: string;
  /** Another ClickHouse than the run's shared one (a dead one, for outages). */
  ch?: Ch;
  /** Another media store than a fresh directory (a broken one, for outages). */
  media?: BlobStore;
  /** Another private store (sources, exports) than a fresh directory. */
  private?: BlobStore;
}

/** The fields a 422 VALIDATION_ERROR names, sorted (anything but a 422 throws, with its body). */
export function invalidFields(res: TestResponse): string[] {
  if (res.status !== 422 || !res.body?.errors) throw new Error(`expected a 422 with errors, got ${res.status}: ${res.text}`);
  return Object.keys(res.body.errors).sort();
}

export function caller(app: { handle(request: Request): Promise<Response> }): Call {
  return async (method, path, opts = {}) => {
    const headers: Record<string, string> = { ...opts.headers };
    if (opts.token !== undefined) headers.Authorization = `Bearer ${opts.token}`;
    let body: BodyInit | undefined = opts.raw;
    if (opts.body !== undefined) {
      headers["Content-Type"] ??= "application/json";
      body = typeof opts.body === "string" ? opts.body : JSON.stringify(opts.body);
    }
    const response = await app.handle(new Request(/^https?:/.test(path) ? path : BASE + path, { method, headers, body }));
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
}

export async function testApp(options: TestAppOptions = {}): Promise<TestApp> {
  const engines = await getEngines();
  const origin = options.publicUrl ?? BASE;
  const config: Config = {
    ...loadConfig({ DATA_DIR: engines.tmp, PUBLIC_URL: origin, LOG_LEVEL: "error" }),
    ...(options.fixturePlayer ? { playerSources: FIXTURE_PLAYER } : {}),
    ...options.config,
  };
  const dir = await mkdtemp(join(engines.tmp, "blobs-"));
  const deps = await createDeps(config, {
    sql: options.sql ?? engines.sql,
    ch: options.ch ?? engines.ch,
    clock: options.clock,
    blobs: {
      media: options.media ?? createFsBlobStore(join(dir, "media"), { publicBaseUrl: `${origin}/media` }),
      private: options.private ?? createFsBlobStore(join(dir, "private")),
      cdnA: createFsBlobStore(join(dir, "cdn-a"), { publicBaseUrl: `${origin}/cdn` }),
      cdnB: createFsBlobStore(join(dir, "cdn-b"), { publicBaseUrl: `${origin}/cdn` }),
    },
  });
  const app = createApp(deps, { adminKey: ADMIN_KEY });
  const call = caller(app);

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

  const createVideo: TestApp["createVideo"] = async (ws, body = {}) => {
    const created = await call("POST", "/api/v1/videos", { token: ws.token, body: { title: "Video", ...body } });
    if (created.status !== 201) throw new Error(`video create failed (${created.status}): ${created.text}`);
    return created.body.video as TestVideo;
  };

  const upload: TestApp["upload"] = (ws, videoId, file, orientation = "landscape") => {
    const form = new FormData();
    form.append("orientation", orientation);
    form.append("file", Bun.file(file), file.split("/").pop()!);
    return call("POST", `/api/v1/videos/${videoId}/upload`, { token: ws.token, raw: form });
  };

  return { app, deps, call, workspace, createVideo, upload };
}

/** The app and a workspace with every scope, for a file's `beforeAll`. */
export async function appAndWorkspace(options: TestAppOptions = {}): Promise<{ t: TestApp; ws: TestWorkspace }> {
  const t = await testApp(options);
  return { t, ws: await t.workspace() };
}

/**
 * The app on a real port (a browser needs one; the player is the fixture build)
 * with one workspace: for the dashboard's browser tests.
 */
export async function appOnAPort(): Promise<{ server: ReturnType<typeof Bun.serve>; t: TestApp; ws: TestWorkspace; wsName: string }> {
  let app: TestApp["app"] | undefined;
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => app!.handle(req) });
  const t = await testApp({ publicUrl: `http://127.0.0.1:${server.port}`, fixturePlayer: true });
  app = t.app;
  const ws = await t.workspace();
  const wsName = (await t.deps.sql`SELECT name FROM workspaces WHERE id = ${ws.id}`)[0]!.name as string;
  return { server, t, ws, wsName };
}
