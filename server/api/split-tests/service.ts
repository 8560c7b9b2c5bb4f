/**
 * Split tests (beyond the core interface; README "Split tests"): create one from two to ten videos
 * of the workspace with weights, pause, resume, end with a chosen winner, and what
 * each viewer is served. Knows nothing of HTTP.
 *
 * Serving: the test's snippet (`/cdn/s/<code>.js`) and, while the test is not ended,
 * the control's own embed ask the events host (`POST /v1/split-test`) which video to
 * play. Running, a device gets a variation by weight, always the same one
 * (assign.ts), and its session is recorded as served it so its events carry the
 * variation; paused, everyone gets the control; once the winner rule declared a
 * winner of an `auto_promote` test, and after the seller ended the test, everyone
 * gets the winner. Only sessions served by weight count in the report.
 */
import type { Deps } from "../../deps.ts";
import type { Config } from "../../config.ts";
import { Errors, validation } from "../../errors.ts";
import { splitTestKey, type EntryPush } from "../../../compiler/index.ts";
import { entryScriptUrl } from "../../storage/media-keys.ts";
import type { TxSql } from "../../storage/postgres.ts";
import { compileAndPush, publishSplitTestScript } from "../../domains/publish/service.ts";
import { withDefaults } from "../../../contract/settings.ts";
import { lockVideo } from "../videos/repo.ts";
import * as viewers from "../../domains/viewers/service.ts";
import { scriptUrl, videoStatus } from "../videos/service.ts";
import { pickVariation } from "./assign.ts";
import type { AssignBody, AssignReply, CreateSplitTestBody, SplitTest } from "./model.ts";
import * as repo from "./repo.ts";
import type { SplitTestWithVariations, VariationRow } from "./repo.ts";

export const DEFAULT_PER_PAGE = 20;
/** How long another process may serve a test's previous state (its pause, end or promotion). */
const SERVING_CACHE_MS = 5_000;

export const testScriptUrl = (config: Config, code: string) => entryScriptUrl(config, splitTestKey(code));

export function embedOf(config: Config, code: string) {
  const src = testScriptUrl(config, code);
  // The script URL may carry a query (`&` in an attribute is written `&amp;`).
  return {
    script_url: src,
    html: `<div class="frameline-player" data-split-test="${code}"></div><script async src="${src.replaceAll("&", "&amp;")}"></script>`,
  };
}

const control = (t: SplitTestWithVariations): VariationRow => t.variations[0]!;

/** The variation everyone is served now, or undefined while split by weight. */
export function servingOf(t: SplitTestWithVariations): VariationRow | undefined {
  const byId = (id: number | null) => t.variations.find((v) => v.id === id);
  if (t.status === "ended") return byId(t.winner_variation_id) ?? control(t);
  if (t.status === "paused") return control(t);
  if (t.auto_promote && t.declared_variation_id !== null) return byId(t.declared_variation_id);
  return undefined;
}

export function toSplitTest(config: Config, t: SplitTestWithVariations): SplitTest {
  return {
    id: t.id,
    code: t.code,
    name: t.name,
    goal: t.goal as SplitTest["goal"],
    status: t.status,
    auto_promote: t.auto_promote,
    variations: t.variations.map((v) => ({
      id: v.id,
      video_id: v.video_id,
      video_code: v.video_code,
      title: v.title,
      weight: v.weight,
      control: v.position === 0,
    })),
    control_variation_id: control(t).id,
    declared_winner:
      t.declared_variation_id === null ? null : { variation_id: t.declared_variation_id, declared_at: (t.declared_at ?? t.updated_at).toISOString() },
    winner_variation_id: t.winner_variation_id,
    serving_variation_id: servingOf(t)?.id ?? null,
    embed: embedOf(config, t.code),
    ended_at: t.ended_at?.toISOString() ?? null,
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
  };
}

export async function getSplitTest(deps: Deps, workspaceId: number, id: number | undefined): Promise<SplitTestWithVariations> {
  const test = id === undefined ? undefined : await repo.findSplitTest(deps.sql, workspaceId, id);
  if (!test) throw Errors.notFound("Split test not found.");
  return test;
}

