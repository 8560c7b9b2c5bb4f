/**
 * The rules of docs/api.md "Video settings" and the "Settings" state table; knows
 * nothing of HTTP. Deploy and restore hold the video's row lock from merge to
 * commit, so concurrent deploys of one video run one after another and the
 * bundle that stays live belongs to the settings that stay live.
 */
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";
import type { TxSql } from "../../storage/postgres.ts";
import { compileAndPush, type Publication } from "../../domains/publish/service.ts";
import { VIDEO_MODEL } from "../videos/service.ts";
import * as videosRepo from "../videos/repo.ts";
import type { VideoRow } from "../videos/repo.ts";
import { GROUP_NAMES, withDefaults, type Settings } from "../../../contract/settings.ts";
import { API_RULES, mergeSettings, type MergeRules } from "./merge.ts";
import * as repo from "./repo.ts";
import type { DeployVersionRow } from "./repo.ts";
import { assertValidSettings } from "./validation.ts";
import { assertDeclaredUserEvents } from "./user-events.ts";
import { assertNextVideos } from "./next-videos.ts";

export const VERSION_MODEL = "DeployVersion";
export const DEPLOYS_PER_PAGE = 20;

/**
 * Who writes: the application API may set the groups docs/api.md's rule 3 leaves it
 * and merges lists by index (rule 2); the operator API (the dashboard's backend)
 * every group, the five included, and replaces lists whole. Both validate and
 * publish the same way.
 */
export type Writer = "api" | "operator";
const OPERATOR_RULES: MergeRules = { writable: GROUP_NAMES, wholeLists: true };
const rulesOf = (writer: Writer): MergeRules => (writer === "operator" ? OPERATOR_RULES : API_RULES);

/**
 * A draft or deploy body: a JSON object of option groups (TypeBox lets an array
 * through an open object schema), with an optional `_version_label` on deploy.
 */
export function settingsPayload(body: unknown, kind: "draft" | "deploy"): Record<string, unknown> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) throw validation({ body: ["The body must be a JSON object of option groups."] });
  const label = (body as Record<string, unknown>)._version_label;
  if (kind === "deploy" && label !== undefined && label !== null && (typeof label !== "string" || label.length > 255)) {
    throw validation({ _version_label: ["The _version_label must be a string of at most 255 characters."] });
  }
  return body as Record<string, unknown>;
}

/** Rule 4's validation plus what the registry cannot see alone (custom events must be declared, next videos must be this workspace's). */
async function validate(tx: TxSql, workspaceId: number, settings: Settings): Promise<void> {
  assertValidSettings(settings);
  await assertDeclaredUserEvents(tx, workspaceId, settings);
  await assertNextVideos(tx, workspaceId, settings);
}

/** Rules 1-5: merge over the live settings, validate, store as the pending draft. */
export async function saveDraft(deps: Deps, workspaceId: number, videoId: number, payload: Record<string, unknown>, writer: Writer = "api"): Promise<Settings> {
  return deps.sql.begin(async (tx) => {
    const row = await videosRepo.lockVideo(tx, workspaceId, videoId);
    if (!row) throw Errors.modelNotFound(VIDEO_MODEL, videoId);
    // Merged over live (as deploy is, rule 6), so deploying the same payload publishes exactly this draft.
    const merged = mergeSettings(row.settings, payload, rulesOf(writer));
    await validate(tx, workspaceId, merged);
    await repo.saveDraft(tx, row.id, merged);
    return merged;
  });
}

type Track = (publication: Publication) => void;

