/**
 * A ClickHouse server for tests: chDB (the engine of embedded mode) behind
 * ClickHouse's HTTP interface as `@clickhouse/client` speaks it, so the suite can
 * run with `CLICKHOUSE_URL` (README "Tests") on machines where no ClickHouse
 * server installs.
 *
 *   npm run clickhouse:dev -- --port 8123 --path /tmp/ch   (prints "ClickHouse HTTP on http://127.0.0.1:8123")
 *
 * What it serves, as a server does:
 * - `GET /ping` and `GET /` without a query: "Ok.\n".
 * - Queries by GET or POST: `query` in the URL and/or the body (joined by a newline,
 *   the URL's first), or `query` and `param_*` parts of a multipart/form-data body.
 *   A GET runs with `readonly = 2`. One statement per request: more is the server's
 *   "Multi-statements are not allowed" syntax error (chDB alone would run them all).
 * - `database` (or `X-ClickHouse-Database`), `default_format` (or `X-ClickHouse-Format`),
 *   `query_id`; every other URL parameter is a setting, applied with `SET` before the
 *   query (an unknown one is the engine's UNKNOWN_SETTING). Parameters only the HTTP
 *   layer reads (`wait_end_of_query`, `buffer_size`, `user`, `password`, ...) are
 *   accepted and have no effect.
 * - `param_<name>` for `{name:Type}` placeholders, handed to the engine as the raw
 *   strings the client sent, so each value is parsed as a server parses it. A URL
 *   parameter over 128 KiB is refused, as a server's http_max_field_value_size does;
 *   the URL may be up to 1 MiB (http_max_uri_size) when started by clickhouse:dev.
 * - INSERT with the statement in the URL and the rows in the body, in any format the
 *   engine reads (an empty body inserts nothing, as over HTTP).
 * - Request bodies with `Content-Encoding` gzip, deflate, br or zstd; responses
 *   compressed the same ways when `enable_http_compression=1` and `Accept-Encoding` asks.
 * - Errors with the server's status for the error code (400, 403, 404, 500, ...),
 *   `X-ClickHouse-Exception-Code` and a `Code: N. DB::Exception: ...` body; results with
 *   `X-ClickHouse-Query-Id`, `X-ClickHouse-Format`, `X-ClickHouse-Timezone` and
 *   `X-ClickHouse-Summary`.
 *
 * What it does not do:
 * - No cluster, replication or `ON CLUSTER`; no users, passwords or roles (any
 *   credentials are accepted); no TLS.
 * - One data directory and one request at a time: requests queue, so a slow query holds
 *   up the others (a server runs them side by side). Each request gets a fresh chDB
 *   connection, so its settings, `USE` and temporary tables end with it, as they do for
 *   a server's request without a session.
 * - No HTTP sessions (`session_id` is refused), no async-insert queue (an INSERT is
 *   written before its answer, whatever `wait_for_async_insert` says), no progress
 *   headers, no external data tables, no `compress`/`decompress` (ClickHouse's own block
 *   compression). A result is buffered whole, then sent, so an error never arrives after a 200.
 * - `X-ClickHouse-Summary` counts what chDB reports: rows written for an INSERT whose
 *   rows come in the body, result rows as read rows otherwise.
 * - The engine is chDB's `clickhouse-local`: of the settings it changes from a server's
 *   defaults, the one that changes what SQL means is set back (`implicit_select`); the
 *   log tables (`system.query_log`, ...) do not exist and `system.clusters` is empty.
 */
import { createRequire } from "node:module";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import zlib from "node:zlib";
import { Session } from "chdb";
import type { Subprocess } from "bun";
import { spawnUntilReady } from "./process.ts";
import { scanSql, type SqlShape } from "./clickhouse-sql.ts";

interface NativeResult {
  bytes: Uint8Array;
  elapsed: number;
  rowsRead: number;
  bytesRead: number;
}

interface NativeInsertResult {
  elapsed: number;
  rowsWritten: number;
  bytesWritten: number;
}

