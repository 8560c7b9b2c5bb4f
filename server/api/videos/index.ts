/** Routes of docs/api.md "Videos": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { paginate } from "../../http/pagination.ts";
import { parseId } from "../../http/params.ts";
import { documented } from "../../http/openapi-docs.ts";
import { PathId, Text } from "../../http/schemas.ts";
import { CreateVideoBody, FullVideo, ListVideosQuery, SignedToken, SlimVideo, StatusObject, TokenBody, UpdateVideoBody } from "./model.ts";
import * as videos from "./service.ts";
import type { VideoRow } from "./repo.ts";
import { ConfigRead, videoConfig } from "./video-config.ts";
import { withDefaults } from "../../../contract/settings.ts";
import { TimedEventsRead, timedEventsOf } from "./timed-events.ts";
import { SettingsRead } from "./settings-read.ts";

const VideoParams = t.Object({ video: PathId("Numeric video id") });

export function videosModule(deps: Deps, republish?: videos.Republish, encrypt?: videos.Encrypt) {
  const { config } = deps;
  const findForRead = async (workspaceId: number, raw: string) => {
    const id = parseId(raw);
    const row = id === undefined ? undefined : await videos.getVideo(deps, workspaceId, id);
    if (!row) throw Errors.videoNotFoundRead();
    return row;
  };
  /** The id in a written `:video` path; one that is not an id is 404 ModelNotFound naming it. */
  const writableId = (raw: string) => {
    const id = parseId(raw);
    if (id === undefined) throw Errors.modelNotFound(videos.VIDEO_MODEL, raw);
    return id;
  };
  const serialised = new WeakMap<object, string>();
  const fullBody = (row: VideoRow) => {
    let body = serialised.get(row);
    if (body === undefined) serialised.set(row, (body = JSON.stringify({ video: videos.toFullVideo(config, row) })));
    return body;
  };

  return createModule("videos", { tag: "Videos" })
    .use(authPlugin(deps))
    .get(
      "/videos",
      async ({ auth, query, request }) => {
        const { rows, total, page, perPage } = await videos.listVideos(deps, auth.workspaceId, query);
        return paginate({ publicUrl: config.publicUrl, request, data: rows.map(videos.toSlimVideo), page, perPage, total });
      },
      {
        scope: "videos:read",
        query: ListVideosQuery,
        detail: {
          summary: "List videos",
          description: "Paginated, slim videos. Unknown `sort` values fall back to `id`.",
          responses: documented("api", [422]),
        },
        response: { 200: t.Object({ data: t.Array(SlimVideo) }, { additionalProperties: true }) },
      },
    )
    .get(
      "/videos/:video",
      async ({ auth, params, set }) => {
        set.headers["content-type"] = "application/json;charset=utf-8";
        // A cached row answers without awaiting; cached rows are shared objects, so
        // their serialised body is computed once per row version.
        const id = parseId(params.video);
        const cached = id === undefined ? undefined : videos.peekVideo(deps, auth.workspaceId, id);
        return fullBody(cached ?? (await findForRead(auth.workspaceId, params.video)));
      },
      {
        scope: "videos:read",
        // Documented, not validated at run time: this is the hottest read.
        detail: { summary: "Read a video", responses: documented("api", [404], { 200: t.Object({ video: FullVideo }) }) },
      },
    )
    .get("/videos/:video/settings", async ({ auth, params }) => ({ settings: videos.settingsOf(await findForRead(auth.workspaceId, params.video)) }), {
      scope: "videos:read",
      params: VideoParams,
      detail: {
        summary: "Read a video's live settings",
        description: "Every option group, in the shape draft and deploy accept.",
        responses: documented("api", [404], { 200: t.Object({ settings: SettingsRead }) }),
      },
    })
    .get(
      "/videos/:video/status",
      async ({ auth, params }) => {
        const id = parseId(params.video);
        const row = id === undefined ? undefined : await videos.getVideo(deps, auth.workspaceId, id);
        if (!row) throw Errors.videoNotFound();
        return videos.toStatusRead(config, row);
      },
      {
        scope: "videos:read",
        params: VideoParams,
        detail: { summary: "Processing status", responses: documented("api", [404]) },
        response: { 200: StatusObject },
      },
    )
    .post(
      "/videos",
      ({ auth, body, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => {
          const row = await videos.createVideo(deps, auth.workspaceId, body);
          return { status: 201, body: { video: videos.toFullVideo(config, row), status: videos.toStatus(config, row) } };
        }),
      {
        scope: "videos:write",
        body: CreateVideoBody,
        detail: {
          summary: "Create a video",
          description: "Creates an empty shell waiting for upload. Fires `video.created`.",
          responses: documented("api", [400, 409, [422, "ValidationError", "ApiError"]]),
        },
        response: { 201: t.Object({ video: FullVideo, status: StatusObject }) },
      },
    )
    .patch(
      "/videos/:video",
      ({ auth, body, params, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => {
          const row = await videos.updateVideo(deps, auth.workspaceId, writableId(params.video), body, republish, encrypt);
          return { status: 200, body: { video: videos.toFullVideo(config, row) } };
        }),
      {
        scope: "videos:write",
        params: VideoParams,
        body: UpdateVideoBody,
        detail: {
          summary: "Update title, folder or tags",
          description: "Touches nothing else; fires nothing.",
          responses: documented("api", [400, [404, "ModelNotFound"], 409, [422, "ValidationError", "ApiError"]]),
        },
        response: { 200: t.Object({ video: FullVideo }) },
      },
    )
    .post(
      "/videos/:video/duplicate",
      ({ auth, params, request, set }) =>
        idempotent(deps, { auth, request, set }, null, async () => {
          const row = await videos.duplicateVideo(deps, auth.workspaceId, writableId(params.video));
          return { status: 201, body: { video: videos.toFullVideo(config, row) } };
        }),
      {
        scope: "videos:write",
        params: VideoParams,
        detail: {
          summary: "Duplicate a video",
          description: "Same settings and player version, title `<title> (copy)`, no media.",
          responses: documented("api", [[404, "ModelNotFound"], 409, 422]),
        },
        response: { 201: t.Object({ video: FullVideo }) },
      },
    )
    .delete(
      "/videos/:video",
      ({ auth, params, request, set }) =>
        idempotent(deps, { auth, request, set }, null, async () => {
          await videos.deleteVideo(deps, auth.workspaceId, writableId(params.video));
          return { status: 200, body: { deleted: true } };
        }),
      {
        scope: "videos:write",
        params: VideoParams,
        detail: {
          summary: "Delete a video",
          description: "Also deletes its pending draft. Fires `video.deleted`.",
          responses: documented("api", [[404, "ModelNotFound"], 409, 422]),
        },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      },
    )
    .get(
      "/videos/:video/embed",
      async ({ auth, params, query }) => {
        const row = await findForRead(auth.workspaceId, params.video);
        const embed = videos.embedFor(config, row);
        const plain = query.mode === "plain";
        return { html: plain ? embed.plain_html : embed.html, mode: plain ? "plain" : "default", timed_events: timedEventsOf(withDefaults(row.settings)) };
      },
      {
        scope: "videos:read",
        params: VideoParams,
        query: t.Object({ mode: t.Optional(Text({ maxLength: 64, description: "`plain` for the plain-mode snippet" })) }),
        detail: {
          summary: "Embed snippet",
          description:
            "`mode` says which snippet: `plain`, or `default` when not plain. `timed_events` is the live `timed_events_options.events`, " +
            "each entry completed with the player's defaults (`action` show, `persist` true).",
          responses: documented("api", [404, 422]),
        },
        response: { 200: t.Object({ html: t.String(), mode: t.String(), timed_events: TimedEventsRead }) },
      },
    )
    .post("/videos/:video/token", async ({ auth, body, params }) => videos.signedToken(deps, await findForRead(auth.workspaceId, params.video), body), {
      scope: "videos:read",
      params: VideoParams,
      body: TokenBody,
      detail: {
        summary: "Mint a signed playback token",
        description:
          "Cloudflare Stream's `/token`: `exp` (seconds since 1970, default one hour from now, at most 24 hours ahead), `nbf`, `downloadable`, `accessRules`. " +
          'The token goes on the manifest URL as `?token=`; the media host then passes it on to every segment (README "Signed URLs").',
        responses: documented("api", [400, 404, 422], { 200: SignedToken }),
      },
      response: { 200: SignedToken },
    })
    .get("/videos/:video/config", async ({ auth, params }) => videoConfig(deps, await findForRead(auth.workspaceId, params.video)), {
      scope: "videos:read",
      params: VideoParams,
      detail: {
        summary: "Player configuration",
        description:
          "Per orientation `{w, h, padding, aspectRatio}`, or null when there is no media yet. `timed_events_options` is the live timed events list, as `timed_events` of the embed.",
        responses: documented("api", [404], { 200: ConfigRead }),
      },
    });
}
