/**
 * Pushes player files to the CDN targets (docs/api.md "Video settings" rules 7-8).
 * Content-hashed core files are immutable and pushed once per target. The
 * per-video entry sits at a stable key, so every deploy overwrites it: when a
 * target fails, the targets already written get their previous bytes back, so
 * the previous bundle keeps serving everywhere.
 */
import type { OutputFile } from "./build.ts";

/** Hashed names never change content: browsers and CDNs may keep them for a year. */
export const IMMUTABLE = "public, max-age=31536000, immutable";
/**
 * The stable per-video entry: a browser or CDN may use it half a minute, then uses
 * it while it revalidates (ETag) in the background, so a deploy shows within a
 * minute and a page view never waits on the origin for it.
 */
export const ENTRY_CACHE_CONTROL = "public, max-age=30, stale-while-revalidate=600";

/**
 * What the compiler needs of a CDN target: the server's PushTarget (fs or S3)
 * has these, and so may any store a caller brings.
 */
export interface PushTarget {
  put(key: string, body: Uint8Array, opts?: { cacheControl?: string }): Promise<unknown>;
  get(key: string): Promise<{ body: ReadableStream<Uint8Array> } | undefined>;
  head(key: string): Promise<unknown>;
  delete(key: string): Promise<void>;
}

export interface EntryPush {
  /** Puts the previous entry back on every target (after a later step failed). */
  rollback(): Promise<void>;
}

const pushed = new WeakMap<PushTarget, Set<string>>();

/** Puts each hashed file on each target unless this process knows it is there already. */
export async function pushImmutable(targets: PushTarget[], files: OutputFile[]): Promise<void> {
  await Promise.all(
    targets.flatMap((target) => {
      let known = pushed.get(target);
      if (!known) pushed.set(target, (known = new Set()));
      const seen = known;
      return files.map(async (file) => {
        if (seen.has(file.key)) return;
        if (!(await target.head(file.key))) await target.put(file.key, file.bytes, { cacheControl: IMMUTABLE });
        seen.add(file.key);
      });
    }),
  );
}

async function readAll(target: PushTarget, key: string): Promise<Uint8Array | undefined> {
  const object = await target.get(key);
  return object ? new Uint8Array(await new Response(object.body).arrayBuffer()) : undefined;
}

async function restore(target: PushTarget, key: string, previous: Uint8Array | undefined): Promise<void> {
  if (previous) await target.put(key, previous, { cacheControl: ENTRY_CACHE_CONTROL });
  else await target.delete(key);
}

/**
 * Overwrites the entry on every target. All or nothing: on any failure the
 * written targets are restored and the first error is thrown.
 */
export async function pushEntry(targets: PushTarget[], key: string, bytes: Uint8Array): Promise<EntryPush> {
  // Reading the previous bytes first is what makes the rollback possible; an
  // unreadable target is itself a failed push.
  const previous = await Promise.all(targets.map((t) => readAll(t, key)));
  const results = await Promise.allSettled(targets.map((t) => t.put(key, bytes, { cacheControl: ENTRY_CACHE_CONTROL })));
  const rollback = async () => {
    await Promise.allSettled(targets.map((t, i) => (results[i]!.status === "fulfilled" ? restore(t, key, previous[i]) : undefined)));
  };
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) {
    await rollback();
    throw failed.reason;
  }
  return { rollback };
}
