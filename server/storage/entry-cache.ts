/**
 * What this process knows of the player entries it serves (`p/<code>.js` on CDN
 * target A): their validators and headers, so a browser's revalidation (a 304) is
 * answered without reading the bucket. Only a cache: a deploy evicts its entry
 * here at once and, on a PostgreSQL server, in every other process through a
 * NOTIFY (runtime.ts); entries also expire after `ttlMs` in case a notice is lost.
 */
export interface EntryMeta {
  etag: string;
  contentType: string;
  cacheControl: string;
  size: number;
  lastModified?: Date;
}

import type { Log } from "../log.ts";
import type { Sql } from "./postgres.ts";

export const ENTRY_CHANGED_CHANNEL = "frameline_entry_changed";

export class EntryCache {
  private readonly entries = new Map<string, { meta: EntryMeta; at: number }>();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  get(key: string): EntryMeta | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.meta;
  }

  set(key: string, meta: EntryMeta): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { meta, at: this.now() });
  }

  evict(key: string): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}

/**
 * A new entry is live (or the previous one is back): this process and, on a shared
 * database, every other one drop the validator they kept.
 */
export async function entryChanged(deps: { entries: EntryCache; sql: Sql; embedded: boolean; log: Log }, key: string): Promise<void> {
  deps.entries.evict(key);
  if (deps.embedded) return;
  await deps.sql`SELECT pg_notify(${ENTRY_CHANGED_CHANNEL}, ${key})`.catch((error) =>
    deps.log.warn("entry change notice failed", { key, error: String(error) }),
  );
}
