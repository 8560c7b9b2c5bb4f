/** Wire schemas of docs/api.md "Uploads" and "Upload session". */
import { t } from "elysia";
import { Int, oneOf, PathId, Text } from "../../http/schemas.ts";
import { UPLOAD_ID_PATTERN } from "./upload-id.ts";

/** docs/api.md "Uploads": accepted declared types (declared only: the bytes decide). */
export const MIME_TYPES = [
  "video/mp4",
  "video/quicktime",
  "video/x-m4v",
  "video/x-msvideo",
  "video/webm",
  "video/ogg",
  "video/3gpp",
  "video/x-matroska",
] as const;
export const ORIENTATIONS = ["landscape", "portrait"] as const;
export type OrientationName = (typeof ORIENTATIONS)[number];

/** docs/api.md "Limits": the chunk size the server recommends (`chunk_size`); chunks of any size are taken. */
export const CHUNK_SIZE = 8_388_608;
export const MAX_FILE_SIZE = 5_368_709_120;
export const SESSION_LIFETIME_MS = 24 * 60 * 60_000;

export const InitUploadBody = t.Object({
  filename: Text({ minLength: 1, maxLength: 255, error: "The filename must be a string of 1 to 255 characters." }),
  size: Int(1, MAX_FILE_SIZE, { error: `The size must be an integer from 1 to ${MAX_FILE_SIZE}.` }),
  mime_type: oneOf(MIME_TYPES, { error: `The mime_type must be one of ${MIME_TYPES.join(", ")}.` }),
  orientation: t.Optional(oneOf(ORIENTATIONS, { error: "The orientation must be landscape or portrait." })),
});
export type InitUploadBody = typeof InitUploadBody.static;

export const UploadSession = t.Object({
  upload_id: t.String({ pattern: UPLOAD_ID_PATTERN }),
  video_id: t.Optional(t.Integer()),
  chunk_size: t.Integer(),
  offset: t.Integer(),
  size: t.Integer(),
  expires_at: t.String({ format: "date-time" }),
  upload_url: t.String(),
});

export const ChunkReply = t.Object({ offset: t.Integer(), size: t.Integer() });
export const UploadParams = t.Object({ upload: Text({ maxLength: 1024, description: "Upload id (flup_...)" }) });
export const VideoParams = t.Object({ video: PathId("Numeric video id") });
