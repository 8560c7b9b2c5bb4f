/** Routes of docs/api.md "Funnels": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { createModule } from "../../http/module.ts";
import { documented } from "../../http/openapi-docs.ts";
import { Text } from "../../http/schemas.ts";
import { FunnelReport } from "./model.ts";
import * as funnels from "./service.ts";

const ReportQuery = t.Object({
  entry_video: Text({ maxLength: 64, description: "Numeric id of the video the paths start from." }),
  from: t.Optional(
    Text({
      maxLength: 64,
      description: `ISO date; sessions of the entry video from that day (in \`tz\`); default ${funnels.FUNNEL_DEFAULT_WINDOW_DAYS} days before \`to\`.`,
    }),
  ),
  to: t.Optional(Text({ maxLength: 64, description: "ISO date, last day of the window in `tz`; default today." })),
  tz: t.Optional(Text({ maxLength: 64, description: "IANA time zone applied to day boundaries; default UTC." })),
});

export function funnelsModule(deps: Deps) {
  return createModule("funnels", { tag: "Funnels" })
    .use(authPlugin(deps))
    .get("/funnels/report", async ({ auth, query }) => funnels.report(deps, auth.workspaceId, query), {
      scope: "analytics:read",
      query: ReportQuery,
      detail: {
        summary: "Funnel report",
        description:
          "The paths viewers took from the entry video through quiz choices and CTA cards that name a next video (video → choice → video, " +
          "up to 5 steps deep), with sessions, viewers, plays, completions, leads and revenue at each step. Depth first, busiest path first.",
        responses: documented("api", [404, 422]),
      },
      response: { 200: FunnelReport },
    });
}
