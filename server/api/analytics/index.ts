/** Routes of docs/api.md "Analytics reads": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { etagMatches } from "../../http/etag.ts";
import { parseId } from "../../http/params.ts";
import { EVENTS_MAX_PER_PAGE, OVERVIEW_TOP_VALUES, RETENTION_MAX_BUCKETS, SUMMARY_CACHE_SECONDS } from "./definitions.ts";
import { DIMENSION_NAMES } from "./metrics.ts";
import { BreakdownReply, OverviewReply, WorkspaceOverviewReply } from "./model.ts";
import * as seller from "./overview.ts";
import { OVERVIEW_MAX_PER_PAGE, OVERVIEW_SORTS } from "./overview.ts";
import { SEGMENTS } from "./queries.ts";
import { PathId, Text } from "../../http/schemas.ts";
import * as analytics from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

const VideoParams = t.Object({ video: PathId("Numeric video id") });

// Dates are checked by the service (resolveWindow) so that its 422 names the parameter and says why.
const From = t.Optional(Text({ maxLength: 64, description: "ISO date (YYYY-MM-DD, 1970-01-01 to 2100-12-31), start of the window in `tz`." }));
const To = t.Optional(Text({ maxLength: 64, description: "ISO date (YYYY-MM-DD, 1970-01-01 to 2100-12-31), last day of the window in `tz`; default today." }));
const Tz = t.Optional(Text({ maxLength: 64, description: "IANA time zone applied to day boundaries; default UTC." }));

const WindowQuery = t.Object({ from: From, to: To, tz: Tz });
const RetentionQuery = t.Object({
  from: From,
  to: To,
  tz: Tz,
  buckets: t.Optional(Text({ maxLength: 64, description: `Integer 1 to ${RETENTION_MAX_BUCKETS}; default 100.` })),
  segment: t.Optional(
    Text({
      maxLength: 64,
      description:
        `Beyond the core interface: one of ${SEGMENTS.join(", ")} (default all). buyers: played sessions traced to a verified, non-test sale of this video ` +
        "in the window; non_buyers: the other played sessions. Each curve is a fraction of its own sessions.",
    }),
  ),
});
const BreakdownQuery = t.Object({
  by: Text({ maxLength: 64, description: `Required: one of ${DIMENSION_NAMES.join(", ")}.` }),
  from: From,
  to: To,
  tz: Tz,
});
const WorkspaceOverviewQuery = t.Object({
  from: From,
  to: To,
  tz: Tz,
  sort: t.Optional(Text({ maxLength: 64, description: `One of ${OVERVIEW_SORTS.join(", ")}; default rpv.` })),
  order: t.Optional(Text({ maxLength: 64, description: "desc (default) or asc; videos without a value come last either way." })),
  currency: t.Optional(
    Text({ maxLength: 64, description: "The currency whose figures money sorts (rpv, revenue, aov, epc, roas) use; default the one with the most orders." }),
  ),
  page: t.Optional(Text({ maxLength: 64, description: "Integer of at least 1; default 1." })),
  per_page: t.Optional(Text({ maxLength: 64, description: `Integer 1 to ${OVERVIEW_MAX_PER_PAGE}; default 50.` })),
});
const EventsQuery = t.Object({
  event_type: t.Optional(Text({ maxLength: 64, error: "The event_type must be a string of at most 64 characters." })),
  page: t.Optional(Text({ maxLength: 64, description: "Integer of at least 1; default 1." })),
  per_page: t.Optional(Text({ maxLength: 64, description: `Integer 1 to ${EVENTS_MAX_PER_PAGE}; default 100.` })),
  from: t.Optional(Text({ maxLength: 64, description: "ISO date (1970-01-01 to 2100-12-31); default 7 days ago." })),
  to: To,
  tz: Tz,
});

const Summary = t.Object({
  video_id: t.Integer(),
  video_code: t.String(),
  from: t.String({ format: "date" }),
  to: t.String({ format: "date" }),
  tz: t.String(),
  summary: t.Object({
    plays: t.Integer(),
    unique_plays: t.Integer(),
    completion_count: t.Integer(),
    completion_rate: t.Number(),
    avg_watch_time_s: t.Number(),
    bounce_count: t.Integer(),
  }),
});

export function analyticsModule(deps: Deps) {
  return createModule("analytics", { tag: "Analytics" })
    .use(authPlugin(deps))
    .get(
      "/videos/:video/analytics/summary",
      async ({ auth, params, query, request, set }) => {
        const { body, etag } = await analytics.summary(deps, auth.workspaceId, parseId(params.video), query);
        set.headers["Cache-Control"] = `private, max-age=${SUMMARY_CACHE_SECONDS}`;
        set.headers.ETag = etag;
        if (etagMatches(request.headers.get("if-none-match"), etag)) {
          set.status = 304;
          return "";
        }
        return body;
      },
      {
        scope: "analytics:read",
        params: VideoParams,
        query: WindowQuery,
        detail: {
          summary: "Video summary",
          description:
            "Plays, unique plays, completions, average watch time and bounces in the window. Computed at most once per 60 s per query; " +
            "`Cache-Control: private, max-age=60` and an `ETag`; a matching `If-None-Match` answers 304.",
          responses: documented("api", [404, 422]),
        },
        response: { 200: Summary, 304: t.String() },
      },
    )
    .get("/videos/:video/analytics/retention", async ({ auth, params, query }) => analytics.retention(deps, auth.workspaceId, parseId(params.video), query), {
      scope: "analytics:read",
      params: VideoParams,
      query: RetentionQuery,
      detail: {
        summary: "Retention curve",
        description:
          "Fraction of played sessions (0..1) that watched each bucket; seeks and rewatches count once. A play is an intentional start " +
          "(a muted autoplay counts once unmuted). `segment=buyers|non_buyers` (beyond the core interface) follows only buyers or only the others.",
        responses: documented("api", [404, 422]),
      },
      response: { 200: t.Object({ video_id: t.Integer(), buckets: t.Array(t.Object({ bucket_pct: t.Number(), watch_pct: t.Number() })) }) },
    })
    .get("/videos/:video/analytics/events", async ({ auth, params, query }) => analytics.events(deps, auth.workspaceId, parseId(params.video), query), {
      scope: "analytics:read",
      params: VideoParams,
      query: EventsQuery,
      detail: {
        summary: "Raw events",
        description: "Newest first; the only paginated read. `ip_hash` is always null.",
        responses: documented("api", [404, 422]),
      },
      response: {
        200: t.Object({
          video_id: t.Integer(),
          page: t.Integer(),
          per_page: t.Integer(),
          events: t.Object({
            total: t.Integer(),
            data: t.Array(
              t.Object({
                event_type: t.String(),
                event: t.Nullable(t.String()),
                session_code: t.Nullable(t.String()),
                watch_seconds: t.Number(),
                video_time: t.Number(),
                created_at: t.String({ format: "date-time" }),
                ip_hash: t.Null(),
              }),
            ),
          }),
        }),
      },
    })
    .get(
      "/videos/:video/analytics/conversions",
      async ({ auth, params, query }) => analytics.conversions(deps, auth.workspaceId, parseId(params.video), query),
      {
        scope: "analytics:read",
        params: VideoParams,
        query: WindowQuery,
        detail: {
          summary: "Conversions by name",
          description: "Count of conversions (verified and unverified) and revenue of verified ones only.",
          responses: documented("api", [404, 422]),
        },
        response: {
          200: t.Object({
            video_id: t.Integer(),
            from: t.String({ format: "date" }),
            to: t.String({ format: "date" }),
            conversions: t.Array(t.Object({ event_name: t.String(), count: t.Integer(), total_revenue: t.Number() })),
          }),
        },
      },
    )
    .get("/videos/:video/analytics/overview", async ({ auth, params, query }) => seller.overview(deps, auth.workspaceId, parseId(params.video), query), {
      scope: "analytics:read",
      params: VideoParams,
      query: WindowQuery,
      detail: {
        summary: "Seller overview",
        description:
          "Beyond the core interface. Impressions, true plays and play rate, autoplays and unmute rate, unique viewers, watch time and share watched, CTA clicks " +
          "per card, leads, verified non-test sales per currency with AOV, revenue per viewer, EPC and ROAS (when ad spend is entered), conversion " +
          "rate, startup time p50/p95, rebuffer ratio and errors, over the sessions that started in the window (each counted whole). Rates of zero " +
          "denominators are null. Definitions with formulas: README " +
          '"What the numbers mean".',
        responses: documented("api", [404, 422]),
      },
      response: { 200: OverviewReply },
    })
    .get("/videos/:video/analytics/breakdown", async ({ auth, params, query }) => seller.breakdown(deps, auth.workspaceId, parseId(params.video), query), {
      scope: "analytics:read",
      params: VideoParams,
      query: BreakdownQuery,
      detail: {
        summary: "Breakdown by source, device, ...",
        description:
          `Beyond the core interface. The overview's metrics per value of \`by\`: the ${OVERVIEW_TOP_VALUES} values with the most impressions and one \`other\` row. ` +
          "source = utm_source, else the referrer host, else direct; device, browser and OS come from the User-Agent, country from the IP " +
          "(never stored). Sales count in the row of the session they are traced to. ROAS per row for by=source (ad spend of that source). " +
          "An invalid or missing `by` is 422.",
        responses: documented("api", [404, 422]),
      },
      response: { 200: BreakdownReply },
    })
    .get("/analytics/overview", async ({ auth, query }) => seller.workspaceOverview(deps, auth.workspaceId, query), {
      scope: "analytics:read",
      query: WorkspaceOverviewQuery,
      detail: {
        summary: "Workspace overview",
        description:
          "Beyond the core interface. The seller overview of every video of the workspace, sorted (default: revenue per viewer, highest first; videos " +
          "without a value last) and paged.",
        responses: documented("api", [422]),
      },
      response: { 200: WorkspaceOverviewReply },
    });
}
