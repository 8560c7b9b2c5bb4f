/**
 * docs/api.md "Uploads": `POST /videos/{video}/upload`, one multipart request whose
 * `file` part streams straight to the private store (never buffered), then the
 * same acceptance as a resumable complete.
 */
import busboy from "busboy";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import type { BlobStore } from "../../storage/blob/index.ts";
import { wakeEncoder } from "../../domains/encoding/service.ts";
import { privateBlob, sourceKey } from "../../storage/media-keys.ts";
import { sniffContainer, SNIFF_BYTES } from "../../domains/encoding/sniff.ts";
import type { VideoRow } from "../videos/repo.ts";
import { ORIENTATIONS, type OrientationName } from "./model.ts";
import { accept, assertRoom, findVideoOr404 } from "./service.ts";
import { newUploadId } from "./upload-id.ts";

export interface SingleShotInput {
  contentType: string | null;
  contentLength: number | undefined;
  body: ReadableStream<Uint8Array> | null;
}

/** docs/api.md "Uploads": `POST /videos/{video}/upload`, multipart, streamed to storage. */
export async function singleShotUpload(deps: Deps, workspaceId: number, videoId: number | undefined, input: SingleShotInput): Promise<VideoRow> {
  const max = deps.config.media.singleUploadMaxBytes;
  // Rule 4: refused before the body is read.
  if (input.contentLength !== undefined && input.contentLength > max) throw Errors.payloadTooLarge(max);
  await findVideoOr404(deps, workspaceId, videoId);
  if (input.contentLength !== undefined) await assertRoom(deps, input.contentLength);
  if (!input.body || !/^multipart\/form-data/i.test(input.contentType ?? ""))
    throw validation({ file: ["The file field is required (send multipart/form-data)."] });

  const uploadId = newUploadId();
  const key = sourceKey(uploadId);
  const blob = privateBlob(deps.blobs, key);
  const parsed = await parseMultipart(blob.store, input.contentType!, input.body, blob.key, max);
  try {
    if (!parsed.file) throw validation({ file: ["The file field is required."] });
    const orientation = parsed.orientation ?? "landscape";
    if (!(ORIENTATIONS as readonly string[]).includes(orientation)) throw validation({ orientation: ["The orientation must be landscape or portrait."] });
    if (!sniffContainer(parsed.file.head)) throw Errors.unsupportedMediaType();
    const file = parsed.file;
    const video = await deps.sql.begin((tx) =>
      accept(tx, {
        workspaceId,
        videoId: videoId!,
        orientation: orientation as OrientationName,
        sourceKey: key,
        size: file.size,
        filename: file.filename,
        uploadId,
      }),
    );
    deps.videoCache.evict(video.id);
    wakeEncoder(deps);
    return video;
  } catch (error) {
    await blob.store.delete(blob.key).catch(() => {});
    throw error;
  }
}

export interface ParsedMultipart {
  file?: { size: number; head: Uint8Array; filename: string };
  orientation?: string;
}

/** busboy over the request stream; the `file` part goes straight to the blob store under `key`. */
export function parseMultipart(store: BlobStore, contentType: string, body: ReadableStream<Uint8Array>, key: string, max: number): Promise<ParsedMultipart> {
  return new Promise((resolve, reject) => {
    const result: ParsedMultipart = {};
    let stored: Promise<void> | undefined;
    let failed = false;
    const fail = (error: unknown) => {
      if (failed) return;
      failed = true;
      input.unpipe();
      input.destroy();
      parser.destroy();
      reject(error);
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { "content-type": contentType }, limits: { files: 1, fields: 20, fieldSize: 64 * 1024, fileSize: max } });
    } catch {
      return reject(validation({ file: ["The file field is required (the multipart body could not be read)."] }));
    }
    // Web streams have a DOM typing and a Node one; the runtime object is the same (here and below).
    const input = Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>);
    parser.on("file", (name, stream, info) => {
      if (name !== "file" || stored) return void stream.resume();
      const head = new Uint8Array(SNIFF_BYTES);
      let size = 0;
      // Oversize streams are cut off (issue: "oversize streams are cut off").
      stream.on("limit", () => {
        const error = Errors.payloadTooLarge(max);
        stream.destroy(error);
        fail(error);
      });
      const counted = (Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>).pipeThrough(
        new TransformStream<Uint8Array, Uint8Array>({
          transform(chunk, controller) {
            if (size < SNIFF_BYTES) head.set(chunk.subarray(0, SNIFF_BYTES - size), size);
            size += chunk.byteLength;
            controller.enqueue(chunk);
          },
        }),
      );
      stored = store.put(key, counted, { contentType: "application/octet-stream" }).then(() => {
        result.file = { size, head: head.subarray(0, Math.min(size, SNIFF_BYTES)), filename: info.filename ?? "upload" };
      });
      stored.catch(fail);
    });
    parser.on("field", (name, value) => {
      if (name === "orientation") result.orientation = value;
    });
    parser.on("error", (error) => fail(validation({ file: [`The multipart body could not be read: ${(error as Error).message}.`] })));
    input.on("error", fail);
    parser.on("close", () => {
      (stored ?? Promise.resolve()).then(() => !failed && resolve(result), fail);
    });
    input.pipe(parser);
  });
}
