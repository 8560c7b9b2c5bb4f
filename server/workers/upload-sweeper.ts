/**
 * Expires upload sessions 24 hours after init (SPEC.md "Upload session": "chunks
 * discarded"): their fs partial files, S3 multipart uploads and staged bytes are removed.
 */
import type { Deps } from "../deps.ts";
import { sweepExpiredUploads } from "../modules/uploads/service.ts";
import { startSweeper } from "./sweeper.ts";

export function startUploadSweeper(deps: Deps, everyMs = 60_000): () => Promise<void> {
  return startSweeper(deps, { upload_sessions: sweepExpiredUploads }, everyMs);
}
