/** `GET /admin/v1/ingest/counters`: the operator's view of ingest per minute. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { validation } from "../../errors.ts";
import { assertAdminKey } from "../../http/admin-key.ts";
import { DateTime } from "../../http/schemas.ts";
import { documented } from "../../http/openapi-docs.ts";

const CounterRow = t.Object({ minute: t.String(), path: t.String(), outcome: t.String(), reason: t.String(), count: t.Integer() });

export function ingestAdminModule(deps: Deps, adminKey: string) {
  return createModule("ingest-admin", { tag: "Operator" }).get(
    "/admin/v1/ingest/counters",
    async ({ query }) => {
      const to = query.to ? new Date(query.to) : new Date(deps.clock.now() + 60_000);
      const from = query.from ? new Date(query.from) : new Date(to.getTime() - 60 * 60_000);
      if (Number.isNaN(from.getTime())) throw validation({ from: ["The from must be an ISO 8601 date-time."] });
      if (Number.isNaN(to.getTime())) throw validation({ to: ["The to must be an ISO 8601 date-time."] });
      // This process's counts of the current minute are written first, so the read is up to date.
      await deps.ingest.counters.flush();
      const result = await deps.ch.query({
        query: `SELECT formatDateTime(minute, '%Y-%m-%dT%H:%i:00Z') AS at, path, outcome, reason, toUInt64(sum(count)) AS total
                FROM ingest_counters WHERE minute >= toDateTime({from:UInt32}) AND minute < toDateTime({to:UInt32})
                GROUP BY minute, path, outcome, reason ORDER BY minute, path, outcome, reason`,
        // The default window reaches an hour before `to`, which may be before 1970 (UInt32 seconds start there).
        query_params: { from: Math.max(0, Math.floor(from.getTime() / 1000)), to: Math.ceil(to.getTime() / 1000) },
        format: "JSONEachRow",
      });
      const rows = await result.json<{ at: string; path: string; outcome: string; reason: string; total: string | number }>();
      return { counters: rows.map((r) => ({ minute: r.at, path: r.path, outcome: r.outcome, reason: r.reason, count: Number(r.total) })) };
    },
    {
      // docs/api.md "The operator API": without a valid key the answer is 401; `transform` runs before the query is validated.
      transform: ({ request }) => assertAdminKey(request.headers, adminKey),
      query: t.Object({
        from: t.Optional(DateTime({ error: "The from must be an ISO 8601 date-time from 1970-01-01 to 2100-12-31." })),
        to: t.Optional(DateTime({ error: "The to must be an ISO 8601 date-time from 1970-01-01 to 2100-12-31." })),
      }),
      detail: {
        summary: "Ingest counters per minute",
        description: "Accepted, deduplicated and rejected (by reason) answers of the events host, per minute and path. Default: the last hour.",
        responses: documented("operator", [422]),
      },
      response: { 200: t.Object({ counters: t.Array(CounterRow) }) },
    },
  );
}