/** Compiles and pushes to both targets; any failure there is rule 8's 500. */
async function publish(deps: Deps, tx: TxSql, track: Track, row: VideoRow, settings: Settings): Promise<Publication> {
  let publication: Publication;
  try {
    publication = await compileAndPush(deps, tx, row, settings);
  } catch (error) {
    deps.log.error("player compile or push failed", { video_id: row.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    // Rule 8: 500, nothing changed.
    throw Errors.deployFailed();
  }
  track(publication);
  return publication;
}

/**
 * Makes `settings` live: compile + push to both targets first, and only after
 * they succeed the row and a live version (rule 7).
 */
async function goLive(
  deps: Deps,
  tx: TxSql,
  track: Track,
  row: VideoRow,
  settings: Settings,
  label: string | null,
): Promise<{ video: VideoRow; version: DeployVersionRow }> {
  const publication = await publish(deps, tx, track, row, settings);
  const video = await repo.writeLiveSettings(tx, row.workspace_id, row.id, settings);
  const version = await repo.insertLiveVersion(tx, {
    workspace_id: row.workspace_id,
    workspace_video_id: row.id,
    label,
    version_hash: publication.versionHash,
    settings_snapshot: settings,
  });
  return { video, version };
}

/**
 * Runs `work` in one transaction. If anything fails after a push (a later
 * statement or the commit itself), the previous bundle is put back, so the
 * CDN never serves settings that did not become live (rule 8).
 */
async function inDeployTransaction<T>(deps: Deps, videoId: number, work: (tx: TxSql, track: Track) => Promise<T>): Promise<T> {
  const publications: Publication[] = [];
  const track: Track = (p) => void publications.push(p);
  try {
    return (await deps.sql.begin((tx) => work(tx, track))) as T;
  } catch (error) {
    for (const p of publications) await p.rollback().catch((e) => deps.log.error("bundle rollback failed", { error: String(e) }));
    throw error;
  } finally {
    deps.videoCache.evict(videoId);
  }
}

/**
 * Rules 6-8: merge over LIVE settings, compile, push, snapshot, drop the draft, fire the event.
 * Rule 7's order holds by construction: the version is written only after the push succeeded,
 * and `video.settings.deployed` goes into the outbox in the same transaction, so it is sent
 * only once the version is live. The settings caches rule 7 clears are this process's video
 * row cache, evicted when the transaction ends (`inDeployTransaction`), and other processes'
 * copies, evicted by the videos trigger's NOTIFY; there is no other settings cache to clear.
 */
export async function deploy(
  deps: Deps,
  workspaceId: number,
  videoId: number,
  payload: Record<string, unknown>,
  writer: Writer = "api",
): Promise<{ video: VideoRow; version: DeployVersionRow }> {
  const label = typeof payload._version_label === "string" ? payload._version_label : null;
  return inDeployTransaction(deps, videoId, async (tx, track) => {
    const row = await videosRepo.lockVideo(tx, workspaceId, videoId);
    if (!row) throw Errors.modelNotFound(VIDEO_MODEL, videoId);
    const merged = mergeSettings(row.settings, payload, rulesOf(writer));
    await validate(tx, workspaceId, merged);
    const live = await goLive(deps, tx, track, row, merged, label);
    // Rule 6: the pending draft goes whether or not it matched. A restore keeps it (the spec names deploy only).
    await repo.deleteDraft(tx, row.id);
    await enqueueEvent(tx, workspaceId, LifecycleEvents.settingsDeployed, { video_id: row.id, version_id: live.version.id });
    return live;
  });
}

/** Rule 9: the snapshot back wholesale, recompiled, as a new version; no event. */
export async function restore(deps: Deps, workspaceId: number, videoId: number, versionId: number): Promise<{ video: VideoRow; version: DeployVersionRow }> {
  return inDeployTransaction(deps, videoId, async (tx, track) => {
    const row = await videosRepo.lockVideo(tx, workspaceId, videoId);
    if (!row) throw Errors.modelNotFound(VIDEO_MODEL, videoId);
    const chosen = await repo.findVersion(tx, workspaceId, videoId, versionId);
    if (!chosen) throw Errors.modelNotFound(VERSION_MODEL, versionId);
    // A snapshot taken before a group existed lacks it; it goes live completed, as every read completes it.
    return goLive(deps, tx, track, row, withDefaults(chosen.settings_snapshot), `Restored from version ${chosen.id}`);
  });
}

export async function listDeploys(deps: Deps, workspaceId: number, videoId: number, page: number) {
  if (!(await repo.videoExists(deps.sql, workspaceId, videoId))) throw Errors.modelNotFound(VIDEO_MODEL, videoId);
  const { rows, total } = await repo.listVersions(deps.sql, workspaceId, videoId, DEPLOYS_PER_PAGE, (page - 1) * DEPLOYS_PER_PAGE);
  return { rows, total, page, perPage: DEPLOYS_PER_PAGE };
}

export function toDeployVersion(row: DeployVersionRow) {
  return {
    id: row.id,
    workspace_video_id: row.workspace_video_id,
    created_by: row.created_by,
    label: row.label,
    version_hash: row.version_hash,
    settings_snapshot: withDefaults(row.settings_snapshot),
    is_live: row.is_live,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Live settings changed outside a deploy (the playlist routes store the
 * playlist on the container video's `playlist_options`): `change` returns the
 * new settings, or undefined for "nothing changes". A change is compiled and
 * pushed before it is written, with the same fail-before-live guarantee as a
 * deploy, but records no version (rule 10: only deploys and restores do).
 */
export async function updateLiveSettings(
  deps: Deps,
  workspaceId: number,
  videoId: number,
  change: (row: VideoRow, live: Settings) => Settings | undefined,
): Promise<VideoRow> {
  return inDeployTransaction(deps, videoId, async (tx, track) => {
    const row = await videosRepo.lockVideo(tx, workspaceId, videoId);
    if (!row) throw Errors.modelNotFound(VIDEO_MODEL, videoId);
    const live = withDefaults(row.settings);
    const next = change(row, structuredClone(live));
    if (next === undefined || Bun.deepEquals(next, live)) return row;
    await publish(deps, tx, track, row, next);
    return repo.writeLiveSettings(tx, workspaceId, row.id, next);
  });
}
