/** The rules of docs/api.md "Videos"; knows nothing of HTTP. */
import type { Deps } from "../../deps.ts";
import type { Config } from "../../config.ts";
import { Errors } from "../../errors.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";
import { COPIED_GROUPS, defaultSettings, withDefaults, type GroupName, type Settings } from "../../../contract/settings.ts";
import { SORT_COLUMNS, type TokenBody, type CreateVideoBody, type ListVideosQuery, type SortColumn, type UpdateVideoBody } from "./model.ts";
import * as repo from "./repo.ts";
import { deletePrivate, entryScriptUrl, mediaUrlOf, privateBlob, PUBLIC_PREFIX } from "../../storage/media-keys.ts";
import { entryKey } from "../../../compiler/index.ts";
import { entryChanged } from "../../storage/entry-cache.ts";
import type { MediaState, SlimVideoRow, VideoRow } from "./repo.ts";
import { checkedOrigins, mintToken, TOKEN_TTL_S } from "../../domains/playback/service.ts";
import { accessRuleErrors, normalisedRules, type AccessRule } from "../../domains/playback/access-rules.ts";
import { validation } from "../../errors.ts";

export const VIDEO_MODEL = "Video";

/** Stable per video: the compiler overwrites the object behind it on every deploy. */
export function scriptUrl(config: Config, code: string): string {
  return entryScriptUrl(config, entryKey(code));
}