/** chDB's addon: its Session API TSV-escapes string parameters again, which would change what a server reads from `param_*`. */
interface Native {
  QueryAsyncConnection(connection: unknown, sql: string, format: string, params?: Record<string, string>): Promise<NativeResult>;
  InsertRawAsyncConnection(connection: unknown, prefix: string, data: Uint8Array, countLines: boolean): Promise<NativeInsertResult>;
}

function loadNative(): Native {
  const require = createRequire(import.meta.url);
  const native = createRequire(require.resolve("chdb"))("./dist/loader.js").loadNative() as Native;
  if (typeof native.QueryAsyncConnection !== "function" || typeof native.InsertRawAsyncConnection !== "function")
    throw new Error("this chdb build lacks QueryAsyncConnection/InsertRawAsyncConnection: update test/helpers/clickhouse-http.ts");
  return native;
}

export const READY_LINE = "ClickHouse HTTP on ";

/**
 * The bun flags of package.json's clickhouse:dev: `param_*` values travel in the URL, and a
 * server takes URLs up to 1 MiB (http_max_uri_size) where bun's default stops at 16 KiB.
 */
const BUN_FLAGS: string[] = (await Bun.file(join(import.meta.dir, "..", "..", "package.json")).json()).scripts["clickhouse:dev"]
  .split(/\s+/)
  .filter((arg: string) => arg.startsWith("--"));

export interface ClickHouseHttp {
  url: string;
  port: number;
  /** Stops taking requests, lets queued ones finish, and releases the data directory. */
  stop(): Promise<void>;
}

