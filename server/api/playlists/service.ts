/**
 * The rules of docs/api.md "Playlists" and the "Playlist enabled flag" table. A
 * playlist is the container video's `playlist_options` group: every write goes
 * through the live settings (compiled and pushed like a deploy, so the chrome
 * shows or stops showing at once) and records no deploy version.
 */
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { readItem, withDefaults, type Settings } from "../../../contract/settings.ts";
import { updateLiveSettings } from "../settings/service.ts";
import { VIDEO_MODEL } from "../videos/service.ts";
import type { VideoRow } from "../videos/repo.ts";
import type { AddItemBody, CreatePlaylistBody, PlaylistItem, UpdateItemBody, UpdatePlaylistBody } from "./model.ts";
import * as repo from "./repo.ts";

export type Item = typeof PlaylistItem.static;
type PlaylistOptions = Settings["playlist_options"];

export const DEFAULT_PER_PAGE = 50;

const playlistOf = (row: VideoRow) => withDefaults(row.settings).playlist_options;

export const toItem = (item: Pick<Item, "video_code"> & Partial<Item>): Item => readItem(item);

const itemsOf = (p: PlaylistOptions): Item[] => (p.items ?? []).map(toItem);

/** The read shape; `playlist_chrome` is writable but never read (docs/api.md "Playlist and playlist item"). */
export function toPlaylist(row: VideoRow) {
  const p = playlistOf(row);
  return {
    video_id: row.id,
    video_code: row.code,
    title: row.title,
    // A group stored before a field existed reads as the player reads it (compiler/config.ts).
    playback_mode: p.playback_mode ?? "linear",
    playlist_code: p.playlist_code ?? null,
    item_count: itemsOf(p).length,
    auto_advance: p.auto_advance !== false,
    loop: p.loop === true,
    lesson_navigation: p.lesson_navigation ?? "sidebar",
  };
}

/** Only the fields a request sent (an absent optional stays absent). */
const sent = <T extends object>(body: T) => Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<T>;

export async function listPlaylists(deps: Deps, workspaceId: number, page: number, perPage: number) {
  const { rows, total } = await repo.listEnabledPlaylists(deps.sql, workspaceId, perPage, (page - 1) * perPage);
  return { current_page: page, data: rows.map(toPlaylist), per_page: perPage, total };
}

/** A disabled playlist has left the list and reads as not found. */
export async function getPlaylist(deps: Deps, workspaceId: number, id: number): Promise<VideoRow> {
  const row = await repo.findEnabledPlaylist(deps.sql, workspaceId, id);
  if (!row) throw Errors.modelNotFound(VIDEO_MODEL, id);
  return row;
}

export async function listItems(deps: Deps, workspaceId: number, id: number): Promise<Item[]> {
  return itemsOf(playlistOf(await getPlaylist(deps, workspaceId, id)));
}

/** Changes the playlist of an enabled container; 404 when it has none. */
function changeEnabled(deps: Deps, workspaceId: number, id: number, change: (p: PlaylistOptions) => PlaylistOptions | undefined): Promise<VideoRow> {
  return updateLiveSettings(deps, workspaceId, id, (_row, live) => {
    const p = live.playlist_options;
    if (p.enabled !== true) throw Errors.modelNotFound(VIDEO_MODEL, id);
    const next = change(p);
    return next && { ...live, playlist_options: next };
  });
}

/** Rule 2 and the enabled-flag table: create, or re-enable applying only the fields sent. */
export async function createPlaylist(deps: Deps, workspaceId: number, body: CreatePlaylistBody): Promise<VideoRow> {
  const { video_id, items, ...fields } = body;
  return updateLiveSettings(deps, workspaceId, video_id, (_row, live) => {
    const p = live.playlist_options;
    return {
      ...live,
      playlist_options: { ...p, ...sent(fields), ...(items ? { items: items.map(toItem) } : {}), enabled: true },
    };
  });
}

export async function updatePlaylist(deps: Deps, workspaceId: number, id: number, body: UpdatePlaylistBody): Promise<VideoRow> {
  return changeEnabled(deps, workspaceId, id, (p) => ({ ...p, ...sent(body) }));
}

/** Soft disable: `enabled` false, items kept (rule 5). */
export async function disablePlaylist(deps: Deps, workspaceId: number, id: number): Promise<void> {
  await changeEnabled(deps, workspaceId, id, (p) => ({ ...p, enabled: false }));
}

/** Rule 3: an existing code is appended again. */
export async function addItem(deps: Deps, workspaceId: number, id: number, body: AddItemBody): Promise<Item[]> {
  const row = await changeEnabled(deps, workspaceId, id, (p) => ({ ...p, items: [...itemsOf(p), toItem(body)] }));
  return itemsOf(playlistOf(row));
}

/** Items are addressed by code; every entry with that code is updated. Unknown → 404 NOT_FOUND (rule 4). */
export async function updateItem(deps: Deps, workspaceId: number, id: number, code: string, body: UpdateItemBody): Promise<Item[]> {
  const row = await changeEnabled(deps, workspaceId, id, (p) => {
    const items = itemsOf(p);
    if (!items.some((i) => i.video_code === code)) throw Errors.notFound("Item not found.");
    return { ...p, items: items.map((i) => (i.video_code === code ? { ...i, ...sent(body) } : i)) };
  });
  return itemsOf(playlistOf(row));
}

/** Removes every entry with that code; an unknown code leaves the list unchanged (rule 4). */
export async function removeItem(deps: Deps, workspaceId: number, id: number, code: string): Promise<Item[]> {
  const row = await changeEnabled(deps, workspaceId, id, (p) => {
    const items = itemsOf(p);
    const kept = items.filter((i) => i.video_code !== code);
    return kept.length === items.length ? undefined : { ...p, items: kept };
  });
  return itemsOf(playlistOf(row));
}
