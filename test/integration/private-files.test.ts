/**
 * PostgreSQL migration 0022: sources and export files written before the private
 * store are moved into it by the private mover, on fs and on S3 (s3rver). The move
 * can run again, and from two processes at once, and ends the same.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { testApp, type TestApp, type TestWorkspace } from "../helpers/app.ts";
import { startS3rver, type S3rverHandle } from "../helpers/s3rver.ts";
import { createS3BlobStore } from "../../server/storage/blob/index.ts";
import { getPrivate, PRIVATE_PREFIX } from "../../server/storage/media-keys.ts";
import { moveToPrivate } from "../../server/domains/private-files/move.ts";
import { runNextPrivateMove } from "../../server/workers/private-mover.ts";

setDefaultTimeout(60_000);

const text = async (object: { body: ReadableStream } | undefined) => (object ? new Response(object.body).text() : undefined);

describe.each(["fs", "s3"] as const)("the private mover (%s)", (kind) => {
  let a: TestApp;
  let b: TestApp;
  let ws: TestWorkspace;
  let s3: S3rverHandle | undefined;

  beforeAll(async () => {
    a = await testApp();
    if (kind === "s3") {
      s3 = await startS3rver();
      await s3.createBucket("frameline-moves");
      a.deps.blobs.media = createS3BlobStore({ bucket: "frameline-moves", prefix: "media/", client: s3.client });
      a.deps.blobs.private = createS3BlobStore({ bucket: "frameline-moves", prefix: PRIVATE_PREFIX, client: s3.client });
    }
    // A second process over the same database and stores.
    b = await testApp({ media: a.deps.blobs.media, private: a.deps.blobs.private });
    ws = await a.workspace();
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
  });

  /** An encode job and an export as a version before 0022 wrote them, with their files in the media store. */
  async function legacyRows() {
    const video = await a.createVideo(ws);
    const id = `flup_${crypto.randomUUID().replaceAll("-", "")}`;
    const source = `uploads/${id}/source`;
    await a.deps.blobs.media.put(source, `source of ${id}`);
    await a.deps.sql`INSERT INTO encode_jobs (workspace_id, video_id, orientation, source_key, size, state)
                     VALUES (${ws.id}, ${video.id}, 'landscape', ${source}, 10, 'done')`;
    await a.deps
      .sql`INSERT INTO upload_sessions (id, workspace_id, video_id, orientation, filename, mime_type, size, chunk_size, blob_key, blob_handle, state, expires_at)
                     VALUES (${id}, ${ws.id}, ${video.id}, 'landscape', 'a.mp4', 'video/mp4', 10, 8388608, ${source}, 'h', 'completed', now())`;
    const publicId = `flex_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
    const file = `exports/${ws.id}/${publicId}.csv`;
    await a.deps.blobs.media.put(file, "a,b\r\n1,2\r\n", { contentType: "text/csv; charset=utf-8" });
    await a.deps
      .sql`INSERT INTO exports (public_id, workspace_id, type, format, video_ids, video_codes, date_from, date_to, status, blob_key, row_count, byte_size, expires_at)
                     VALUES (${publicId}, ${ws.id}, 'summary', 'csv', ${[video.id]}, ${[video.code]}, '2026-11-01', '2026-11-02', 'ready', ${file}, 1, 10, now() + interval '1 day')`;
    return { id, source, publicId, file, videoId: video.id };
  }

  const queueMove = () => a.deps.sql`UPDATE private_moves SET state = 'queued', attempts = 0, locked_by = NULL, locked_until = NULL`;

  test("moves objects and keys; a reader holding an old key still finds the file; a second run changes nothing", async () => {
    const rows = await legacyRows();
    // Before the move the old keys are read where they are.
    expect(await text(await getPrivate(a.deps.blobs, rows.source))).toBe(`source of ${rows.id}`);
    await queueMove();
    // Two processes at once: one claims the job, the other finds nothing due.
    const claimed = await Promise.all([runNextPrivateMove(a.deps), runNextPrivateMove(b.deps)]);
    expect(claimed.filter(Boolean)).toHaveLength(1);

    const newSource = `private/sources/${rows.id}/source`;
    const newFile = `private/exports/${ws.id}/${rows.publicId}.csv`;
    expect([...(await a.deps.sql`SELECT source_key FROM encode_jobs WHERE video_id = ${rows.videoId}`)]).toEqual([{ source_key: newSource }]);
    expect([...(await a.deps.sql`SELECT blob_key FROM upload_sessions WHERE id = ${rows.id}`)]).toEqual([{ blob_key: newSource }]);
    expect([...(await a.deps.sql`SELECT blob_key FROM exports WHERE public_id = ${rows.publicId}`)]).toEqual([{ blob_key: newFile }]);
    expect(await a.deps.blobs.media.head(rows.source)).toBeUndefined();
    expect(await a.deps.blobs.media.head(rows.file)).toBeUndefined();
    expect(await text(await a.deps.blobs.private.get(`sources/${rows.id}/source`))).toBe(`source of ${rows.id}`);
    expect(await text(await getPrivate(a.deps.blobs, rows.source))).toBe(`source of ${rows.id}`);
    const download = await a.call("GET", `/api/v1/exports/${rows.publicId}/download`, { token: ws.token });
    expect(download.status).toBe(200);
    expect(download.text).toBe("a,b\r\n1,2\r\n");
    expect([...(await a.deps.sql`SELECT state, moved >= 2 AS moved FROM private_moves`)]).toEqual([{ state: "done", moved: true }]);

    await queueMove();
    expect(await runNextPrivateMove(b.deps)).toBe(true);
    expect([...(await a.deps.sql`SELECT source_key FROM encode_jobs WHERE video_id = ${rows.videoId}`)]).toEqual([{ source_key: newSource }]);
    expect(await text(await getPrivate(a.deps.blobs, newSource))).toBe(`source of ${rows.id}`);
  });

  test("one key moved by two workers at once ends in one place with its bytes", async () => {
    const rows = await legacyRows();
    await Promise.all([
      moveToPrivate(a.deps, rows.source),
      moveToPrivate(b.deps, rows.source),
      moveToPrivate(a.deps, rows.file),
      moveToPrivate(b.deps, rows.file),
    ]);
    expect(await text(await getPrivate(a.deps.blobs, `private/sources/${rows.id}/source`))).toBe(`source of ${rows.id}`);
    expect(await text(await getPrivate(a.deps.blobs, `private/exports/${ws.id}/${rows.publicId}.csv`))).toBe("a,b\r\n1,2\r\n");
    expect(await a.deps.blobs.media.head(rows.source)).toBeUndefined();
    // A move of a key already moved (its old object gone) only points rows again.
    await moveToPrivate(a.deps, rows.source);
    expect(await text(await getPrivate(a.deps.blobs, `private/sources/${rows.id}/source`))).toBe(`source of ${rows.id}`);
  });
});
