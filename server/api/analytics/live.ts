/**
 * "Watching now" on Home (README "The dashboard"): the viewers of the workspace
 * whose player sent a heartbeat (a `watched` range) in the last minute. A read of
 * the last minute only, so its cost does not grow with history.
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { documented } from "../../http/openapi-docs.ts";

export const LIVE_WINDOW_MS = 60_000;

export function liveModule(deps: Deps) {
  return createModule("analytics-live", { tag: "Analytics" })
    .use(authPlugin(deps))
    .get(
      "/analytics/live",
      async ({ auth }) => {
        const since = deps.clock.now() - LIVE_WINDOW_MS;
        const result = await deps.ch.query({
          query: `SELECT uniqExact(session_code) AS watching FROM events
                  WHERE workspace_id = {workspace:UInt64} AND event_type = 'watched'
                    AND created_at >= fromUnixTimestamp64Milli({since:Int64}) AND session_code != ''`,
          query_params: { workspace: auth.workspaceId, since },
          format: "JSONEachRow",
        });
        const [row] = await result.json<{ watching: string | number }>();
        return { watching_now: Number(row?.watching ?? 0), since: new Date(since).toISOString() };
      },
      {
        scope: "analytics:read",
        detail: {
          summary: "Watching now",
          description: "Beyond the core interface. Viewers of the workspace whose player sent a heartbeat in the last minute.",
          responses: documented("api", []),
        },
        response: {
          200: t.Object({
            watching_now: t.Integer({ description: "Sessions with a heartbeat since `since`." }),
            since: t.String({ format: "date-time" }),
          }),
        },
      },
    );
}
