/** The SQL of split tests (0011_split_tests.sql): tests, their variations, the sessions served one. */
import type { TxSql, Db } from "../../storage/postgres.ts";

export const Statuses = { running: "running", paused: "paused", ended: "ended" } as const;
export type Status = (typeof Statuses)[keyof typeof Statuses];

export interface SplitTestRow {
  id: number;
  workspace_id: number;
  code: string;
  name: string;
  goal: string;
  status: Status;
  auto_promote: boolean;
  control_video_id: number | null;
  declared_variation_id: number | null;
  declared_at: Date | null;
  winner_variation_id: number | null;
  ended_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

export interface VariationRow {
  id: number;
  split_test_id: number;
  video_id: number | null;
  position: number;
  weight: number;
  /** The video's, null once the video is deleted. */
  video_code: string | null;
  title: string | null;
}

/** A test and its variations, control first. */
export interface SplitTestWithVariations extends SplitTestRow {
  variations: VariationRow[];
}

const TEST_COLUMNS = `id, workspace_id, code::text AS code, name, goal, status, auto_promote, control_video_id, declared_variation_id, declared_at,
  winner_variation_id, ended_at, created_at, updated_at`;

async function variationsOf(db: Db, testIds: number[]): Promise<VariationRow[]> {
  if (testIds.length === 0) return [];
  return [
    ...(await db<VariationRow[]>`
      SELECT sv.id, sv.split_test_id, sv.video_id, sv.position, sv.weight, v.code::text AS video_code, v.title
      FROM split_test_variations sv LEFT JOIN videos v ON v.id = sv.video_id
      WHERE sv.split_test_id = ANY(${db.array(testIds)}::bigint[])
      ORDER BY sv.split_test_id, sv.position`),
  ];
}

async function withVariations(db: Db, rows: SplitTestRow[]): Promise<SplitTestWithVariations[]> {
  const variations = await variationsOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, variations: variations.filter((v) => v.split_test_id === r.id) }));
}

/** Videos of this workspace among `ids` (the others do not exist for this caller). */
export async function videosOf(db: Db, workspaceId: number, ids: number[]): Promise<{ id: number; code: string; title: string }[]> {
  return [
    ...(await db<{ id: number; code: string; title: string }[]>`
      SELECT id, code::text AS code, title FROM videos WHERE workspace_id = ${workspaceId} AND id = ANY(${db.array(ids)}::bigint[])`),
  ];
}

/** Tests not ended that already serve one of these videos: a video is in one live test at a time. */
export async function liveTestsOfVideos(db: Db, workspaceId: number, videoIds: number[]): Promise<{ video_id: number; split_test_id: number }[]> {
  return [
    ...(await db<{ video_id: number; split_test_id: number }[]>`
      SELECT sv.video_id, st.id AS split_test_id
      FROM split_test_variations sv JOIN split_tests st ON st.id = sv.split_test_id
      WHERE st.workspace_id = ${workspaceId} AND st.status <> 'ended' AND sv.video_id = ANY(${db.array(videoIds)}::bigint[])`),
  ];
}

export async function insertSplitTest(
  tx: TxSql,
  workspaceId: number,
  t: { code: string; name: string; goal: string; autoPromote: boolean; variations: { videoId: number; weight: number }[] },
): Promise<number> {
  const [row]: [{ id: number }?] = await tx`
    INSERT INTO split_tests (workspace_id, code, name, goal, auto_promote, control_video_id)
    VALUES (${workspaceId}, ${t.code}, ${t.name}, ${t.goal}, ${t.autoPromote}, ${t.variations[0]!.videoId}) RETURNING id`;
  const rows = t.variations.map((v, position) => ({ split_test_id: row!.id, workspace_id: workspaceId, video_id: v.videoId, position, weight: v.weight }));
  await tx`INSERT INTO split_test_variations ${tx(rows, "split_test_id", "workspace_id", "video_id", "position", "weight")}`;
  return row!.id;
}

export async function findSplitTest(db: Db, workspaceId: number, id: number): Promise<SplitTestWithVariations | undefined> {
  const rows = await db<SplitTestRow[]>`SELECT ${db.unsafe(TEST_COLUMNS)} FROM split_tests WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return (await withVariations(db, [...rows]))[0];
}

/** The same, locked until the transaction ends (status changes are serialised per test). */
export async function lockSplitTest(tx: TxSql, workspaceId: number, id: number): Promise<SplitTestWithVariations | undefined> {
  const rows = await tx<SplitTestRow[]>`SELECT ${tx.unsafe(TEST_COLUMNS)} FROM split_tests WHERE workspace_id = ${workspaceId} AND id = ${id} FOR UPDATE`;
  return (await withVariations(tx, [...rows]))[0];
}

/** By public code, for the events host (any workspace: the caller checks it). */
export async function findSplitTestByCode(db: Db, code: string): Promise<SplitTestWithVariations | undefined> {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(code)) return undefined;
  const rows = await db<SplitTestRow[]>`SELECT ${db.unsafe(TEST_COLUMNS)} FROM split_tests WHERE code = ${code}`;
  return (await withVariations(db, [...rows]))[0];
}

export async function listSplitTests(db: Db, workspaceId: number, page: number, perPage: number): Promise<{ rows: SplitTestWithVariations[]; total: number }> {
  const rows = await db<SplitTestRow[]>`
    SELECT ${db.unsafe(TEST_COLUMNS)} FROM split_tests WHERE workspace_id = ${workspaceId}
    ORDER BY id DESC LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`;
  const [count]: [{ n: number }?] = await db`SELECT count(*)::int AS n FROM split_tests WHERE workspace_id = ${workspaceId}`;
  return { rows: await withVariations(db, [...rows]), total: count?.n ?? 0 };
}

/** Running tests without a declared winner: what the winner rule checks. */
export async function undecidedRunningTests(db: Db): Promise<SplitTestWithVariations[]> {
  const rows = await db<SplitTestRow[]>`
    SELECT ${db.unsafe(TEST_COLUMNS)} FROM split_tests WHERE status = 'running' AND declared_variation_id IS NULL ORDER BY id`;
  return withVariations(db, [...rows]);
}

export async function setStatus(tx: TxSql, id: number, change: { status: Status; winnerVariationId?: number | null; ended?: boolean }): Promise<void> {
  await tx`
    UPDATE split_tests SET status = ${change.status},
      winner_variation_id = COALESCE(${change.winnerVariationId ?? null}, winner_variation_id),
      ended_at = CASE WHEN ${change.ended === true} THEN now() ELSE ended_at END,
      updated_at = now()
    WHERE id = ${id}`;
}

/** Records the rule's winner; false when it was already declared (it fires once). */
export async function declareWinner(tx: TxSql, id: number, variationId: number, at: Date): Promise<boolean> {
  const rows = await tx`
    UPDATE split_tests SET declared_variation_id = ${variationId}, declared_at = ${at}, updated_at = now()
    WHERE id = ${id} AND declared_variation_id IS NULL AND status = 'running' RETURNING id`;
  return rows.length > 0;
}