/** An error in the server's terms: its code, its name, and the message after `DB::Exception: `. */
class ChError extends Error {
  constructor(
    readonly code: number,
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

// src/Server/HTTP/exceptionCodeToHTTPStatus.cpp: everything else is 500.
const STATUS_BY_ERROR: Record<string, number> = {
  REQUIRED_PASSWORD: 401,
  ...Object.fromEntries(["UNKNOWN_USER", "WRONG_PASSWORD", "AUTHENTICATION_FAILED", "SET_NON_GRANTED_ROLE", "ACCESS_DENIED"].map((t) => [t, 403])),
  ...Object.fromEntries(
    [
      "BAD_ARGUMENTS",
      "CANNOT_COMPILE_REGEXP",
      "CANNOT_PARSE_TEXT",
      "CANNOT_PARSE_ESCAPE_SEQUENCE",
      "CANNOT_PARSE_QUOTED_STRING",
      "CANNOT_PARSE_DATE",
      "CANNOT_PARSE_DATETIME",
      "CANNOT_PARSE_NUMBER",
      "CANNOT_PARSE_DOMAIN_VALUE_FROM_STRING",
      "CANNOT_PARSE_IPV4",
      "CANNOT_PARSE_IPV6",
      "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
      "CANNOT_PARSE_UUID",
      "DUPLICATE_COLUMN",
      "ILLEGAL_COLUMN",
      "UNKNOWN_ELEMENT_IN_AST",
      "UNKNOWN_TYPE_OF_AST_NODE",
      "THERE_IS_NO_COLUMN",
      "TOO_DEEP_AST",
      "TOO_BIG_AST",
      "UNEXPECTED_AST_STRUCTURE",
      "SYNTAX_ERROR",
      "INCORRECT_DATA",
      "TYPE_MISMATCH",
      "VALUE_IS_OUT_OF_RANGE_OF_DATA_TYPE",
    ].map((t) => [t, 400]),
  ),
  ...Object.fromEntries(
    [
      "UNKNOWN_TABLE",
      "UNKNOWN_FUNCTION",
      "UNKNOWN_IDENTIFIER",
      "UNKNOWN_TYPE",
      "UNKNOWN_STORAGE",
      "UNKNOWN_DATABASE",
      "UNKNOWN_SETTING",
      "UNKNOWN_DIRECTION_OF_SORTING",
      "UNKNOWN_AGGREGATE_FUNCTION",
      "UNKNOWN_FORMAT",
      "UNKNOWN_DATABASE_ENGINE",
      "UNKNOWN_TYPE_OF_QUERY",
      "UNKNOWN_ROLE",
    ].map((t) => [t, 404]),
  ),
  QUERY_IS_TOO_LARGE: 413,
  NOT_IMPLEMENTED: 501,
  SOCKET_TIMEOUT: 503,
  CANNOT_OPEN_FILE: 503,
  CANNOT_SCHEDULE_TASK: 503,
  HTTP_LENGTH_REQUIRED: 411,
  TIMEOUT_EXCEEDED: 408,
  UNSUPPORTED_MEDIA_TYPE: 415,
};

/** Reads chDB's `Code: N. DB::Exception: message. (TYPE)`; anything else is a STD_EXCEPTION, as a server reports a foreign error. */
function toChError(error: unknown): ChError {
  if (error instanceof ChError) return error;
  const text = error instanceof Error ? error.message : String(error);
  const code = /^Code: (\d+)\./.exec(text);
  const type = /\(([A-Z0-9_]*[A-Z]{3}[A-Z0-9_]*)\)\s*$/.exec(text);
  if (!code || !type) return new ChError(1001, "STD_EXCEPTION", text);
  return new ChError(Number(code[1]), type[1]!, text.replace(/^Code: \d+\. DB::Exception: /, "").replace(/\.?\s*\([A-Z0-9_]+\)\s*$/, ""));
}

// Parameters the server's HTTP handler reads itself (HTTPHandler.cpp reserved_param_names) and
// ones this fixture reads: none of them is a setting.
const NOT_SETTINGS = new Set([
  "query",
  "database",
  "default_format",
  "query_id",
  "role",
  "compress",
  "decompress",
  "user",
  "password",
  "quota_key",
  "stacktrace",
  "buffer_size",
  "wait_end_of_query",
  "session_id",
  "session_timeout",
  "session_check",
  "client_protocol_version",
  "close_session",
]);

/** A ClickHouse string literal. */
const literal = (value: string) => `'${value.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;
/** A ClickHouse quoted identifier. */
const identifier = (name: string) => "`" + name.replace(/\\/g, "\\\\").replace(/`/g, "\\`") + "`";

function contentType(format: string): string {
  const f = format.toLowerCase();
  if (f.startsWith("tabseparated") || f.startsWith("tsv")) return "text/tab-separated-values; charset=UTF-8";
  if (f.startsWith("csv")) return `text/csv; charset=UTF-8; header=${f.includes("withnames") ? "present" : "absent"}`;
  if (f.startsWith("json")) return "application/json; charset=UTF-8";
  if (["native", "rowbinary", "parquet", "arrow", "arrowstream", "orc", "avro", "protobuf", "msgpack", "npy"].some((b) => f.startsWith(b)))
    return "application/octet-stream";
  return "text/plain; charset=UTF-8";
}

const DECODERS: Record<string, (data: Uint8Array) => Uint8Array> = {
  gzip: (d) => zlib.gunzipSync(d),
  "x-gzip": (d) => zlib.gunzipSync(d),
  deflate: (d) => zlib.inflateSync(d),
  br: (d) => zlib.brotliDecompressSync(d),
  zstd: (d) => Bun.zstdDecompressSync(d),
};

const ENCODERS: Record<string, (data: Uint8Array, level: number) => Uint8Array> = {
  gzip: (d, level) => zlib.gzipSync(d, { level }),
  deflate: (d, level) => zlib.deflateSync(d, { level }),
  br: (d) => zlib.brotliCompressSync(d),
  zstd: (d, level) => Bun.zstdCompressSync(d, { level }),
};

function decodeBody(body: Uint8Array, encoding: string | null): Uint8Array {
  const method = (encoding ?? "").trim().toLowerCase();
  if (method === "" || method === "identity" || method === "none") return body;
  const decode = DECODERS[method];
  if (!decode)
    throw new ChError(36, "BAD_ARGUMENTS", `Unknown compression method '${method}'. Only 'gzip', 'deflate', 'br', 'zstd' are supported by this test server`);
  try {
    return decode(body);
  } catch (error) {
    throw new ChError(354, "ZLIB_INFLATE_FAILED", `inflate failed: ${(error as Error).message}`);
  }
}

const MAX_FIELD_VALUE = 128 * 1024;

/** Only spaces, tabs and newlines: a body with no rows. */
const blank = (data: Uint8Array) => data.every((b) => b === 32 || b === 9 || b === 10 || b === 13);

const truthy = (value: string | null | undefined) => value !== null && value !== undefined && !["", "0", "false"].includes(value.toLowerCase());

interface Plan {
  queryId: string;
  readonly: boolean;
  database?: string;
  defaultFormat: string;
  settings: [string, string][];
  params: Record<string, string>;
  /** The whole statement, inline rows included (the generic path). */
  sql: string;
  shape: SqlShape;
  /** An INSERT whose rows are the request body, sent to the engine as bytes. */
  rows?: { statement: string; data: Uint8Array };
  compress?: { method: string; level: number };
}

interface Outcome {
  body: Uint8Array;
  format: string;
  summary: Record<string, string>;
}

/** Reads what a request asks for; throws a ChError where a server would answer with one. */
async function plan(req: Request, url: URL): Promise<Plan> {
  const params = new Map<string, string>();
  for (const [key, value] of url.searchParams) {
    // A server's http_max_field_value_size (128 KiB by default) holds for each URL parameter.
    if (value.length > MAX_FIELD_VALUE)
      throw new ChError(1000, "POCO_EXCEPTION", "Poco::Exception. Code: 1000, e.code() = 0, HTML Form Exception: Field value too long");
    params.set(key, value);
  }
  const raw = req.method === "POST" ? decodeBody(new Uint8Array(await req.arrayBuffer()), req.headers.get("content-encoding")) : new Uint8Array();
  let body = raw;
  if ((req.headers.get("content-type") ?? "").startsWith("multipart/form-data")) {
    // The client moves long `param_*` values here (use_multipart_params); external tables are not served.
    const form = await new Response(raw as BodyInit, { headers: { "content-type": req.headers.get("content-type")! } }).formData();
    for (const [key, value] of form) {
      if (typeof value !== "string" || (key !== "query" && !key.startsWith("param_")))
        throw new ChError(48, "NOT_IMPLEMENTED", `external data ("${key}") is not supported by this test server`);
      params.set(key, value);
    }
    body = new Uint8Array();
  }
  if (params.has("session_id")) throw new ChError(48, "NOT_IMPLEMENTED", "HTTP sessions (session_id) are not supported by this test server");
  if (truthy(params.get("compress")) || truthy(params.get("decompress")))
    throw new ChError(48, "NOT_IMPLEMENTED", "ClickHouse's own compression (compress/decompress) is not supported by this test server");

  const queryParams: Record<string, string> = {};
  const settings: [string, string][] = [];
  for (const [key, value] of params) {
    if (key.startsWith("param_")) queryParams[key.slice("param_".length)] = value;
    else if (key !== "" && !NOT_SETTINGS.has(key)) {
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key)) throw new ChError(115, "UNKNOWN_SETTING", `Unknown setting '${key}'`);
      settings.push([key, value]);
    }
  }

