/**
 * The ClickHouse HTTP fixture (test/helpers/clickhouse-http.ts) answers as a server
 * does where the suite relies on it: the client's calls, parameters parsed as a
 * server parses them, errors with their status and code, settings per request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type ClickHouseClient, ClickHouseLogLevel, createClient } from "@clickhouse/client";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClickHouseHttp, spawnClickHouseHttp } from "../helpers/clickhouse-http.ts";

let fixture: ClickHouseHttp;
let dir: string;
let ch: ClickHouseClient;
/** The errors asked for here are not worth the client's log lines. */
const quiet = { log: { level: ClickHouseLogLevel.OFF } };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "frameline-ch-http-"));
  fixture = await spawnClickHouseHttp({ path: join(dir, "clickhouse") });
  ch = createClient({ url: fixture.url, ...quiet });
  await ch.command({ query: "CREATE TABLE t (id UInt32, s String, at DateTime64(3, 'UTC')) ENGINE = MergeTree ORDER BY id" });
}, 60_000);

afterAll(async () => {
  await ch?.close();
  await fixture?.stop();
  await rm(dir, { recursive: true, force: true });
});

const rows = async (query: string, query_params?: Record<string, unknown>, client = ch) =>
  (await client.query({ query, query_params, format: "JSONEachRow" })).json<Record<string, unknown>>();
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: { code?: string; type?: string }) => ({ code: e.code, type: e.type }),
  );

describe("ClickHouse HTTP fixture", () => {
  test("answers /ping and / with Ok.", async () => {
    for (const path of ["/ping", "/"]) expect(await (await fetch(fixture.url + path)).text()).toBe("Ok.\n");
    expect(await ch.ping()).toEqual({ success: true });
  });

  test("query parameters reach the engine as a server reads them: quotes, backslashes, tabs, arrays, maps, NULL, dates", async () => {
    const [row] = await rows("SELECT {s:String} AS s, {a:Array(String)} AS a, {m:Map(String, String)} AS m, {n:Nullable(UInt8)} AS n, {d:DateTime64(3)} AS d", {
      s: "it's a \\ and\ta\nline",
      a: ["it's", "back\\slash"],
      m: { "k'": "v'" },
      n: null,
      d: new Date("2026-11-01T10:00:00.123Z"),
    });
    expect(row).toEqual({ s: "it's a \\ and\ta\nline", a: ["it's", "back\\slash"], m: { "k'": "v'" }, n: null, d: "2026-11-01 10:00:00.123" });
  });

  test("inserts rows from the body, plain and gzipped, and reports them written", async () => {
    const inserted = await ch.insert({ table: "t", values: [{ id: 1, s: "a;b", at: "2026-11-01 10:00:00" }], format: "JSONEachRow" });
    expect(inserted.summary?.written_rows).toBe("1");
    const gz = createClient({ url: fixture.url, compression: { request: true, response: true }, ...quiet });
    await gz.insert({ table: "t", values: [{ id: 2, s: "gz", at: "2026-11-01 10:00:01" }], format: "JSONEachRow" });
    const result = await gz.query({ query: "SELECT id, s FROM t ORDER BY id", format: "JSONEachRow" });
    expect(result.response_headers["content-encoding"]).toBe("gzip");
    expect(await result.json()).toEqual([
      { id: 1, s: "a;b" },
      { id: 2, s: "gz" },
    ]);
    await gz.close();
    const empty = await fetch(`${fixture.url}/?query=${encodeURIComponent("INSERT INTO t FORMAT JSONEachRow")}`, { method: "POST", body: "" });
    expect(empty.status).toBe(200);
  });

  test("errors carry the server's status, X-ClickHouse-Exception-Code and a Code: N body; the client reads them", async () => {
    const unknown = await fetch(`${fixture.url}/?query=${encodeURIComponent("SELECT * FROM nope")}`);
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-clickhouse-exception-code")).toBe("60");
    expect(await unknown.text()).toStartWith("Code: 60. DB::Exception: ");
    expect(await failure(ch.query({ query: "SELECT * FROM nope" }))).toEqual({ code: "60", type: "UNKNOWN_TABLE" });
    expect(await failure(ch.query({ query: "SELECT {x:UInt8}", query_params: { x: "abc" } }))).toEqual({ code: "457", type: "BAD_QUERY_PARAMETER" });
    expect(await failure(ch.query({ query: "SELECT length({x:String})", query_params: { x: "x".repeat(130 * 1024) } }))).toEqual({
      code: "1000",
      type: "POCO_EXCEPTION",
    });
    expect(await failure(ch.command({ query: "SELECT 1; SELECT 2" }))).toEqual({ code: "62", type: "SYNTAX_ERROR" });
    expect(await failure(ch.query({ query: "SELECT 1", clickhouse_settings: { no_such_setting: 1 } as never }))).toEqual({
      code: "115",
      type: "UNKNOWN_SETTING",
    });
    const write = await fetch(`${fixture.url}/?query=${encodeURIComponent("CREATE TABLE u (a UInt8) ENGINE = Memory")}`);
    expect([write.status, write.headers.get("x-clickhouse-exception-code")]).toEqual([500, "164"]);
  });

  test("settings and the database apply to their own request only", async () => {
    const tuned = createClient({ url: fixture.url, clickhouse_settings: { max_threads: 1, output_format_json_quote_64bit_integers: 1 } });
    expect(await rows("SELECT toString(getSetting('max_threads')) AS t, toUInt64(7) AS n", undefined, tuned)).toEqual([{ t: "1", n: "7" }]);
    await tuned.close();
    expect(await rows("SELECT toUInt64(7) AS n")).toEqual([{ n: 7 }]);
    await ch.command({ query: "CREATE DATABASE other" });
    const other = createClient({ url: `${fixture.url}/other`, ...quiet });
    expect(await rows("SELECT currentDatabase() AS d", undefined, other)).toEqual([{ d: "other" }]);
    expect(await rows("SELECT currentDatabase() AS d")).toEqual([{ d: "default" }]);
    await other.close();
    const missing = createClient({ url: fixture.url, database: "missing", ...quiet });
    expect(await failure(missing.query({ query: "SELECT 1" }))).toEqual({ code: "81", type: "UNKNOWN_DATABASE" });
    await missing.close();
  });

  test("names the query and the format it answers in", async () => {
    const result = await ch.exec({ query: "SELECT 1 AS x FORMAT CSVWithNames", query_id: "fixture-q1" });
    expect(await new Response(result.stream as unknown as ReadableStream).text()).toBe('"x"\n1\n');
    expect(result.response_headers["x-clickhouse-query-id"]).toBe("fixture-q1");
    expect(result.response_headers["x-clickhouse-format"]).toBe("CSVWithNames");
  });

  test("concurrent requests queue and each gets its own answer", async () => {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => rows("SELECT {i:UInt32} AS i", { i })));
    expect(answers.map((r) => r[0]!.i)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });
});
