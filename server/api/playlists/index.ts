/** Routes of docs/api.md "Playlists": validation and HTTP only; rules live in service.ts. */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { parseId } from "../../http/params.ts";
import { PathId, Text } from "../../http/schemas.ts";
import { VIDEO_MODEL } from "../videos/service.ts";
import { AddItemBody, CreatePlaylistBody, ListPlaylistsQuery, Playlist, PlaylistItem, UpdateItemBody, UpdatePlaylistBody } from "./model.ts";
import * as playlists from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

const PlaylistParams = t.Object({ playlist: PathId("The container video's numeric id") });
const ItemParams = t.Object({
  playlist: PathId("The container video's numeric id"),
  // Longer than any stored code: such a code resolves to nothing (404), like any unknown one.
  video: Text({ maxLength: 1024, description: "The item's video_code (a numeric id resolves to nothing)" }),
});

const playlistId = (raw: string) => {
  const id = parseId(raw);
  if (id === undefined) throw Errors.modelNotFound(VIDEO_MODEL, raw);
  return id;
};

/** Items are addressed by video_code; a numeric id there resolves to nothing (docs/api.md "Playlists"). */
const itemCode = (raw: string) => {
  if (/^\d+$/.test(raw)) throw Errors.notFound("Item not found.");
  return raw;
};

export function playlistsModule(deps: Deps) {
  return createModule("playlists", { tag: "Playlists" })
    .use(authPlugin(deps))
    .get("/playlists", ({ auth, query }) => playlists.listPlaylists(deps, auth.workspaceId, query.page ?? 1, query.per_page ?? playlists.DEFAULT_PER_PAGE), {
      scope: "videos:read",
      query: ListPlaylistsQuery,
      detail: { summary: "List enabled playlists", responses: documented("api", [422]) },
      response: { 200: t.Object({ current_page: t.Integer(), data: t.Array(Playlist), per_page: t.Integer(), total: t.Integer() }) },
    })
    .get(
      "/playlists/:playlist",
      async ({ auth, params }) => ({ playlist: playlists.toPlaylist(await playlists.getPlaylist(deps, auth.workspaceId, playlistId(params.playlist))) }),
      {
        scope: "videos:read",
        params: PlaylistParams,
        detail: { summary: "Read a playlist", responses: documented("api", [[404, "ModelNotFound"]]) },
        response: { 200: t.Object({ playlist: Playlist }) },
      },
    )
    .get(
      "/playlists/:playlist/videos",
      async ({ auth, params }) => {
        const items = await playlists.listItems(deps, auth.workspaceId, playlistId(params.playlist));
        return { items, total: items.length };
      },
      {
        scope: "videos:read",
        params: PlaylistParams,
        detail: { summary: "List a playlist's items", responses: documented("api", [[404, "ModelNotFound"]]) },
        response: { 200: t.Object({ items: t.Array(PlaylistItem), total: t.Integer() }) },
      },
    )
    .post(
      "/playlists",
      async ({ auth, body, set }) => {
        const row = await playlists.createPlaylist(deps, auth.workspaceId, body);
        set.status = 201;
        return { playlist: playlists.toPlaylist(row) };
      },
      {
        scope: "videos:write",
        body: CreatePlaylistBody,
        detail: {
          summary: "Create or re-enable a playlist",
          description:
            "Stored on the container video. On a video that already has one, re-enables it and applies only the fields sent. `auto_advance_delay_ms` and `lesson_navigation` are set by PATCH only.",
          responses: documented("api", [400, [404, "ModelNotFound"], 422]),
        },
        response: { 201: t.Object({ playlist: Playlist }) },
      },
    )
    .patch(
      "/playlists/:playlist",
      async ({ auth, params, body }) => ({
        playlist: playlists.toPlaylist(await playlists.updatePlaylist(deps, auth.workspaceId, playlistId(params.playlist), body)),
      }),
      {
        scope: "videos:write",
        params: PlaylistParams,
        body: UpdatePlaylistBody,
        detail: {
          summary: "Update a playlist",
          description: "Items are changed through the item routes.",
          responses: documented("api", [400, [404, "ModelNotFound"], 422]),
        },
        response: { 200: t.Object({ playlist: Playlist }) },
      },
    )
    .delete(
      "/playlists/:playlist",
      ({ auth, params, request, set }) =>
        idempotent(deps, { auth, request, set }, null, async () => {
          await playlists.disablePlaylist(deps, auth.workspaceId, playlistId(params.playlist));
          return { status: 200, body: { deleted: true } };
        }),
      {
        scope: "videos:write",
        params: PlaylistParams,
        detail: {
          summary: "Disable a playlist",
          description: "Soft: items are kept; POST /playlists re-enables it.",
          responses: documented("api", [[404, "ModelNotFound"], 409, 422]),
        },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      },
    )
    .post(
      "/playlists/:playlist/videos",
      async ({ auth, params, body, set }) => {
        const items = await playlists.addItem(deps, auth.workspaceId, playlistId(params.playlist), body);
        set.status = 201;
        return { items };
      },
      {
        scope: "videos:write",
        params: PlaylistParams,
        body: AddItemBody,
        detail: {
          summary: "Add an item",
          description: "An existing video_code is appended again.",
          responses: documented("api", [400, [404, "ModelNotFound"], 422]),
        },
        response: { 201: t.Object({ items: t.Array(PlaylistItem) }) },
      },
    )
    .patch(
      "/playlists/:playlist/videos/:video",
      ({ auth, params, body, request, set }) =>
        idempotent(deps, { auth, request, set }, body, async () => {
          const items = await playlists.updateItem(deps, auth.workspaceId, playlistId(params.playlist), itemCode(params.video), body);
          return { status: 200, body: { items, total: items.length } };
        }),
      {
        scope: "videos:write",
        params: ItemParams,
        body: UpdateItemBody,
        detail: {
          summary: "Update an item",
          description: "404 `{message}` for an unknown playlist, 404 NOT_FOUND (`Item not found.`) for a code not in it.",
          responses: documented("api", [400, [404, "ModelNotFound", "ApiError"], 409, 422]),
        },
        response: { 200: t.Object({ items: t.Array(PlaylistItem), total: t.Integer() }) },
      },
    )
    .delete(
      "/playlists/:playlist/videos/:video",
      async ({ auth, params }) => ({ items: await playlists.removeItem(deps, auth.workspaceId, playlistId(params.playlist), itemCode(params.video)) }),
      {
        scope: "videos:write",
        params: ItemParams,
        detail: {
          summary: "Remove an item",
          description: "An unknown code leaves the list unchanged; a numeric one is 404 NOT_FOUND.",
          responses: documented("api", [[404, "ModelNotFound", "ApiError"], 422]),
        },
        response: { 200: t.Object({ items: t.Array(PlaylistItem) }) },
      },
    );
}
