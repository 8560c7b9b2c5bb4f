/**
 * Routes of split tests (beyond the core interface): the resource under /api/v1/split-tests and
 * the events host's `POST /v1/split-test`, which the test's embed asks. Validation
 * and HTTP only; rules live in service.ts and report.ts.
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { documented } from "../../http/openapi-docs.ts";
import { idempotent } from "../../http/idempotency.ts";
import { paginate } from "../../http/pagination.ts";
import { parseId } from "../../http/params.ts";
import { browserPreflight } from "../../http/cors.ts";
import { browserRoute, clientIp, limit, perMinute, type SocketInfo } from "../../hosts/events/http.ts";
import {
  AssignBody,
  AssignReply,
  CreateSplitTestBody,
  EndSplitTestBody,
  ListSplitTestsQuery,
  Report,
  ReportQuery,
  SplitTest,
  SplitTestParams,
} from "./model.ts";
import { splitTestReport } from "./report.ts";
import * as splitTests from "./service.ts";

const Reply = t.Object({ split_test: SplitTest });

/** Pause and resume differ only in the flag they set and their text. */
const pauseRoute = {
  scope: "videos:write" as const,
  params: SplitTestParams,
  detail: { responses: documented("api", [404, 422]) },
  response: { 200: Reply },
};

export function splitTestsModule(deps: Deps) {
  const { config } = deps;
  const reply = (row: Parameters<typeof splitTests.toSplitTest>[1]) => ({ split_test: splitTests.toSplitTest(config, row) });

  return createModule("split-tests", { tag: "Split tests" })
    .use(authPlugin(deps))
    .post(
      "/split-tests",
      ({ auth, body, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => ({
          status: 201,
          body: reply(await splitTests.createSplitTest(deps, auth.workspaceId, body)),
        })),
      {
        scope: "videos:write",
        body: CreateSplitTestBody,
        detail: {
          summary: "Create a split test",
          description:
            "Scope `videos:write`. Beyond the core interface. 2 to 10 variations `{video_id, weight}` of this workspace's videos, weights (whole percents) " +
            "summing to 100; the first is the control. Starts running at once: the test's snippet (`embed.html`) and, while the test is not ended, " +
            "the control's own embed serve each device one variation by weight, always the same one. A video is in one test at a time. " +
            "404 VIDEO_NOT_FOUND when a video is not this workspace's; 422 for bad fields, weights not summing to 100, a repeated video, or a video " +
            "already in a test that has not ended. Honours `Idempotency-Key`.",
          responses: documented("api", [400, 404, 409, 422, 500]),
        },
        response: { 201: Reply },
      },
    )
    .get(
      "/split-tests",
      async ({ auth, query, request }) => {
        const { rows, total, page, perPage } = await splitTests.listSplitTests(deps, auth.workspaceId, query);
        return paginate({ publicUrl: config.publicUrl, request, data: rows.map((r) => splitTests.toSplitTest(config, r)), page, perPage, total });
      },
      {
        scope: "videos:read",
        query: ListSplitTestsQuery,
        detail: {
          summary: "List split tests",
          description: "Scope `videos:read`. The standard pagination envelope, newest first; `per_page` 1 to 100 (default 20).",
          responses: documented("api", [422]),
        },
        response: { 200: t.Object({ data: t.Array(SplitTest) }, { additionalProperties: true }) },
      },
    )
    .get("/split-tests/:id", async ({ auth, params }) => reply(await splitTests.getSplitTest(deps, auth.workspaceId, parseId(params.id))), {
      scope: "videos:read",
      params: SplitTestParams,
      detail: { summary: "Read a split test", description: "Scope `videos:read`. Another workspace's test is 404.", responses: documented("api", [404]) },
      response: { 200: Reply },
    })
    .post("/split-tests/:id/pause", async ({ auth, params }) => reply(await splitTests.setPaused(deps, auth.workspaceId, parseId(params.id), true)), {
      ...pauseRoute,
      detail: {
        ...pauseRoute.detail,
        summary: "Pause a split test",
        description: "Scope `videos:write`. Every viewer is served the control, outside the test, until it is resumed. 422 once ended.",
      },
    })
    .post("/split-tests/:id/resume", async ({ auth, params }) => reply(await splitTests.setPaused(deps, auth.workspaceId, parseId(params.id), false)), {
      ...pauseRoute,
      detail: {
        ...pauseRoute.detail,
        summary: "Resume a split test",
        description: "Scope `videos:write`. Back to serving by weight; each device gets the variation it had. 422 once ended.",
      },
    })
    .post(
      "/split-tests/:id/end",
      async ({ auth, params, body }) => reply(await splitTests.endSplitTest(deps, auth.workspaceId, parseId(params.id), body.winner_variation_id)),
      {
        scope: "videos:write",
        params: SplitTestParams,
        body: EndSplitTestBody,
        detail: {
          summary: "End a split test with a winner",
          description:
            "Scope `videos:write`. The chosen variation is served to everyone by the test's snippet from now on; the control's embed plays the " +
            "control again. 422 when the variation is not this test's or the test already ended.",
          responses: documented("api", [400, 404, 422, 500]),
        },
        response: { 200: Reply },
      },
    )
    .get("/split-tests/:id/report", ({ auth, params, query }) => splitTestReport(deps, auth.workspaceId, parseId(params.id), query), {
      scope: "analytics:read",
      params: SplitTestParams,
      query: ReportQuery,
      detail: {
        summary: "Split test report",
        description:
          "Scope `analytics:read`. Per variation, over the sessions served it by weight in the window (default: from the day the test was created " +
          "to today): impressions, plays, play rate, conversions and conversion rate (sales traced to its played sessions / plays), revenue per " +
          "currency (verified, non-test) with revenue per viewer, and the goal as a binomial (trials, successes, rate) with the difference to the " +
          "control, its 95 % confidence interval, the p-value and the probability to beat the control (two-proportion z-test, README " +
          '"Split tests"); the decision of the winner rule on this window; and the goal per day for a chart.',
        responses: documented("api", [404, 422]),
      },
      response: { 200: Report },
    });
}

/** `POST /v1/split-test` on the events host: which variation this viewer is served (no token; the test's embed asks). */
export function splitTestAssignModule(deps: Deps) {
  const ipRule = perMinute("collect_ip", deps.config.eventLimits.perIpPerMinute * 10);
  return createModule("split-test-assign", { tag: "Events host" })
    .options("/v1/split-test", browserPreflight, { detail: { hide: true } })
    .post(
      "/v1/split-test",
      async ({ body, request, server }) => {
        await limit(deps, [{ key: `ip:${clientIp(deps, request, server as SocketInfo | null)}`, rule: ipRule }]);
        return splitTests.assign(deps, body);
      },
      {
        ...browserRoute(AssignBody),
        detail: {
          summary: "Split test: the variation a viewer is served (no token)",
          description:
            "Asked by a split test's snippet and by its control's embed before the player loads. Running: a variation by weight, the same for a " +
            "device every time (a hash of the test and `device_id`, else `session_id`), recorded on the session, whose player events, custom " +
            "events and sales then carry `split_test_id` and `split_test_variation_id`; `in_test` true. Paused: the control; promoted or ended: the " +
            "winner (`in_test` false, the session counts in no variation). 404 NOT_FOUND for an unknown test or another workspace's. " +
            "CORS-enabled; `text/plain` accepted; the same per-IP limit as /v1/collect.",
          security: [],
          responses: documented("browser", [404, 503]),
        },
        response: { 200: AssignReply },
      },
    );
}