export function toFullVideo(config: Config, row: VideoRow) {
  return {
    id: row.id,
    code: row.code,
    workspace_id: row.workspace_id,
    title: row.title,
    folder_id: row.folder_id,
    tags: row.tags,
    player_version: row.player_version,
    plain_mode: row.plain_mode,
    landscape_hls: mediaUrlOf(config, row.landscape_hls),
    portrait_hls: mediaUrlOf(config, row.portrait_hls),
    landscape_thumb: mediaUrlOf(config, row.landscape_thumb),
    portrait_thumb: mediaUrlOf(config, row.portrait_thumb),
    script_url: scriptUrl(config, row.code),
    default_orientation: row.default_orientation,
    ...withDefaults(row.settings),
    allowed_origins: row.allowed_origins ?? [],
    require_signed_urls: row.require_signed_urls ?? false,
    encryption: row.encryption ?? "none",
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toSlimVideo(row: SlimVideoRow) {
  return {
    id: row.id,
    title: row.title,
    code: row.code,
    workspace_id: row.workspace_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function orientationView(media: MediaState | null) {
  return media ? { status: media.status, progress: media.progress, error: media.error } : null;
}

/** docs/api.md "Video processing status": the video-level value from its orientations. */
export function videoStatus(row: Pick<VideoRow, "landscape_media" | "portrait_media">): "waiting_for_upload" | "processing" | "ready" | "error" {
  const sent = [row.landscape_media, row.portrait_media].filter((m): m is MediaState => m !== null);
  if (sent.length === 0) return "waiting_for_upload";
  if (sent.some((m) => m.status === "error")) return "error";
  if (sent.some((m) => m.status !== "ready")) return "processing";
  return "ready";
}

export function embedFor(config: Config, row: VideoRow) {
  // The script URL may carry a query (`&` in an attribute is written `&amp;`).
  const src = scriptUrl(config, row.code).replaceAll("&", "&amp;");
  const attrs = `data-video="${row.code}"`;
  return {
    script_url: src,
    html: `<div class="frameline-player" ${attrs}></div><script async src="${src}"></script>`,
    plain_html: `<div class="frameline-player" ${attrs} data-mode="plain"></div><script async src="${src}"></script>`,
  };
}

/** The status object as upload calls and create return it. */
export function toStatus(config: Config, row: VideoRow) {
  const status = videoStatus(row);
  return {
    id: row.id,
    status,
    orientations: { landscape: orientationView(row.landscape_media), portrait: orientationView(row.portrait_media) },
    plain_mode: row.plain_mode,
    embed: status === "ready" ? embedFor(config, row) : null,
  };
}

/** The status read adds the video's identity and its own URL. */
export function toStatusRead(config: Config, row: VideoRow) {
  const { id, ...rest } = toStatus(config, row);
  return { id, code: row.code, title: row.title, folder_id: row.folder_id, ...rest, status_url: `${config.publicUrl}/api/v1/videos/${row.id}/status` };
}

/** A cached row of this workspace, or undefined (then call getVideo). */
export function peekVideo(deps: Deps, workspaceId: number, id: number): VideoRow | undefined {
  const row = deps.videoCache.peek(id) as VideoRow | undefined;
  return row && row.workspace_id === workspaceId ? row : undefined;
}

/** Reads through the video cache; the workspace check runs on every hit. */
export async function getVideo(deps: Deps, workspaceId: number, id: number): Promise<VideoRow | undefined> {
  const row = (deps.videoCache.peek(id) ?? (await deps.videoCache.load(id, () => repo.findVideoById(deps.sql, id)))) as VideoRow | undefined;
  return row && row.workspace_id === workspaceId ? row : undefined;
}

export async function listVideos(deps: Deps, workspaceId: number, query: ListVideosQuery) {
  const sort: SortColumn = (SORT_COLUMNS as readonly string[]).includes(query.sort ?? "") ? (query.sort as SortColumn) : "id";
  const order = query.order?.toLowerCase() === "asc" ? "asc" : "desc";
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 50;
  const { rows, total } = await repo.listVideos(deps.sql, workspaceId, {
    sort,
    order,
    limit: perPage,
    offset: (page - 1) * perPage,
    folderId: query.folder_id,
    search: query.search,
  });
  return { rows, total, page, perPage };
}

const copyGroup = <K extends GroupName>(to: Settings, from: Settings, name: K) => {
  to[name] = structuredClone(from[name]);
};

/** Copies the 18 copy_from groups; an unknown or foreign id copies nothing (rule 1). */
function copiedSettings(source: VideoRow | undefined): { settings: Settings; playerVersion?: string } {
  const settings = defaultSettings();
  if (!source) return { settings };
  const stored = withDefaults(source.settings);
  for (const name of COPIED_GROUPS) copyGroup(settings, stored, name);
  return { settings, playerVersion: source.player_version };
}

export async function createVideo(deps: Deps, workspaceId: number, input: CreateVideoBody): Promise<VideoRow> {
  return deps.sql.begin(async (tx) => {
    if (input.folder_id != null && !(await repo.folderBelongsTo(tx, workspaceId, input.folder_id))) throw Errors.folderNotFound();
    const source = input.copy_from === undefined ? undefined : await repo.findVideo(tx, workspaceId, input.copy_from);
    const copied = copiedSettings(source);
    const row = await repo.insertVideo(tx, {
      workspace_id: workspaceId,
      title: input.title,
      folder_id: input.folder_id ?? null,
      tags: input.tags ?? [],
      // An explicit player_version wins over the copied one.
      player_version: input.player_version ?? copied.playerVersion ?? "v2",
      plain_mode: input.plain_mode ?? false,
      settings: copied.settings,
    });
    await enqueueEvent(tx, workspaceId, LifecycleEvents.videoCreated, { video: { id: row.id, code: row.code, title: row.title } });
    return row;
  });
}

/** Builds a video's player again (domains/publish, handed in by app.ts: publish reads videos' rows, so videos does not import it). */
export type Republish = (workspaceId: number, videoId: number) => Promise<unknown>;
/** Queues the encryption of a video's ready segments (domains/encoding, handed in by app.ts for the same reason). */
export type Encrypt = (videoId: number) => Promise<unknown>;

export async function updateVideo(
  deps: Deps,
  workspaceId: number,
  id: number,
  input: UpdateVideoBody,
  republish?: Republish,
  encrypt?: Encrypt,
): Promise<VideoRow> {
  const changes = { ...input, ...(input.allowed_origins && { allowed_origins: checkedOrigins("allowed_origins", input.allowed_origins) }) };
  let before: Pick<VideoRow, "allowed_origins" | "require_signed_urls"> | undefined;
  const row = await deps.sql
    .begin(async (tx) => {
      if (input.folder_id != null && !(await repo.folderBelongsTo(tx, workspaceId, input.folder_id))) {
        if (!(await repo.findVideo(tx, workspaceId, id))) throw Errors.modelNotFound(VIDEO_MODEL, id);
        throw Errors.folderNotFound();
      }
      if (input.allowed_origins !== undefined || input.require_signed_urls !== undefined) before = await repo.lockVideo(tx, workspaceId, id);
      const row = await repo.updateVideo(tx, workspaceId, id, changes);
      if (!row) throw Errors.modelNotFound(VIDEO_MODEL, id);
      return row;
    })
    .finally(() => deps.videoCache.evict(id));
  // Idempotent: a video already encrypted makes a job that finds nothing to do.
  if (input.encryption === "aes-128" && encrypt) await encrypt(row.id);
  if (before && protectionChanged(before, row)) {
    deps.playback.forgetProtection(row.code);
    // The player checks the site itself and asks for tokens: a published one is built again.
    // The media host enforces the new rules at once; a failed build leaves the old player, which says so when refused.
    if (republish && (row.landscape_hls || row.portrait_hls)) {
      await republish(workspaceId, id).catch((error) => deps.log.warn("republish after a protection change failed", { video_id: id, error: String(error) }));
    }
  }
  return row;
}

const protectionChanged = (a: Pick<VideoRow, "allowed_origins" | "require_signed_urls">, b: typeof a) =>
  a.require_signed_urls !== b.require_signed_urls || a.allowed_origins.join(",") !== b.allowed_origins.join(",");

/** Rule 4: same settings and player version, "<title> (copy)", never the media. */
export async function duplicateVideo(deps: Deps, workspaceId: number, id: number): Promise<VideoRow> {
  return deps.sql.begin(async (tx) => {
    const source = await repo.findVideo(tx, workspaceId, id);
    if (!source) throw Errors.modelNotFound(VIDEO_MODEL, id);
    const suffix = " (copy)";
    return repo.insertVideo(tx, {
      workspace_id: workspaceId,
      title: source.title.slice(0, 255 - suffix.length) + suffix,
      folder_id: source.folder_id,
      tags: source.tags,
      player_version: source.player_version,
      plain_mode: source.plain_mode,
      default_orientation: source.default_orientation,
      settings: structuredClone(withDefaults(source.settings)),
      allowed_origins: source.allowed_origins,
      require_signed_urls: source.require_signed_urls,
    });
  });
}

export async function deleteVideo(deps: Deps, workspaceId: number, id: number): Promise<void> {
  const files = await deps.sql
    .begin(async (tx) => {
      // Upload sessions and encode jobs go with the row (ON DELETE CASCADE): note their files first.
      const files = await repo.filesOfVideo(tx, id);
      const row = await repo.deleteVideo(tx, workspaceId, id);
      if (!row) throw Errors.modelNotFound(VIDEO_MODEL, id);
      await enqueueEvent(tx, workspaceId, LifecycleEvents.videoDeleted, { video_id: id });
      return { ...files, code: row.code };
    })
    .finally(() => deps.videoCache.evict(id));
  await removeFiles(deps, files);
}

/**
 * A deleted video's files go too: its public renditions and posters, its player
 * bundle on both CDN targets, uploaded sources and unfinished uploads. The row is
 * already gone, so a failure here is logged (the files are orphans, not data).
 */
async function removeFiles(deps: Deps, files: repo.VideoFiles & { code: string }): Promise<void> {
  const steps: [string, () => Promise<unknown>][] = [
    ["media", () => deps.blobs.media.deletePrefix(`${PUBLIC_PREFIX}${files.code}/`)],
    [
      "player bundle",
      () =>
        Promise.all([deps.blobs.cdnA.delete(entryKey(files.code)), deps.blobs.cdnB.delete(entryKey(files.code))]).then(() =>
          entryChanged(deps, entryKey(files.code)),
        ),
    ],
    ["sources", () => Promise.all(files.sourceKeys.map((key) => deletePrivate(deps.blobs, key)))],
    [
      "open uploads",
      () =>
        Promise.all(
          files.openUploads.map((u) => {
            const { store, key } = privateBlob(deps.blobs, u.blob_key);
            return store.abortChunked(key, u.blob_handle);
          }),
        ),
    ],
  ];
  for (const [what, step] of steps) {
    await step().catch((error) => deps.log.warn(`removing a deleted video's ${what} failed`, { code: files.code, error: String(error) }));
  }
}

export function settingsOf(row: VideoRow): Settings {
  return withDefaults(row.settings);
}

/** Tokens minted here live at most a day; longer ones come from the seller's own signing key. */
const MAX_TOKEN_AHEAD_S = 24 * 3600;

/** docs/api.md "Signed URLs": a token for this video, signed with the workspace's own key. */
export async function signedToken(deps: Deps, row: VideoRow, body: TokenBody) {
  const now = Math.floor(deps.clock.now() / 1000);
  const exp = body.exp ?? now + TOKEN_TTL_S;
  if (exp <= now || exp > now + MAX_TOKEN_AHEAD_S) throw validation({ exp: ["The exp must be in the future and at most 24 hours ahead."] });
  const ruleErrors = body.accessRules === undefined ? {} : accessRuleErrors(body.accessRules);
  if (Object.keys(ruleErrors).length) throw validation(ruleErrors);
  return mintToken(deps, row.workspace_id, row.code, {
    exp,
    ...(body.nbf !== undefined && { nbf: body.nbf }),
    downloadable: body.downloadable ?? false,
    ...(body.accessRules !== undefined && { accessRules: normalisedRules(body.accessRules as AccessRule[]) }),
  });
}
