/**
 * Routes of docs/api.md "Uploads": validation and HTTP only; the rules live in
 * session.ts and service.ts. The upload URL also speaks tus 1.0 core (tus.ts).
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { parseId } from "../../http/params.ts";
import type { Auth } from "../../http/token-verifier.ts";
import { StatusObject } from "../videos/model.ts";
import { toStatus } from "../videos/service.ts";
import { ChunkReply, InitUploadBody, UploadParams, UploadSession, VideoParams } from "./model.ts";
import * as uploads from "./service.ts";
import { sessionView } from "./session.ts";
import { singleShotUpload } from "./single-shot.ts";
import { assertTusVersion, isUploadUrl, OPTIONS_HEADERS, offsetHeaders, UPLOAD_URL_HEADERS } from "./tus.ts";
import { documented } from "../../http/openapi-docs.ts";

function contentLength(request: Request): number | undefined {
  const raw = request.headers.get("content-length");
  return raw !== null && /^\d+$/.test(raw.trim()) ? Number(raw) : undefined;
}

type SetHeaders = { headers: Record<string, string | number> };

export function uploadsModule(deps: Deps) {
  const { config } = deps;

  const sendChunk = async (auth: Auth, id: string, request: Request, set: SetHeaders) => {
    const reply = await uploads.writeChunk(deps, auth.workspaceId, id, {
      contentType: request.headers.get("content-type"),
      uploadOffset: request.headers.get("upload-offset"),
      contentLength: contentLength(request),
      body: request.body,
    });
    Object.assign(set.headers, offsetHeaders(reply));
    return { offset: reply.offset, size: reply.size };
  };

  /** tus reads the offset from headers of a body-less answer; `no-store` so no cache replays an old one. */
  const headOf = async (auth: Auth, id: string, set: SetHeaders) => {
    Object.assign(set.headers, offsetHeaders(await uploads.getUpload(deps, auth.workspaceId, id)), { "Cache-Control": "no-store" });
    return new Response(null, { status: 200 });
  };

  const deleteSession = async (auth: Auth, id: string) => {
    await uploads.deleteUpload(deps, auth.workspaceId, id);
    return { deleted: true };
  };

  const preflight = () => new Response(null, { status: 204, headers: OPTIONS_HEADERS });

  return (
    createModule("uploads", { tag: "Uploads" })
      // Before routing and authentication, so refusals (401, 404, 429) carry them too.
      .onRequest(({ request, set }) => {
        if (!isUploadUrl(request.url)) return;
        Object.assign(set.headers, UPLOAD_URL_HEADERS);
        if (request.method !== "OPTIONS") assertTusVersion(request);
      })
      .use(authPlugin(deps))
      .post(
        "/videos/:video/upload",
        async ({ auth, params, request, set }) => {
          const video = await singleShotUpload(deps, auth.workspaceId, parseId(params.video), {
            contentType: request.headers.get("content-type"),
            contentLength: contentLength(request),
            body: request.body,
          });
          set.status = 202;
          return { video: toStatus(config, video) };
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
            responses: documented("api", [404, 413, [422, "ValidationError", "ApiError"], 507]),
          },
          response: { 202: t.Object({ video: StatusObject }) },
        },
      )
      .post(
        "/videos/:video/upload/init",
        ({ auth, body, params, request, set }) =>
          idempotent(deps, { auth, request, set }, { video: params.video, ...body }, async () => {
            const row = await uploads.initUpload(deps, auth.workspaceId, parseId(params.video), body);
            return { status: 201, body: sessionView(config.publicUrl, row) };
          }),
        {
          scope: "videos:write",
          params: VideoParams,
          body: InitUploadBody,
          detail: {
            summary: "Start a resumable upload",
            description:
              "Chunks go to `upload_url` with PATCH; `chunk_size` (8388608) is the recommended size, any size is taken. " +
              "Any tus 1.0 client (tus-js-client, Uppy) can upload to `upload_url` as an existing upload. The session expires 24 hours after init.",
            responses: documented("api", [400, 404, 409, 422, 507]),
          },
          response: { 201: UploadSession },
        },
      )
      .options("/uploads/:upload", preflight, {
        params: UploadParams,
        detail: {
          summary: "tus capabilities and CORS preflight",
          description: "204 with `Tus-Version`, `Tus-Max-Size`, `Tus-Extension` (expiration) and the CORS headers browser clients need. No token.",
        },
      })
      .options("/uploads/:upload/complete", preflight, { params: UploadParams, detail: { hide: true } })
      .patch("/uploads/:upload", ({ auth, params, request, set }) => sendChunk(auth, params.upload, request, set), {
        scope: "videos:write",
        params: UploadParams,
        parse: "none",
        detail: {
          summary: "Send a chunk",
          description:
            "Raw bytes of any length with `Content-Type: application/offset+octet-stream` and `Upload-Offset`. The returned `offset` (also the " +
            "`Upload-Offset` header, as tus has it) is the next `Upload-Offset`. An offset behind the server answers 200 with the real offset and " +
            "writes nothing; ahead answers 409 OFFSET_MISMATCH. A body cut off mid-way keeps every byte that arrived: resume from GET or HEAD's offset.",
          responses: documented("api", [400, 404, 409, 412, 422]),
        },
        response: { 200: ChunkReply },
      })
      .get(
        "/uploads/:upload",
        async ({ auth, params, request, set }) => {
          // HEAD comes here too (Elysia serves HEAD with the GET route); its answer has no body to check against the schema.
          if (request.method === "HEAD") return (await headOf(auth, params.upload, set)) as never;
          set.headers["Cache-Control"] = "no-store";
          return sessionView(config.publicUrl, await uploads.getUpload(deps, auth.workspaceId, params.upload));
        },
        {
          scope: "videos:write",
          params: UploadParams,
          detail: {
            summary: "Read an upload session",
            description: "Use its `offset` to resume after a dropped connection. HEAD answers the same with tus's `Upload-Offset` and `Upload-Length` headers.",
            responses: documented("api", [404, 412, 422]),
          },
          response: { 200: UploadSession },
        },
      )
      .post(
        "/uploads/:upload",
        ({ auth, params, request, set }) => {
          switch (request.headers.get("x-http-method-override")?.trim().toUpperCase()) {
            case "PATCH":
              return sendChunk(auth, params.upload, request, set);
            case "HEAD":
              return headOf(auth, params.upload, set);
            case "DELETE":
              return deleteSession(auth, params.upload);
            default:
              throw Errors.routeNotFound();
          }
        },
        {
          scope: "videos:write",
          params: UploadParams,
          parse: "none",
          detail: {
            summary: "PATCH, HEAD or DELETE for clients that can only POST",
            description:
              "tus core: `X-HTTP-Method-Override` names the method this request stands for, and the answer is that method's: PATCH's `{offset, size}`, " +
              "DELETE's `{deleted: true}`, HEAD's headers with no body. Without a known override: 404.",
            responses: documented("api", [400, 404, 409, 412, 422], {
              200: t.Union([ChunkReply, t.Object({ deleted: t.Boolean() })], { description: "No body for HEAD." }),
            }),
          },
        },
      )
      .post(
        "/uploads/:upload/complete",
        async ({ auth, params, set }) => {
          const video = await uploads.completeUpload(deps, auth.workspaceId, params.upload);
          set.status = 202;
          return { video: toStatus(config, video) };
        },
        {
          scope: "videos:write",
          params: UploadParams,
          detail: {
            summary: "Finish a resumable upload",
            description: "Checks every byte arrived and that the bytes are a video, hands the file to the encoder and fires `video.uploaded`.",
            responses: documented("api", [404, 409, 412, [422, "ValidationError", "ApiError"]]),
          },
          response: { 202: t.Object({ video: StatusObject }) },
        },
      )
      .delete("/uploads/:upload", ({ auth, params }) => deleteSession(auth, params.upload), {
        scope: "videos:write",
        params: UploadParams,
        detail: { summary: "Delete an upload session", responses: documented("api", [404, 412, 422]) },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      })
  );
}
