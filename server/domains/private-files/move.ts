/**
 * Moves one source or export file from its key of before the private store to the
 * private store (0022_private_files.sql). Copy, then point the rows, then delete: each
 * step can run twice, and two workers moving one key copy the same bytes (a put is
 * atomic), so a job taken over half-way, or run again, ends in the same place. A reader
 * holding the old key meanwhile finds the file where it went (media-keys.ts `getPrivate`).
 */
import type { Deps } from "../../deps.ts";
import { movedKey, privateBlob } from "../../storage/media-keys.ts";
import * as repo from "./repo.ts";

export async function moveToPrivate(deps: Pick<Deps, "blobs" | "sql">, old: string): Promise<void> {
  const to = movedKey(old);
  const dest = privateBlob(deps.blobs, to);
  if (!(await dest.store.head(dest.key))) {
    const object = await deps.blobs.media.get(old);
    // A file already gone (deleted, or lost) has nothing to copy; its rows still follow.
    if (object) await dest.store.put(dest.key, object.body, { size: object.size, contentType: object.contentType, cacheControl: object.cacheControl });
  }
  await repo.pointAt(deps.sql, old, to);
  await deps.blobs.media.delete(old);
}