  const inUrl = params.get("query") ?? "";
  const bodyText = new TextDecoder().decode(body);
  const sql = inUrl && bodyText ? `${inUrl}\n${bodyText}` : inUrl || bodyText;
  if (sql.trim() === "") throw new ChError(62, "SYNTAX_ERROR", "Empty query");
  const shape = scanSql(sql);
  if (shape.secondAt >= 0)
    throw new ChError(
      62,
      "SYNTAX_ERROR",
      `Syntax error (Multi-statements are not allowed): failed at position ${shape.secondAt + 1} (end of query): ${sql.slice(shape.secondAt, shape.secondAt + 60)}`,
    );

  const urlShape = inUrl ? scanSql(inUrl) : undefined;
  const rowsInBody =
    urlShape?.input !== undefined && urlShape.input !== "Values" && inUrl.slice(urlShape.dataAt).trim() === "" && Object.keys(queryParams).length === 0;
  const accepts = (req.headers.get("accept-encoding") ?? "")
    .split(",")
    .map((e) => e.trim().split(";")[0]!.toLowerCase())
    .filter((e) => e in ENCODERS);
  const compress =
    truthy(params.get("enable_http_compression")) && accepts.length > 0
      ? { method: ["gzip", "deflate", "br", "zstd"].find((m) => accepts.includes(m))!, level: Number(params.get("http_zlib_compression_level") ?? 3) || 3 }
      : undefined;

