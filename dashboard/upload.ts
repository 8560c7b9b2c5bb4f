/**
 * Resumable upload (docs/api.md "Uploads"): our own init creates the session, then
 * tus-js-client sends the bytes to its `upload_url` (the server speaks tus 1.0
 * core there) with progress, retries and resuming from the server's offset,
 * then complete. The upload id is kept per file fingerprint in localStorage, so
 * choosing the same file again after a reload continues where the server is.
 */
import { type DetailedError, Upload } from "tus-js-client";
import type { UploadCompleted, UploadSession as Session, VideoStatus } from "../contract/api.ts";
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
export const ACCEPT_ATTR = `${Object.keys(MIME_BY_EXT)
  .map((e) => `.${e}`)
  .join(",")},${[...ACCEPTED].join(",")}`;

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

/** Waits between tries of a failed request: about three minutes in all, then the error is shown. */
const RETRY_DELAYS = [1000, 2000, 4000, 8000, 15_000, 30_000, 30_000, 30_000, 30_000, 30_000];

/** The session to continue (the one this file started, if the server still has it), or a new one. */
async function openSession(videoId: number, file: File, mime: string, orientation: string, fp: string, signal?: AbortSignal) {
  const saved = session.pendingUpload(fp);
  if (saved) {
    try {
      const up = await call<Session>("GET", `/uploads/${encodeURIComponent(saved.upload_id)}`, { signal });
      return { up, resumedFrom: up.offset || undefined };
    } catch (e) {
      if (!(e instanceof HttpError && e.status === 404)) throw e;
      session.clearPendingUpload(fp); // expired or gone: start again from init
    }
  }
  const up = await call<Session>("POST", `/videos/${videoId}/upload/init`, {
    body: { filename: file.name.slice(-255), size: file.size, mime_type: mime, orientation },
    signal,
  });
  session.setPendingUpload(fp, { upload_id: up.upload_id, video_id: videoId, orientation, name: file.name, size: file.size });
  return { up, resumedFrom: undefined };
}

/** A tus failure in the dashboard's error shape, so the server's own message is what the user reads. */
function toHttpError(error: Error | DetailedError): HttpError {
  const res = (error as DetailedError).originalResponse;
  if (!res) return new HttpError(0, null);
  let body: unknown = null;
  try {
    body = JSON.parse(res.getBody());
  } catch {
    /* not JSON: keep null */
  }
  return new HttpError(res.getStatus(), body);
}

type Report = (phase: UploadState["phase"], sent: number, message?: string) => void;

/** Sends the bytes from wherever the server is (tus asks with HEAD) to the end. */
function sendBytes(up: Session, file: File, report: Report, signal?: AbortSignal) {
  return new Promise<void>((resolve, reject) => {
    let sent = up.offset;
    let renewedToken = false;
    const upload = new Upload(file, {
      uploadUrl: new URL(`/api/v1/uploads/${encodeURIComponent(up.upload_id)}`, location.href).href,
      chunkSize: up.chunk_size,
      retryDelays: RETRY_DELAYS,
      // Resuming is ours (the fingerprint above): creation is our init, not tus's.
      storeFingerprintForResuming: false,
      onBeforeRequest: async (req) => req.setHeader("Authorization", `Bearer ${await currentToken()}`),
      onProgress: (bytes) => report("uploading", (sent = bytes)),
      onShouldRetry: (error, attempt) => {
        const status = error.originalResponse?.getStatus() ?? 0;
        // A token revoked under us is replaced once: the next request mints a new one.
        const ws = session.workspace();
        if (status === 401 && !renewedToken && ws) {
          renewedToken = true;
          session.clearSessionToken(ws.id);
          return true;
        }
        const transient = status === 0 || status === 409 || status === 423 || status === 429 || status >= 500;
        if (transient) {
          const wait = Math.round(RETRY_DELAYS[attempt]! / 1000);
          const what = status === 429 ? "Too many requests" : "Connection problem";
          report("retrying", sent, `${what}; retrying in ${wait} s (attempt ${attempt + 1} of ${RETRY_DELAYS.length}).`);
        }
        return transient;
      },
      onSuccess: () => resolve(),
      onError: (error) => reject(toHttpError(error)),
    });
    signal?.addEventListener(
      "abort",
      () => {
        void upload.abort();
        reject(new DOMException("Upload cancelled.", "AbortError"));
      },
      { once: true },
    );
    upload.start();
  });
}

export async function uploadFile(
  videoId: number,
  file: File,
  orientation: string,
  onState: (s: UploadState) => void,
  signal?: AbortSignal,
): Promise<VideoStatus> {
  const mime = mimeOf(file);
  if (!mime) throw new Error("This file type is not accepted. Use mp4, mov, m4v, avi, webm, ogv, 3gp or mkv.");
  const fp = fingerprintOf(videoId, orientation, file);
  onState({ phase: "starting", sent: 0, size: file.size });

  const { up, resumedFrom } = await openSession(videoId, file, mime, orientation, fp, signal);
  const report = (phase: UploadState["phase"], sent: number, message?: string) => onState({ phase, sent, size: file.size, resumedFrom, message });
  report("uploading", up.offset);
  try {
    await sendBytes(up, file, report, signal);
    report("completing", file.size);
    const done = await call<UploadCompleted>("POST", `/uploads/${encodeURIComponent(up.upload_id)}/complete`, { signal });
    session.clearPendingUpload(fp);
    report("done", file.size);
    return done.video;
  } catch (e) {
    // The session is closed (not a video) or gone (expired): a new try starts from init.
    if (e instanceof HttpError && (e.status === 422 || e.code === "UPLOAD_NOT_FOUND")) session.clearPendingUpload(fp);
    throw e;
  }
}
