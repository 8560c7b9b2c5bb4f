/**
 * Resumable upload (SPEC.md "Uploads"): init, then chunks of the server's
 * `chunk_size` sent with `Upload-Offset`, then complete. The upload id is kept
 * per file fingerprint in localStorage, so choosing the same file again after
 * a reload or a dropped connection continues from the server's offset.
 */
import { HttpError, call, currentToken } from "./api.ts";
import * as session from "./session.ts";

const MIME_BY_EXT: Record<string, string> = {
  mp4: "video/mp4",
  m4v: "video/x-m4v",
  mov: "video/quicktime",
  avi: "video/x-msvideo",
  webm: "video/webm",
  ogv: "video/ogg",
  "3gp": "video/3gpp",
  mkv: "video/x-matroska",
};
const ACCEPTED = new Set(Object.values(MIME_BY_EXT));
export const ACCEPT_ATTR =
  Object.keys(MIME_BY_EXT)
    .map((e) => "." + e)
    .join(",") +
  "," +
  [...ACCEPTED].join(",");

export function mimeOf(file: File): string | undefined {
  if (ACCEPTED.has(file.type)) return file.type;
  return MIME_BY_EXT[file.name.split(".").pop()?.toLowerCase() || ""];
}

export const fingerprintOf = (videoId: number, orientation: string, file: File) => `${videoId}:${orientation}:${file.name}:${file.size}:${file.lastModified}`;

export interface UploadState {
  phase: "starting" | "uploading" | "retrying" | "completing" | "done";
  sent: number;
  size: number;
  resumedFrom?: number;
  message?: string;
}

interface Session {
  upload_id: string;
  chunk_size: number;
  offset: number;
  size: number;
}

const MAX_FAILURES = 12;
const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(t), reject(new DOMException("Upload cancelled.", "AbortError"))), { once: true });
  });

/** One PATCH through XHR, because fetch cannot report upload progress. */
function sendChunk(
  uploadId: string,
  offset: number,
  chunk: Blob,
  token: string,
  onBytes: (n: number) => void,
  signal?: AbortSignal,
): Promise<{ offset: number }> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PATCH", `/api/v1/uploads/${encodeURIComponent(uploadId)}`);
    xhr.setRequestHeader("Authorization", `Bearer ${token}`);
    xhr.setRequestHeader("Content-Type", "application/offset+octet-stream");
    xhr.setRequestHeader("Upload-Offset", String(offset));
    xhr.upload.onprogress = (e) => onBytes(e.loaded);
    xhr.onload = () => {
      let body: any = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {
        /* keep null */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(body);
      else {
        const err = new HttpError(xhr.status, body);
        (err as HttpError & { retryAfter?: number }).retryAfter = Number(xhr.getResponseHeader("Retry-After")) || undefined;
        reject(err);
      }
    };
    xhr.onerror = () => reject(new HttpError(0, null));
    xhr.ontimeout = () => reject(new HttpError(0, null));
    const abort = () => xhr.abort();
    signal?.addEventListener("abort", abort, { once: true });
    xhr.onabort = () => reject(new DOMException("Upload cancelled.", "AbortError"));
    xhr.send(chunk);
  });
}

const transient = (e: unknown) =>
  e instanceof HttpError && (e.status === 0 || e.status === 429 || e.status >= 500 || (e.status === 401 && e.code === "INVALID_TOKEN"));

export async function uploadFile(videoId: number, file: File, orientation: string, onState: (s: UploadState) => void, signal?: AbortSignal): Promise<any> {
  const mime = mimeOf(file);
  if (!mime) throw new Error("This file type is not accepted. Use mp4, mov, m4v, avi, webm, ogv, 3gp or mkv.");
  const fp = fingerprintOf(videoId, orientation, file);
  onState({ phase: "starting", sent: 0, size: file.size });

  let up: Session | undefined;
  let resumedFrom: number | undefined;
  const saved = session.pendingUpload(fp);
  if (saved) {
    try {
      up = await call<Session>("GET", `/uploads/${encodeURIComponent(saved.upload_id)}`, { signal });
      resumedFrom = up.offset;
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 404)) throw e;
      session.clearPendingUpload(fp); // expired or gone: start again from init
    }
  }
  if (!up) {
    up = await call<Session>("POST", `/videos/${videoId}/upload/init`, {
      body: { filename: file.name.slice(-255), size: file.size, mime_type: mime, orientation },
      signal,
    });
    session.setPendingUpload(fp, { upload_id: up.upload_id, video_id: videoId, orientation, name: file.name, size: file.size });
  }

  let offset = up.offset;
  let failures = 0;
  const report = (phase: UploadState["phase"], sent: number, message?: string) => onState({ phase, sent, size: file.size, resumedFrom, message });
  report("uploading", offset);

  for (;;) {
    try {
      while (offset < file.size) {
        const chunk = file.slice(offset, Math.min(file.size, offset + up.chunk_size));
        const token = await currentToken();
        const start = offset;
        const res = await sendChunk(up.upload_id, start, chunk, token, (n) => report("uploading", start + n), signal);
        offset = res.offset;
        failures = 0;
        report("uploading", offset);
      }
      report("completing", offset);
      const done = await call<{ video: any }>("POST", `/uploads/${encodeURIComponent(up.upload_id)}/complete`, { signal });
      session.clearPendingUpload(fp);
      report("done", file.size);
      return done.video;
    } catch (e) {
      if ((e as Error).name === "AbortError") throw e;
      if (e instanceof HttpError && (e.code === "OFFSET_MISMATCH" || e.code === "INCOMPLETE") && typeof e.body?.error?.offset === "number") {
        offset = e.body.error.offset;
        continue;
      }
      if (e instanceof HttpError && (e.code === "OFFSET_MISMATCH" || e.code === "INCOMPLETE") && typeof e.body?.offset === "number") {
        offset = e.body.offset;
        continue;
      }
      if (e instanceof HttpError && e.status === 422) session.clearPendingUpload(fp); // the session is closed
      if (e instanceof HttpError && e.status === 404 && e.code === "UPLOAD_NOT_FOUND") session.clearPendingUpload(fp);
      if (!transient(e) || ++failures > MAX_FAILURES) throw e;
      const wait = (e as { retryAfter?: number }).retryAfter ? (e as { retryAfter: number }).retryAfter * 1000 : Math.min(30_000, 500 * 2 ** failures);
      report("retrying", offset, `Connection problem; retrying in ${Math.round(wait / 1000)} s (attempt ${failures} of ${MAX_FAILURES}).`);
      await sleep(wait, signal);
      // Ask the server where it stands: a chunk may have landed before the connection dropped.
      try {
        offset = (await call<Session>("GET", `/uploads/${encodeURIComponent(up.upload_id)}`, { signal })).offset;
      } catch (again) {
        if (!transient(again)) throw again;
      }
    }
  }
}
