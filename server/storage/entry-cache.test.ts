import { afterAll, describe, expect, test } from "bun:test";
import { serverDatabase } from "../../test/helpers/engines.ts";
import { ENTRY_CHANGED_CHANNEL, EntryCache, type EntryMeta, listenForEntryChanges } from "./entry-cache.ts";
import { connectPostgres } from "./postgres.ts";

const meta = (etag: string): EntryMeta => ({ etag, contentType: "text/javascript", cacheControl: "public, max-age=30", size: 10 });

describe("EntryCache.confirm", () => {
  test("a kept validator is confirmed once the changes are heard; one dropped meanwhile, or when they cannot be heard, is not", async () => {
    const entries = new EntryCache();
    const kept = meta('"a"');
    entries.set("p/x.js", kept);
    expect(await entries.confirm("p/x.js", kept)).toBe(true);

    // A change another process committed, heard while confirming.
    entries.hearChangesThrough(async () => entries.evict("p/x.js"));
    expect(await entries.confirm("p/x.js", kept)).toBe(false);

    entries.set("p/x.js", kept);
    entries.hearChangesThrough(() => Promise.reject(new Error("PostgreSQL is down")));
    expect(await entries.confirm("p/x.js", kept)).toBe(false);
  });
});

describe("EntryCache.set", () => {
  test("a validator read before a change was heard is not kept: the read may have returned the replaced entry", () => {
    const entries = new EntryCache();
    const since = entries.generation();
    entries.evict("p/x.js");
    entries.set("p/x.js", meta('"old"'), since);
    expect(entries.get("p/x.js")).toBeUndefined();
    entries.set("p/x.js", meta('"new"'), entries.generation());
    expect(entries.get("p/x.js")?.etag).toBe('"new"');
  });
});

const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => {});
});

describe.skipIf(!process.env.DATABASE_URL)("listenForEntryChanges on a PostgreSQL server", () => {
  test("a change committed elsewhere before a revalidation is always heard first", async () => {
    const db = await serverDatabase(process.env.DATABASE_URL!);
    cleanups.push(db.drop);
    const entries = new EntryCache();
    const stop = await listenForEntryChanges(db.url, entries);
    cleanups.push(stop);
    const other = connectPostgres(db.url, { max: 1 });
    cleanups.push(() => other.end({ timeout: 5 }));
    // Without the confirmation most of these were answered from the replaced validator:
    // the notice arrives a few milliseconds after the commit.
    for (let i = 0; i < 200; i++) {
      const key = `p/v${i}.js`;
      const kept = meta(`"${i}"`);
      entries.set(key, kept);
      expect(await entries.confirm(key, kept)).toBe(true);
      await other`SELECT pg_notify(${ENTRY_CHANGED_CHANNEL}, ${key})`;
      expect(await entries.confirm(key, kept)).toBe(false);
    }
  }, 60_000);
});
