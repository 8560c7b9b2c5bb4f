/** `GET /admin/v1/processes`: the apps and workers running on this deployment's database. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { assertAdminKey } from "../../http/admin-key.ts";
import { documented } from "../../http/openapi-docs.ts";
import { listProcesses } from "../../domains/processes/service.ts";
import { LIVE_WITHIN_S } from "../../domains/processes/repo.ts";

const Process = t.Object({
  id: t.String({ format: "uuid" }),
  role: t.Union([t.Literal("app"), t.Literal("worker")]),
  host: t.String(),
  pid: t.Integer(),
  version: t.String(),
  engines: t.Object({ postgres: t.String(), clickhouse: t.String(), media: t.String() }),
  public_url: t.Nullable(t.String()),
  started_at: t.String({ format: "date-time" }),
  last_seen: t.String({ format: "date-time" }),
});

export function processesAdminModule(deps: Deps, adminKey: string) {
  return createModule("processes-admin", { tag: "Operator" }).get(
    "/admin/v1/processes",
    async ({ request }) => {
      assertAdminKey(request.headers, adminKey);
      const rows = await listProcesses(deps.sql);
      return {
        processes: rows.map((r) => ({ ...r, started_at: r.started_at.toISOString(), last_seen: r.last_seen.toISOString() })),
      };
    },
    {
      detail: {
        summary: "Running processes",
        description:
          `Every app and worker that registered on this database and touched its row in the last ${LIVE_WITHIN_S} s: role, host, pid, version, ` +
          "where it keeps each engine (without credentials) and its PUBLIC_URL (null when not set). A process whose configuration would split " +
          "the truth (another ClickHouse, media on its own disk, no PUBLIC_URL beside other apps) refuses to start and never appears here.",
        responses: documented("operator", []),
      },
      response: { 200: t.Object({ processes: t.Array(Process) }) },
    },
  );
}
