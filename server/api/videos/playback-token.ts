/**
 * `GET /v1/playback/{code}/token` on the events host: the embed player's ask for a
 * short-lived token (README "Signed URLs"). No API token: the page's origin decides,
 * so a page on an allowed site gets one and any other a 403.
 */
import { t } from "elysia";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { createModule } from "../../http/module.ts";
import { documented } from "../../http/openapi-docs.ts";
import { Text } from "../../http/schemas.ts";
import { CORS_HEADERS } from "../../http/cors.ts";
import { originAllowed } from "../../../contract/allowed-origins.ts";
import { requestOrigin } from "../../domains/playback/guard.ts";
import { mintToken, PLAYER_TOKEN_TTL_S } from "../../domains/playback/service.ts";
import { SignedToken } from "./model.ts";

export function playbackTokenModule(deps: Deps) {
  return createModule("playback-token", { tag: "Events host" }).get(
    "/v1/playback/:code/token",
    async ({ params, request, set }) => {
      Object.assign(set.headers, CORS_HEADERS, { "Cache-Control": "no-store" });
      const protection = await deps.playback.protection(params.code);
      if (!protection) throw Errors.videoNotFound();
      if (!originAllowed(protection.allowed_origins, requestOrigin(request.headers))) throw Errors.originNotAllowed();
      const exp = Math.floor(deps.clock.now() / 1000) + PLAYER_TOKEN_TTL_S;
      return mintToken(deps, protection.workspace_id, params.code, { exp });
    },
    {
      params: t.Object({ code: Text({ maxLength: 64, description: "The video's code" }) }),
      detail: {
        summary: "A playback token for the embed player (no API token)",
        description:
          "Public and CORS-enabled. Answers a token valid for 4 hours when the page's `Origin` (or `Referer`) is one of the video's `allowed_origins` " +
          "(any when empty); 403 ORIGIN_NOT_ALLOWED otherwise, 404 VIDEO_NOT_FOUND for an unknown code.",
        security: [],
        responses: documented("browser", [403, 404], { 200: SignedToken }),
      },
      response: { 200: SignedToken },
    },
  );
}
