/** Routes of docs/api.md "Video settings": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { paginate } from "../../http/pagination.ts";
import { parseId } from "../../http/params.ts";
import { JsonObject, MAX_JSON_DEPTH, PageNumber, PathId } from "../../http/schemas.ts";
import { FullVideo } from "../videos/model.ts";
import { scriptUrl, toFullVideo, VIDEO_MODEL } from "../videos/service.ts";
import * as settings from "./service.ts";
import { API_WRITABLE_GROUPS } from "../../../contract/settings.ts";
import { groupsDoc } from "./groups-doc.ts";
import { documented } from "../../http/openapi-docs.ts";

const VideoParams = t.Object({ video: PathId("Numeric video id") });
const VersionParams = t.Object({ video: PathId("Numeric video id"), version: PathId("Numeric deploy version id") });
// Option groups are free-form inside (docs/api.md "Video settings" rule 3 filters top-level keys only): their depth is bounded
// like any JSON body's, the payload object being level 1, and no key or string may hold what storage refuses.
// The groups' fields are documented (groupsDoc); the registry validates the merged result.
const SettingsPayload = JsonObject({
  maxDepth: MAX_JSON_DEPTH,
  properties: groupsDoc(API_WRITABLE_GROUPS),
  description: "Any subset of option groups, merged recursively over the live settings (lists by index).",
});
const DeployPayload = JsonObject({
  maxDepth: MAX_JSON_DEPTH,
  properties: { ...groupsDoc(API_WRITABLE_GROUPS), _version_label: t.Optional(t.Unknown({ description: "A label for the version, at most 255 characters." })) },
  description: "Any subset of option groups, plus an optional `_version_label` string.",
});

const DeployVersion = t.Object({
  id: t.Integer(),
  workspace_video_id: t.Integer(),
  created_by: t.Nullable(t.Integer()),
  label: t.Nullable(t.String()),
  version_hash: t.String(),
  settings_snapshot: t.Record(t.String(), t.Unknown()),
  is_live: t.Boolean(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export function settingsModule(deps: Deps) {
  const { config } = deps;
  const videoId = (raw: string) => {
    const id = parseId(raw);
    if (id === undefined) throw Errors.modelNotFound(VIDEO_MODEL, raw);
    return id;
  };

  return createModule("settings", { tag: "Video settings" })
    .use(authPlugin(deps))
    .post(
      "/videos/:video/draft",
      async ({ auth, params, body }) => ({
        draft: await settings.saveDraft(deps, auth.workspaceId, videoId(params.video), settings.settingsPayload(body, "draft")),
        version: null,
      }),
      {
        scope: "videos:write",
        params: VideoParams,
        body: SettingsPayload,
        detail: {
          summary: "Save a settings draft",
          description: "Merged over the live settings and validated; stored only: no compile, no webhook, the live embed is unchanged.",
          responses: documented("api", [400, [404, "ModelNotFound"], 422]),
        },
        response: { 200: t.Object({ draft: t.Record(t.String(), t.Unknown()), version: t.Null() }) },
      },
    )
    .post(
      "/videos/:video/deploy",
      async ({ auth, params, body: raw }) => {
        const { video, version } = await settings.deploy(deps, auth.workspaceId, videoId(params.video), settings.settingsPayload(raw, "deploy"));
        return { video: toFullVideo(config, video), version_id: version.id, embed_url: scriptUrl(config, video.code) };
      },
      {
        scope: "videos:write",
        params: VideoParams,
        body: DeployPayload,
        detail: {
          summary: "Deploy settings",
          description:
            "Merges over the LIVE settings (not the draft), validates, compiles the player and pushes it to both CDN targets, then snapshots a version, " +
            "deletes the pending draft and fires `video.settings.deployed`. A compile or CDN failure is a 500 and changes nothing.",
          responses: documented("api", [400, [404, "ModelNotFound"], 422, 500]),
        },
        response: { 200: t.Object({ video: FullVideo, version_id: t.Integer(), embed_url: t.String() }) },
      },
    )
    .get(
      "/videos/:video/deploys",
      async ({ auth, params, query, request }) => {
        const { rows, total, page, perPage } = await settings.listDeploys(deps, auth.workspaceId, videoId(params.video), query.page ?? 1);
        return paginate({ publicUrl: config.publicUrl, request, data: rows.map(settings.toDeployVersion), page, perPage, total });
      },
      {
        scope: "videos:write",
        params: VideoParams,
        query: t.Object({ page: t.Optional(PageNumber()) }),
        detail: {
          summary: "List deploy versions",
          description: "Newest first, 20 per page. Drafts never appear here.",
          responses: documented("api", [[404, "ModelNotFound"], 422]),
        },
        response: { 200: t.Object({ data: t.Array(DeployVersion) }, { additionalProperties: true }) },
      },
    )
    .post(
      "/videos/:video/deploys/:version/restore",
      async ({ auth, params }) => {
        const id = videoId(params.video);
        const versionId = parseId(params.version);
        if (versionId === undefined) throw Errors.modelNotFound(settings.VERSION_MODEL, params.version);
        const { video, version } = await settings.restore(deps, auth.workspaceId, id, versionId);
        return { video: toFullVideo(config, video), restored_version_id: version.id };
      },
      {
        scope: "videos:write",
        params: VersionParams,
        detail: {
          summary: "Restore a deploy version",
          description: "Writes the snapshot back wholesale, recompiles, and records a new version labelled `Restored from version <id>`. No webhook.",
          responses: documented("api", [[404, "ModelNotFound"], 500]),
        },
        response: { 200: t.Object({ video: FullVideo, restored_version_id: t.Integer() }) },
      },
    );
}
