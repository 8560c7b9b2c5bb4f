/**
 * The operator's probes (README "Probes and metrics"): `/health` (liveness: the process
 * answers, no engine touched), `/ready` (each engine answers) and `/metrics` (Prometheus).
 */
import type { Deps } from "../../deps.ts";
import { assertBearer } from "../../http/admin-key.ts";
import { createModule } from "../../http/module.ts";
import { documented, ErrorSchemas } from "../../http/openapi-docs.ts";
import { CHECK_TIMEOUT_MS, ReadinessProbe, scrape } from "./service.ts";

export function probesModule(deps: Deps) {
  const readiness = new ReadinessProbe(deps);
  const token = deps.config.metricsToken;
  return createModule("probes", { tag: "Operator" })
    .get("/health", () => ({ ok: true }), { detail: { hide: true } })
    .get(
      "/ready",
      async ({ set }) => {
        const answer = await readiness.check();
        set.headers["cache-control"] = "no-store";
        if (!answer.ready) set.status = 503;
        return answer;
      },
      {
        detail: {
          summary: "Readiness",
          description:
            `200 when PostgreSQL, ClickHouse and the media store each answer a cheap call within ${CHECK_TIMEOUT_MS / 1000} s (checked at once, ` +
            "the answer kept a second), 503 otherwise; `checks` says `ok` or why not for each, `spool` how many event batches wait in " +
            "PostgreSQL for ClickHouse. No token: for load balancers. `/health` is the liveness probe (no engine touched).",
          security: [],
          responses: documented("probe", [[503, "Readiness"]]),
        },
        response: { 200: ErrorSchemas.Readiness },
      },
    )
    .get(
      "/metrics",
      async ({ request }) => {
        if (token !== undefined) assertBearer(request.headers, token);
        return new Response(await scrape(deps), { headers: { "Content-Type": deps.metrics.contentType, "Cache-Control": "no-store" } });
      },
      {
        detail: {
          summary: "Prometheus metrics",
          description:
            "This process's metrics in the Prometheus text format: requests by route pattern and status, ingest, jobs, webhooks, encoding, " +
            'and the process\'s own (README "Probes and metrics" lists them). `Authorization: Bearer <METRICS_TOKEN>` when METRICS_TOKEN ' +
            "is set (401 otherwise); open when it is not, which suits a private network only.",
          security: [{ metricsToken: [] }],
          responses: documented("probe", [401], {
            200: { description: "The metrics, text format 0.0.4.", content: { "text/plain": { schema: { type: "string" } } } },
          }),
        },
      },
    );
}