  return {
    queryId: params.get("query_id") || req.headers.get("x-clickhouse-query-id") || crypto.randomUUID(),
    readonly: req.method === "GET" || req.method === "HEAD",
    database: req.headers.get("x-clickhouse-database") || params.get("database") || undefined,
    defaultFormat: req.headers.get("x-clickhouse-format") || params.get("default_format") || "TabSeparated",
    settings,
    params: queryParams,
    sql,
    shape,
    rows: rowsInBody ? { statement: inUrl.slice(0, urlShape!.dataAt), data: body } : undefined,
    compress,
  };
}

const summaryOf = (r: { read_rows?: number; read_bytes?: number; written_rows?: number; written_bytes?: number; elapsed?: number }) => ({
  read_rows: String(r.read_rows ?? 0),
  read_bytes: String(r.read_bytes ?? 0),
  written_rows: String(r.written_rows ?? 0),
  written_bytes: String(r.written_bytes ?? 0),
  total_rows_to_read: String(r.read_rows ?? 0),
  result_rows: String(r.written_rows ?? r.read_rows ?? 0),
  result_bytes: String(r.written_bytes ?? r.read_bytes ?? 0),
  elapsed_ns: String(Math.round((r.elapsed ?? 0) * 1e9)),
});

/**
 * Starts the fixture in this process, which must open no other chDB data directory; its
 * URLs are bounded by this process's --max-http-header-size (bun's default: 16 KiB).
 */
