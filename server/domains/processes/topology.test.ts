import { describe, expect, test } from "bun:test";
import { type ProcessInfo, splitTruth } from "./topology.ts";

const shared = { postgres: "server", clickhouse: "server http://ch:8123/", media: "s3 http://minio:9000/frameline" };
const app = (id: string, over: Partial<ProcessInfo> = {}): ProcessInfo => ({
  id,
  role: "app",
  host: `host-${id}`,
  engines: { ...shared },
  public_url: "https://video.example.com",
  ...over,
});

describe("splitTruth", () => {
  test("apps and a worker on the same engines and PUBLIC_URL start", () => {
    const others = [app("a"), app("w", { role: "worker", public_url: null })];
    expect(splitTruth(app("b"), others)).toBeUndefined();
    expect(splitTruth(app("w", { role: "worker", public_url: null }), [app("a"), app("b")])).toBeUndefined();
  });

  test("embedded PostgreSQL is one process by construction: nothing to compare", () => {
    const alone = app("a", { engines: { postgres: "embedded", clickhouse: "embedded h:/data/clickhouse", media: "fs h:/data/media" }, public_url: null });
    expect(splitTruth(alone, [])).toBeUndefined();
  });

  test("one process on a PostgreSQL server may keep embedded chDB and files, until a second one comes", () => {
    const single = app("a", { engines: { postgres: "server", clickhouse: "embedded h:/data/clickhouse", media: "fs h:/data/media" }, public_url: null });
    expect(splitTruth(single, [])).toBeUndefined();
    expect(splitTruth(single, [app("b")])).toContain("set CLICKHOUSE_URL to the ClickHouse server they use (server http://ch:8123/)");
  });

  test("a worker must share ClickHouse and the media store even when it starts first", () => {
    expect(splitTruth(app("w", { role: "worker", engines: { ...shared, clickhouse: "embedded h:/d/clickhouse" } }), [])).toContain("CLICKHOUSE_URL");
    expect(splitTruth(app("w", { role: "worker", engines: { ...shared, media: "fs h:/d/media" } }), [])).toContain("S3_BUCKET");
  });

  test("another ClickHouse server than the others' is refused, naming both", () => {
    const reason = splitTruth(app("b", { engines: { ...shared, clickhouse: "server http://other:8123/" } }), [app("a")]);
    expect(reason).toContain("http://other:8123/");
    expect(reason).toContain("http://ch:8123/");
  });

  test("the same ClickHouse with and without a cluster is another ClickHouse", () => {
    expect(splitTruth(app("b", { engines: { ...shared, clickhouse: "server http://ch:8123/ cluster main" } }), [app("a")])).toContain(
      "same CLICKHOUSE_URL (and CLICKHOUSE_CLUSTER)",
    );
  });

  test("the filesystem store with a second process, or another bucket, is refused", () => {
    expect(splitTruth(app("b", { engines: { ...shared, media: "fs h:/d/media" } }), [app("a")])).toContain("S3_BUCKET");
    expect(splitTruth(app("b", { engines: { ...shared, media: "s3 http://minio:9000/other" } }), [app("a")])).toContain("same S3_* settings");
  });

  test("an app without PUBLIC_URL, or with another one, is refused beside other apps; a worker needs none", () => {
    expect(splitTruth(app("b", { public_url: null }), [app("a")])).toContain("set PUBLIC_URL");
    expect(splitTruth(app("b", { public_url: "https://old.example.com" }), [app("a")])).toContain("same PUBLIC_URL");
    expect(splitTruth(app("w", { role: "worker", public_url: null }), [app("a")])).toBeUndefined();
  });

  test("its own row is no peer", () => {
    const me = app("a", { engines: { ...shared, media: "fs h:/d/media" } });
    expect(splitTruth(me, [me])).toBeUndefined();
  });
});
