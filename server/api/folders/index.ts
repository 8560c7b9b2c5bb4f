/** docs/api.md "Folders": a folder changes only where a video is listed. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { Id, Text } from "../../http/schemas.ts";
import * as repo from "./repo.ts";
import type { FolderRow } from "./repo.ts";
import { documented } from "../../http/openapi-docs.ts";

const Folder = t.Object({
  id: t.Integer(),
  parent_id: t.Nullable(t.Integer()),
  name: t.String(),
  color: t.Nullable(t.String()),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

const CreateFolderBody = t.Object({
  name: Text({ minLength: 1, maxLength: 255, error: "The name must be a string of 1 to 255 characters." }),
  parent_id: t.Optional(t.Nullable(Id({ error: "The parent_id must be an integer id of a folder." }))),
  color: t.Optional(t.Nullable(Text({ maxLength: 32, error: "The color must be a string of at most 32 characters." }))),
});

function toFolder(row: FolderRow) {
  return {
    id: row.id,
    parent_id: row.parent_id,
    name: row.name,
    color: row.color,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function foldersModule(deps: Deps) {
  return createModule("folders")
    .use(authPlugin(deps))
    .post(
      "/folders",
      ({ auth, body, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => {
          const row = await repo.insertFolder(deps.sql, auth.workspaceId, body);
          if (!row) throw Errors.folderNotFound();
          return { status: 201, body: { folder: toFolder(row) } };
        }),
      {
        scope: "videos:write",
        body: CreateFolderBody,
        detail: {
          tags: ["Folders"],
          summary: "Create a folder",
          description: "`parent_id` nests it; a parent outside this workspace gives 422 FOLDER_NOT_FOUND.",
          responses: documented("api", [400, 409, [422, "ValidationError", "ApiError"]]),
        },
        response: { 201: t.Object({ folder: Folder }) },
      },
    )
    .get(
      "/folders",
      async ({ auth }) => ({
        folders: (await repo.listFolders(deps.sql, auth.workspaceId)).map((row) => ({ ...toFolder(row), videos_count: row.videos_count ?? 0 })),
      }),
      {
        scope: "videos:read",
        detail: {
          tags: ["Folders"],
          summary: "List folders",
          description: "Every folder of the workspace with its `videos_count`.",
          responses: documented("api", []),
        },
        response: { 200: t.Object({ folders: t.Array(t.Composite([Folder, t.Object({ videos_count: t.Integer() })])) }) },
      },
    );
}
