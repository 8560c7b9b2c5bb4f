/** Routes of docs/api.md "Viewers": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { createModule } from "../../http/module.ts";
import { documented } from "../../http/openapi-docs.ts";
import { paginate } from "../../http/pagination.ts";
import { parseId } from "../../http/params.ts";
import { PathId, Text } from "../../http/schemas.ts";
import { ViewerHeatmap, ViewerSummary, ViewerTimeline } from "./model.ts";
import * as viewers from "./service.ts";

const VideoParams = t.Object({ video: PathId("Numeric video id") });
const ViewerParams = t.Object({ video: PathId("Numeric video id"), viewer: PathId("Numeric viewer id (`viewer_id` of the viewers list)") });

const ListQuery = t.Object({
  from: t.Optional(Text({ maxLength: 64, description: "ISO date; sessions that began on or after it (in `tz`); default 30 days before `to`." })),
  to: t.Optional(Text({ maxLength: 64, description: "ISO date, last day of the window in `tz`; default today." })),
  tz: t.Optional(Text({ maxLength: 64, description: "IANA time zone applied to day boundaries; default UTC." })),
  identified: t.Optional(Text({ maxLength: 64, description: "`true`: only viewers a lead form or an `identify` named; default `false` (everyone)." })),
  page: t.Optional(Text({ maxLength: 64, description: "Integer of at least 1; default 1." })),
  per_page: t.Optional(Text({ maxLength: 64, description: `Integer 1 to ${viewers.VIEWERS_MAX_PER_PAGE}; default ${viewers.VIEWERS_DEFAULT_PER_PAGE}.` })),
});
const HeatmapQuery = t.Object({
  buckets: t.Optional(Text({ maxLength: 64, description: `Integer 1 to ${viewers.HEATMAP_MAX_BUCKETS}; default ${viewers.HEATMAP_DEFAULT_BUCKETS}.` })),
});

export function viewersModule(deps: Deps) {
  return createModule("viewers", { tag: "Viewers" })
    .use(authPlugin(deps))
    .get(
      "/videos/:video/viewers",
      async ({ auth, params, query, request }) => {
        const { data, page, perPage, total } = await viewers.listViewers(deps, auth.workspaceId, parseId(params.video), query);
        return paginate({ publicUrl: deps.config.publicUrl, request, data, page, perPage, total });
      },
      {
        scope: "analytics:read",
        params: VideoParams,
        query: ListQuery,
        detail: {
          summary: "Viewers of a video",
          description:
            "Who watched: identified viewers with their email or external id, the others as anonymous devices, each with sessions, " +
            "first and last seen, watch time, furthest percent, plays, leads and orders. Most recently seen first; paginated.",
          responses: documented("api", [404, 422]),
        },
        response: { 200: t.Object({ data: t.Array(ViewerSummary) }, { additionalProperties: true }) },
      },
    )
    .get(
      "/videos/:video/viewers/:viewer",
      async ({ auth, params }) => viewers.timeline(deps, auth.workspaceId, parseId(params.video), parseId(params.viewer)),
      {
        scope: "analytics:read",
        params: ViewerParams,
        detail: {
          summary: "A viewer's timeline",
          description:
            "Every session of this viewer that played the video, oldest first: start, source, device, country, the ranges watched and " +
            "what happened (play, pause, seek, CTA click, quiz answer, lead, sale). Never an IP.",
          responses: documented("api", [404]),
        },
        response: { 200: ViewerTimeline },
      },
    )
    .get(
      "/videos/:video/viewers/:viewer/heatmap",
      async ({ auth, params, query }) => viewers.heatmap(deps, auth.workspaceId, parseId(params.video), parseId(params.viewer), query),
      {
        scope: "analytics:read",
        params: ViewerParams,
        query: HeatmapQuery,
        detail: {
          summary: "A viewer's heatmap",
          description: "How many times the viewer watched each equal part of the video, across all their sessions; 0 = skipped.",
          responses: documented("api", [404, 422]),
        },
        response: { 200: ViewerHeatmap },
      },
    )
    .delete("/viewers/:viewer", async ({ auth, params }) => viewers.erase(deps, auth.workspaceId, params.viewer), {
      scope: "events:write",
      params: t.Object({ viewer: PathId("Numeric viewer id") }),
      detail: {
        summary: "Erase a viewer",
        description:
          "Erases a viewer (a data subject's erasure request): their identity (emails, external ids, devices), leads, sessions and every " +
          "event in PostgreSQL and ClickHouse. Their sales stay in the ledger and the revenue figures, with nothing that names the buyer. " +
          "Scope `events:write`, the scope that sends events about viewers.",
        responses: documented("api", [[404, "ModelNotFound"]]),
      },
      response: { 200: t.Object({ deleted: t.Boolean() }) },
    });
}
