/** Routes of ad spend (beyond the core interface): validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { parseId } from "../../http/params.ts";
import { AdSpend, AdSpendBody, AdSpendItemParams, AdSpendParams, AdSpendQuery } from "./model.ts";
import * as adSpend from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

export function adSpendModule(deps: Deps) {
  return createModule("ad-spend", { tag: "Analytics" })
    .use(authPlugin(deps))
    .post(
      "/videos/:video/ad-spend",
      ({ auth, body, params, request, set }) =>
        idempotent(deps, { auth, request, set }, body, () => adSpend.saveAdSpend(deps, auth.workspaceId, parseId(params.video), body)),
      {
        // A write: it changes what the analytics show, so it needs the write scope of videos, not analytics:read.
        scope: "videos:write",
        params: AdSpendParams,
        body: AdSpendBody,
        detail: {
          summary: "Enter ad spend",
          description:
            "Scope `videos:write`. What was spent on this video's traffic on one day and source; the same day and source again replaces it " +
            "(201 when new, 200 when replaced). ROAS in the analytics overview = revenue / spend in the same currency over the window's days. " +
            "Honours `Idempotency-Key`. 422 for a bad date, amount, currency or source; 404 for a video of another workspace.",
          responses: documented("api", [400, 404, 409, 422]),
        },
        response: { 200: t.Object({ ad_spend: AdSpend }), 201: t.Object({ ad_spend: AdSpend }) },
      },
    )
    .get("/videos/:video/ad-spend", ({ auth, params, query }) => adSpend.listAdSpend(deps, auth.workspaceId, parseId(params.video), query), {
      scope: "analytics:read",
      params: AdSpendParams,
      query: AdSpendQuery,
      detail: {
        summary: "List ad spend",
        description: "Scope `analytics:read`. The video's ad spend rows on the days from..to (default the last 30), newest first.",
        responses: documented("api", [404, 422]),
      },
      response: {
        200: t.Object({ video_id: t.Integer(), from: t.String({ format: "date" }), to: t.String({ format: "date" }), ad_spend: t.Array(AdSpend) }),
      },
    })
    .delete("/videos/:video/ad-spend/:id", ({ auth, params }) => adSpend.deleteAdSpend(deps, auth.workspaceId, parseId(params.video), parseId(params.id)), {
      scope: "videos:write",
      params: AdSpendItemParams,
      detail: {
        summary: "Delete ad spend",
        description: "Scope `videos:write`. Removes one ad spend row; 404 when it is not this video's.",
        responses: documented("api", [404]),
      },
      response: { 200: t.Object({ deleted: t.Boolean() }) },
    });
}
