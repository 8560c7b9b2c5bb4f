/**
 * What this process knows of the player entries it serves (`p/<code>.js` on CDN
 * target A): their validators and headers, so a browser's revalidation (a 304) is
 * answered without reading the bucket. Only a cache: a deploy evicts its entry
 * here at once and, on a PostgreSQL server, in every other process through a
 * NOTIFY (`listenForEntryChanges`); entries also expire after `ttlMs` in case a
 * notice is lost.
 *
 * A notice reaches other processes a few milliseconds after the deploy's commit,
 * often after the deploy has answered, so a validator is confirmed before it
 * answers a 304 (`confirm`): a deploy that has answered is never revalidated as
 * the bundle it replaced, whichever process is asked (docs/architecture.md "One
 * process or many").
 */
import type { Log } from "../log.ts";
import { connectListener, type Sql } from "./postgres.ts";

export interface EntryMeta {
  etag: string;
  contentType: string;
  cacheControl: string;
  size: number;
  lastModified?: Date;
}

export const ENTRY_CHANGED_CHANNEL = "frameline_entry_changed";

export class EntryCache {
  private readonly entries = new Map<string, { meta: EntryMeta; at: number }>();

  private evictions = 0;
  /** Resolves once every change committed before the call has been heard; one process alone hears its own at once. */
  private heardAll: () => Promise<void> = () => Promise.resolve();

  constructor(
    private readonly ttlMs = 60_000,
    private readonly now: () => number = Date.now,
    private readonly maxEntries = 10_000,
  ) {}

  /** How this process hears other processes' changes (set by `listenForEntryChanges`). */
  hearChangesThrough(heardAll: () => Promise<void>): void {
    this.heardAll = heardAll;
  }

  /**
   * True when `meta`, found for `key`, is still the live entry's: this process has heard
   * every change committed before the call and `meta` was not dropped. False, too, when
   * the changes cannot be heard now (the bucket answers then).
   */
  async confirm(key: string, meta: EntryMeta): Promise<boolean> {
    try {
      await this.heardAll();
    } catch {
      return false;
    }
    return this.get(key) === meta;
  }

  get(key: string): EntryMeta | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.meta;
  }

  /** Counts evictions: a validator read from the bucket before the latest one may be the replaced entry's. */
  generation(): number {
    return this.evictions;
  }

  /** Keeps `meta`, read from the bucket when `generation()` was `since`, unless a change was heard meanwhile. */
  set(key: string, meta: EntryMeta, since = this.evictions): void {
    if (since !== this.evictions) return;
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { meta, at: this.now() });
  }

  evict(key: string): void {
    this.entries.delete(key);
    this.evictions++;
  }

  clear(): void {
    this.entries.clear();
    this.evictions++;
  }
}

/**
 * A new entry is live (or the previous one is back): this process and, on a shared
 * database, every other one drop the validator they kept. It names the fields of
 * Deps it uses: deps.ts imports this file, and no import goes back.
 */
export async function entryChanged(deps: { entries: EntryCache; sql: Sql; embedded: boolean; log: Log }, key: string): Promise<void> {
  deps.entries.evict(key);
  if (deps.embedded) return;
  await deps.sql`SELECT pg_notify(${ENTRY_CHANGED_CHANNEL}, ${key})`.catch((error) =>
    deps.log.warn("entry change notice failed", { key, error: String(error) }),
  );
}

/**
 * Hears entry changes from every process on a PostgreSQL session of its own. PostgreSQL
 * sends a listening session the notifications committed before a command ahead of that
 * command's answer, so one `SELECT 1` on the same session proves every change committed
 * before it was sent has been heard: `confirm` waits for one, shared by the revalidations
 * that arrive meanwhile (a round trip to PostgreSQL, never a bucket read).
 */
export async function listenForEntryChanges(url: string, entries: EntryCache): Promise<() => Promise<void>> {
  let listening: Promise<unknown> | undefined;
  const session = connectListener(url, {
    notify: (channel, key) => {
      if (channel === ENTRY_CHANGED_CHANNEL) entries.evict(key);
    },
    // The session and its LISTEN are gone: changes go unheard until the next use listens again.
    closed: () => {
      listening = undefined;
      entries.clear();
    },
  });
  const listen = () =>
    (listening ??= session.unsafe(`LISTEN ${ENTRY_CHANGED_CHANNEL}`).then(
      // What was kept while no one listened may have been replaced meanwhile.
      () => entries.clear(),
      (error) => {
        listening = undefined;
        throw error;
      },
    ));
  await listen();
  // One round trip at a time: callers that arrive while one is on its way share the next,
  // which is sent after it, so after each of them arrived.
  let sending: Promise<void> | undefined;
  let waiting: Promise<void> | undefined;
  const send = () => {
    const round = listen().then(() => session`SELECT 1`.then(() => {}));
    sending = round;
    round
      .finally(() => {
        if (sending === round) sending = undefined;
      })
      .catch(() => {});
    return round;
  };
  entries.hearChangesThrough(() => {
    if (!sending) return send();
    return (waiting ??= sending
      .catch(() => {})
      .then(() => {
        waiting = undefined;
        return send();
      }));
  });
  return async () => {
    entries.hearChangesThrough(() => Promise.resolve());
    await session.end({ timeout: 5 });
  };
}