export async function listSplitTests(deps: Deps, workspaceId: number, query: { page?: number; per_page?: number }) {
  const page = query.page ?? 1;
  const perPage = query.per_page ?? DEFAULT_PER_PAGE;
  const { rows, total } = await repo.listSplitTests(deps.sql, workspaceId, page, perPage);
  return { rows, total, page, perPage };
}

/** Runs `work` in a transaction; the CDN pushes it made are undone when it does not commit. */
async function publishing<T>(deps: Deps, work: (tx: TxSql, track: (push: EntryPush) => void) => Promise<T>): Promise<T> {
  const pushes: EntryPush[] = [];
  try {
    return (await deps.sql.begin((tx) => work(tx, (push) => void pushes.push(push)))) as T;
  } catch (error) {
    for (const push of pushes) await push.rollback().catch((e) => deps.log.error("split test bundle rollback failed", { error: String(e) }));
    throw error;
  }
}

/** Publishing failures are a deploy failure: 500, nothing changed. */
async function orDeployFailed<T>(deps: Deps, what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    deps.log.error(`split test ${what} failed`, { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    throw Errors.deployFailed();
  }
}

/**
 * Republishes the control's player (locked) so its embed serves the test while it is
 * not ended, or no longer does. A control without media has no player yet: the encoder
 * publishes it, with the test, when it is ready.
 */
async function republishControl(deps: Deps, tx: TxSql, t: SplitTestWithVariations, track: (push: EntryPush) => void): Promise<void> {
  const videoId = control(t).video_id;
  if (videoId === null) return;
  const video = await lockVideo(tx, t.workspace_id, videoId);
  if (!video || videoStatus(video) !== "ready") return;
  track(await orDeployFailed(deps, "control publish", () => compileAndPush(deps, tx, video, withDefaults(video.settings))));
}

export async function createSplitTest(deps: Deps, workspaceId: number, body: CreateSplitTestBody): Promise<SplitTestWithVariations> {
  const ids = body.variations.map((v) => v.video_id);
  const errors: Record<string, string[]> = {};
  const sum = body.variations.reduce((n, v) => n + v.weight, 0);
  if (sum !== 100) errors.variations = [`The weights must add up to 100 (they add up to ${sum}).`];
  if (new Set(ids).size !== ids.length) (errors.variations ??= []).push("Each video can be a variation once.");
  if (!body.name.trim()) errors.name = ["The name must be 1 to 255 printable characters."];
  if (Object.keys(errors).length) throw validation(errors);

  const code = crypto.randomUUID();
  const id = await publishing(deps, async (tx, track) => {
    // The videos' row locks order this against another test taking one of them, and against their deploys.
    await tx`SELECT id FROM videos WHERE workspace_id = ${workspaceId} AND id = ANY(${tx.array(ids)}::bigint[]) ORDER BY id FOR UPDATE`;
    const found = await repo.videosOf(tx, workspaceId, ids);
    const missing = ids.filter((vid) => !found.some((v) => v.id === vid));
    if (missing.length) throw Errors.videoNotFound("One or more video IDs not found.", { video_ids: missing });
    const busy = await repo.liveTestsOfVideos(tx, workspaceId, ids);
    if (busy.length) {
      throw validation({
        variations: busy.map((b) => `Video ${b.video_id} is already in split test ${b.split_test_id}, which has not ended: a video is in one test at a time.`),
      });
    }
    const testId = await repo.insertSplitTest(tx, workspaceId, {
      code,
      name: body.name.trim(),
      goal: body.goal,
      autoPromote: body.auto_promote ?? false,
      variations: body.variations.map((v) => ({ videoId: v.video_id, weight: v.weight })),
    });
    const controlCode = found.find((v) => v.id === ids[0])!.code;
    track(await orDeployFailed(deps, "script publish", () => publishSplitTestScript(deps, tx, workspaceId, code, controlCode)));
    await republishControl(deps, tx, (await repo.findSplitTest(tx, workspaceId, testId))!, track);
    return testId;
  });
  return (await repo.findSplitTest(deps.sql, workspaceId, id))!;
}

/** Pause and resume: running ⇄ paused; the same state again is no change. An ended test stays ended. */
export async function setPaused(deps: Deps, workspaceId: number, id: number | undefined, paused: boolean): Promise<SplitTestWithVariations> {
  const test = await getSplitTest(deps, workspaceId, id);
  await deps.sql.begin(async (tx) => {
    const locked = await repo.lockSplitTest(tx, workspaceId, test.id);
    if (!locked) throw Errors.notFound("Split test not found.");
    if (locked.status === "ended") throw validation({ status: [`The split test has ended; it cannot be ${paused ? "paused" : "resumed"}.`] });
    await repo.setStatus(tx, test.id, { status: paused ? "paused" : "running" });
  });
  deps.splitTests.delete(test.code);
  return getSplitTest(deps, workspaceId, test.id);
}

/** Ends the test: the chosen variation is served to everyone from now on, and the control's embed is its own again. */
export async function endSplitTest(deps: Deps, workspaceId: number, id: number | undefined, winnerVariationId: number): Promise<SplitTestWithVariations> {
  const test = await getSplitTest(deps, workspaceId, id);
  await publishing(deps, async (tx, track) => {
    const locked = await repo.lockSplitTest(tx, workspaceId, test.id);
    if (!locked) throw Errors.notFound("Split test not found.");
    if (locked.status === "ended") throw validation({ status: ["The split test has already ended."] });
    if (!locked.variations.some((v) => v.id === winnerVariationId))
      throw validation({ winner_variation_id: ["The winner_variation_id must be a variation id of this test."] });
    await repo.setStatus(tx, test.id, { status: "ended", winnerVariationId, ended: true });
    await republishControl(deps, tx, locked, track);
  });
  deps.splitTests.delete(test.code);
  return getSplitTest(deps, workspaceId, test.id);
}

/** A test by public code through this process's short cache (the events host's hot path). */
async function testByCode(deps: Deps, code: string): Promise<SplitTestWithVariations | undefined> {
  const hit = deps.splitTests.get(code);
  if (hit !== undefined) return hit ?? undefined;
  const test = await repo.findSplitTestByCode(deps.sql, code);
  deps.splitTests.set(code, test ?? null, SERVING_CACHE_MS);
  return test;
}

/**
 * `POST /v1/split-test`: the variation this viewer is served, recorded on the session
 * when served by weight (cleared when not, so a paused test's viewers do not count).
 * An unknown test, or a workspace code that is not the test's, is 404.
 */
export async function assign(deps: Deps, body: AssignBody): Promise<AssignReply> {
  const workspaceId = await viewers.workspaceIdByCode(deps, body.workspace_code);
  const test = workspaceId === undefined ? undefined : await testByCode(deps, body.split_test);
  if (!test || test.workspace_id !== workspaceId) throw Errors.notFound("No such split test in this workspace.");
  const fixed = servingOf(test);
  const picked =
    fixed ??
    test.variations[
      pickVariation(
        test.code,
        body.device_id ?? body.session_id,
        test.variations.map((v) => v.weight),
      )
    ]!;
  // A variation whose video is gone is served the control, outside the test.
  const served = picked.video_id !== null && picked.video_code !== null ? picked : control(test);
  if (served.video_id === null || served.video_code === null) throw Errors.notFound("The split test's videos were deleted.");
  const inTest = fixed === undefined && served === picked;
  await viewers.touchSession(deps, workspaceId!, {
    sessionCode: body.session_id,
    deviceId: body.device_id,
    video: { id: served.video_id, code: served.video_code },
    split: inTest ? { testId: test.id, variationId: served.id, videoId: served.video_id } : null,
  });
  return {
    split_test: test.code,
    variation_id: served.id,
    video_code: served.video_code,
    script_url: scriptUrl(deps.config, served.video_code),
    in_test: inTest,
  };
}

/** Drops this process's copy of a test (after the winner rule promoted it). */
export function forgetServing(deps: Deps, code: string): void {
  deps.splitTests.delete(code);
}
