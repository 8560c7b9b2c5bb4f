/** docs/api.md "Playback protection": the workspace defaults each new video starts with. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { documented } from "../../http/openapi-docs.ts";
import { AllowedOrigins, RequireSignedUrls } from "../videos/model.ts";
import { checkedOrigins } from "../../domains/playback/service.ts";
import { findDefaults, upsertDefaults } from "../../domains/playback/repo.ts";

const PlaybackDefaults = t.Object({ allowed_origins: t.Array(t.String()), require_signed_urls: t.Boolean() });

export function playbackDefaultsModule(deps: Deps) {
  return createModule("playback-defaults", { tag: "Playback protection" })
    .use(authPlugin(deps))
    .get("/playback-defaults", async ({ auth }) => ({ playback_defaults: await findDefaults(deps.sql, auth.workspaceId) }), {
      scope: "videos:read",
      detail: { summary: "Read the workspace's playback defaults", responses: documented("api", []) },
      response: { 200: t.Object({ playback_defaults: PlaybackDefaults }) },
    })
    .patch(
      "/playback-defaults",
      async ({ auth, body }) => {
        const changes = { ...body, ...(body.allowed_origins && { allowed_origins: checkedOrigins("allowed_origins", body.allowed_origins) }) };
        return { playback_defaults: await upsertDefaults(deps.sql, auth.workspaceId, changes) };
      },
      {
        scope: "videos:write",
        body: t.Object({ allowed_origins: t.Optional(AllowedOrigins), require_signed_urls: t.Optional(RequireSignedUrls) }),
        detail: {
          summary: "Change the workspace's playback defaults",
          description: "Videos created from now on start with these; existing videos keep their own (change them with `PATCH /videos/{id}`).",
          responses: documented("api", [400, [422, "ValidationError"]]),
        },
        response: { 200: t.Object({ playback_defaults: PlaybackDefaults }) },
      },
    );
}