export async function startClickHouseHttp(opts: { path: string; port?: number; hostname?: string }): Promise<ClickHouseHttp> {
  const native = loadNative();
  // Held for the server's life: the engine stays loaded between requests' own connections.
  const keeper = new Session(opts.path);
  const run = async (connection: unknown, sql: string, format = "TabSeparated") => native.QueryAsyncConnection(connection, sql, format);
  const [version, timezone] = new TextDecoder()
    .decode((await run(keeper.connection, "SELECT version(), timezone()")).bytes)
    .trim()
    .split("\t");

  let tail: Promise<unknown> = Promise.resolve();
  /** One request at a time: chDB's query parameters are not kept apart between connections running at once (chdb/index.js says so). */
  const serial = <T>(job: () => Promise<T>): Promise<T> => {
    const result = tail.then(job, job);
    tail = result.catch(() => {});
    return result;
  };

  const execute = (p: Plan): Promise<Outcome> =>
    serial(async () => {
      const session = new Session(opts.path);
      try {
        const conn = session.connection;
        // clickhouse-local turns implicit_select on; a server does not run `1 + 1` as a query.
        const setup = ["SET implicit_select = 0"];
        if (p.database) setup.push(`USE ${identifier(p.database)}`);
        if (p.readonly) setup.push("SET readonly = 2");
        if (p.settings.length > 0) setup.push(`SET ${p.settings.map(([k, v]) => `${k} = ${literal(v)}`).join(", ")}`);
        await run(conn, setup.join("; "));
        // No rows after `FORMAT x` inserts nothing over HTTP; chDB alone would answer NO_DATA_TO_INSERT.
        const noRows = p.rows ? blank(p.rows.data) : p.shape.input !== undefined && p.shape.input !== "Values" && p.sql.slice(p.shape.dataAt).trim() === "";
        if (noRows) return { body: new Uint8Array(), format: p.defaultFormat, summary: summaryOf({}) };
        if (p.rows) {
          const r = await native.InsertRawAsyncConnection(conn, p.rows.statement, p.rows.data, true);
          return {
            body: new Uint8Array(),
            format: p.defaultFormat,
            summary: summaryOf({ written_rows: r.rowsWritten, written_bytes: r.bytesWritten, elapsed: r.elapsed }),
          };
        }
        const format = p.shape.insert ? p.defaultFormat : (p.shape.format ?? p.defaultFormat);
        const r = Object.keys(p.params).length > 0 ? await native.QueryAsyncConnection(conn, p.sql, format, p.params) : await run(conn, p.sql, format);
        return { body: r.bytes, format, summary: summaryOf({ read_rows: r.rowsRead, read_bytes: r.bytesRead, elapsed: r.elapsed }) };
      } finally {
        session.close();
      }
    });

  const respond = (status: number, body: Uint8Array | string, headers: Record<string, string>, compress?: Plan["compress"]) => {
    let bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
    if (compress) {
      bytes = ENCODERS[compress.method]!(bytes, compress.level);
      headers["Content-Encoding"] = compress.method;
    }
    return new Response(bytes as BodyInit, { status, headers: { "X-ClickHouse-Server-Display-Name": "chdb-test", ...headers } });
  };

  const fail = (error: unknown, queryId: string, compress?: Plan["compress"]) => {
    const e = toChError(error);
    return respond(
      STATUS_BY_ERROR[e.type] ?? 500,
      `Code: ${e.code}. DB::Exception: ${e.message}. (${e.type}) (version ${version})\n`,
      { "Content-Type": "text/plain; charset=UTF-8", "X-ClickHouse-Exception-Code": String(e.code), "X-ClickHouse-Query-Id": queryId },
      compress,
    );
  };

  const server = Bun.serve({
    hostname: opts.hostname ?? "127.0.0.1",
    port: opts.port ?? 0,
    // A queued request waits without a byte moving: never cut it off (the client has its own timeout).
    idleTimeout: 0,
    maxRequestBodySize: 1024 * 1024 * 1024,
    async fetch(req) {
      const url = new URL(req.url);
      const ok = () => new Response(req.method === "HEAD" ? null : "Ok.\n", { headers: { "Content-Type": "text/html; charset=UTF-8" } });
      if (url.pathname === "/ping" && (req.method === "GET" || req.method === "HEAD")) return ok();
      if (url.pathname !== "/")
        return new Response(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`, {
          status: 404,
          headers: { "Content-Type": "text/plain; charset=UTF-8" },
        });
      if (!["GET", "POST", "HEAD"].includes(req.method)) return new Response("", { status: 405 });
      if (req.method !== "POST" && !url.searchParams.has("query")) return ok();
      let p: Plan | undefined;
      try {
        p = await plan(req, url);
        const out = await execute(p);
        return respond(
          200,
          req.method === "HEAD" ? new Uint8Array() : out.body,
          {
            "Content-Type": contentType(out.format),
            "X-ClickHouse-Query-Id": p.queryId,
            "X-ClickHouse-Format": out.format,
            "X-ClickHouse-Timezone": timezone ?? "UTC",
            "X-ClickHouse-Summary": JSON.stringify(out.summary),
          },
          p.compress,
        );
      } catch (error) {
        return fail(error, p?.queryId ?? url.searchParams.get("query_id") ?? crypto.randomUUID(), p?.compress);
      }
    },
  });

  const port = server.port!;
  return {
    url: `http://${server.hostname}:${port}`,
    port,
    async stop() {
      await server.stop();
      await tail.catch(() => {});
      keeper.close();
    },
  };
}

/** The fixture in a child process on a free port (the usual way in tests: chDB allows one data directory per process). */
export async function spawnClickHouseHttp(opts: { path: string; port?: number; timeoutMs?: number }): Promise<ClickHouseHttp & { proc: Subprocess }> {
  const child = await spawnUntilReady(
    "the ClickHouse HTTP fixture",
    [process.execPath, ...BUN_FLAGS, import.meta.path, "--port", String(opts.port ?? 0), "--path", opts.path],
    /ClickHouse HTTP on (http:\/\/\S+:(\d+))\n/,
    opts.timeoutMs,
  );
  return { url: child.match[1]!, port: Number(child.match[2]), proc: child.proc, stop: child.stop };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const at = args.indexOf(`--${name}`);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const port = Number(arg("port") ?? 8123);
  const given = arg("path");
  const path = given ?? (await mkdtemp(join(tmpdir(), "frameline-clickhouse-http-")));
  const server = await startClickHouseHttp({ path, port });
  process.stdout.write(`${READY_LINE}${server.url}\n`);
  const shutdown = async () => {
    await server.stop();
    if (!given) await rm(path, { recursive: true, force: true });
    process.exit(0);
  };
  process.on("SIGTERM", shutdown);
  process.on("SIGINT", shutdown);
}
