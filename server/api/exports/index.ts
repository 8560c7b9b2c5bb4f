/** Routes of docs/api.md "Exports": validation and HTTP only; rules live in service.ts. */
import type { Deps } from "../../deps.ts";
import { createModule } from "../../http/module.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { CreateExportBody, ExportCreated, ExportParams, ExportRead } from "./model.ts";
import * as exports from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

export function exportsModule(deps: Deps) {
  return createModule("exports", { tag: "Exports" })
    .use(authPlugin(deps))
    .post(
      "/exports",
      ({ auth, body, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => ({ status: 202, body: await exports.createExport(deps, auth.workspaceId, body) })),
      {
        scope: "analytics:read",
        body: CreateExportBody,
        detail: {
          summary: "Start an export",
          description:
            "Builds a csv (with a header row) or json (an array of objects) file of one analytics read for 1 to 50 videos over UTC days. " +
            "Beyond the core interface, `type` also takes `overview` (the seller overview, one row per video and currency) and `breakdown` (with `by`: " +
            "one row per video, value and currency). " +
            "Poll `GET /exports/{export}` until `ready`, then fetch `download_url`. Exports expire 7 days after creation. Honours `Idempotency-Key`.",
          responses: documented("api", [400, 404, 409, 422]),
        },
        response: { 202: ExportCreated },
      },
    )
    .get("/exports/:export", async ({ auth, params }) => exports.readExport(deps, auth.workspaceId, params.export), {
      scope: "analytics:read",
      params: ExportParams,
      detail: { summary: "Export status", description: "`download_url` is null until the export is `ready`.", responses: documented("api", [404, 422]) },
      response: { 200: ExportRead },
    })
    .get(
      "/exports/:export/download",
      async ({ auth, params, set }) => {
        const file = await exports.openDownload(deps, auth.workspaceId, params.export);
        return new Response(file.body, {
          headers: {
            ...(set.headers as Record<string, string>),
            "Content-Type": file.contentType,
            "Content-Length": String(file.size),
            "Content-Disposition": `attachment; filename="${file.filename}"`,
            "Cache-Control": "private, no-store",
          },
        });
      },
      {
        scope: "analytics:read",
        params: ExportParams,
        detail: {
          summary: "Download an export",
          description: "The file, streamed: `text/csv` or `application/json`. An export that is not ready yet is 404 EXPORT_NOT_FOUND.",
          responses: documented("api", [404, 422], {
            200: {
              description: "The file: csv with a header row, or json, an array of objects.",
              content: { "text/csv": { schema: { type: "string" } }, "application/json": { schema: { type: "array", items: { type: "object" } } } },
            },
          }),
        },
      },
    );
}
