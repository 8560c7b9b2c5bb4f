/** Routes of SPEC.md "Uploads": validation and HTTP only; rules live in service.ts. */
import { Elysia, t } from "elysia";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { parseId } from "../../http/params.ts";
import { StatusObject } from "../videos/model.ts";
import { ChunkReply, InitUploadBody, UploadParams, UploadSession, VideoParams } from "./model.ts";
import * as uploads from "./service.ts";

function contentLength(request: Request): number | undefined {
  const raw = request.headers.get("content-length");
  return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : undefined;
}

export function uploadsModule(deps: Deps) {
  const { config } = deps;
  return new Elysia({ name: "frameline.uploads", detail: { tags: ["Uploads"] } } as never)
    .use(authPlugin(deps))
    .post(
      "/videos/:video/upload",
      async ({ auth, params, request, set }) => {
        const video = await uploads.singleShotUpload(deps, auth.workspaceId, parseId(params.video), {
          contentType: request.headers.get("content-type"),
          contentLength: contentLength(request),
          body: request.body,
        });
        set.status = 202;
        return { video: uploads.toStatus(config, video) };
      },
      {
        scope: "videos:write",
        params: VideoParams,
        // The body is streamed to storage by the service, never buffered.
        parse: "none",
        detail: {
          summary: "Upload a file in one request",
          description:
            "multipart/form-data with `file` (required) and `orientation` (`landscape`|`portrait`, default `landscape`). " +
            "Bodies over 3000 MB get 413; recommended only under 100 MB. Fires `video.uploaded` like a resumable complete.",
        },
        response: { 202: t.Object({ video: StatusObject }) },
      },
    )
    .post(
      "/videos/:video/upload/init",
      ({ auth, body, params, request, set }) =>
        idempotent(deps, { auth, request, set }, { video: params.video, ...body }, async () => {
          const row = await uploads.initUpload(deps, auth.workspaceId, parseId(params.video), body);
          return { status: 201, body: uploads.sessionView(config, row) };
        }),
      {
        scope: "videos:write",
        params: VideoParams,
        body: InitUploadBody,
        detail: {
          summary: "Start a resumable upload",
          description: "Chunks of `chunk_size` (8388608) bytes go to `upload_url` with PATCH. The session expires 24 hours after init.",
        },
        response: { 201: UploadSession },
      },
    )
    .patch(
      "/uploads/:upload",
      async ({ auth, params, request, set }) => {
        const reply = await uploads.writeChunk(deps, auth.workspaceId, params.upload, {
          contentType: request.headers.get("content-type"),
          uploadOffset: request.headers.get("upload-offset"),
          contentLength: contentLength(request),
          body: request.body,
        });
        set.headers["Upload-Offset"] = String(reply.offset);
        return reply;
      },
      {
        scope: "videos:write",
        params: UploadParams,
        parse: "none",
        detail: {
          summary: "Send a chunk",
          description:
            "Raw bytes with `Content-Type: application/offset+octet-stream` and `Upload-Offset`. The returned `offset` is the next `Upload-Offset`. " +
            "An offset behind the server answers 200 with the real offset and writes nothing; ahead answers 409 OFFSET_MISMATCH.",
        },
        response: { 200: ChunkReply },
      },
    )
    .get("/uploads/:upload", async ({ auth, params }) => uploads.sessionView(config, await uploads.getUpload(deps, auth.workspaceId, params.upload)), {
      scope: "videos:write",
      params: UploadParams,
      detail: { summary: "Read an upload session", description: "Use its `offset` to resume after a dropped connection." },
      response: { 200: UploadSession },
    })
    .post(
      "/uploads/:upload/complete",
      async ({ auth, params, set }) => {
        const video = await uploads.completeUpload(deps, auth.workspaceId, params.upload);
        set.status = 202;
        return { video: uploads.toStatus(config, video) };
      },
      {
        scope: "videos:write",
        params: UploadParams,
        detail: {
          summary: "Finish a resumable upload",
          description: "Checks every byte arrived and that the bytes are a video, hands the file to the encoder and fires `video.uploaded`.",
        },
        response: { 202: t.Object({ video: StatusObject }) },
      },
    )
    .delete(
      "/uploads/:upload",
      async ({ auth, params }) => {
        await uploads.deleteUpload(deps, auth.workspaceId, params.upload);
        return { deleted: true };
      },
      { scope: "videos:write", params: UploadParams, detail: { summary: "Delete an upload session" }, response: { 200: t.Object({ deleted: t.Boolean() }) } },
    );
}
