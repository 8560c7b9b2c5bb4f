/**
 * Each workspace's viewers numbered 1, 2, 3 … (0020_viewer_bitmaps.sql), so sealed periods
 * keep their distinct viewers as roaring bitmaps: exact, and merged in a fifth of the time
 * of HyperLogLog states, because dense numbers pack into a few bits each. A viewer is a
 * device, or a session without one (a 64-bit hash either way: a clash is vanishingly
 * unlikely). The seal numbers the viewers of the hours it seals before it seals them, so
 * every viewer of a sealed period has its number; a read of sessions not sealed yet looks
 * theirs up, and a viewer without one has been in no sealed period.
 */
import type { Deps } from "../../deps.ts";
import { SHOWN, VIEWER_HASH } from "./metrics.ts";

/**
 * A viewer's element of a bitmap (`ordinal` and `viewer_hash` of withOrdinals' rows): its
 * number, or while it has none its hash with the top bit set, beyond every number.
 */
export const BITMAP_KEY = "if(ordinal > 0, toUInt64(ordinal), bitOr(viewer_hash, 0x8000000000000000))";

/**
 * `sessions` (a subquery with workspace_id and viewer_hash) with `ordinal`, the number of
 * each row's viewer (0: none yet). `where`: a condition on analytics_sessions holding at least
 * the rows of `sessions`, so the lookup reads only the numbers of their viewers.
 */
export function withOrdinals(sessions: string, where: string): string {
  const keys = `SELECT workspace_id, ${VIEWER_HASH} FROM analytics_sessions WHERE ${where}`;
  return `SELECT s.*, o.ordinal FROM (${sessions}) AS s
  LEFT JOIN (SELECT workspace_id, viewer_hash, ordinal FROM viewer_ordinals WHERE (workspace_id, viewer_hash) IN (${keys})) AS o
    ON o.workspace_id = s.workspace_id AND o.viewer_hash = s.viewer_hash`;
}

/**
 * Numbers the viewers of the shown sessions in `where` (rows of analytics_sessions) that
 * have none, after their workspace's highest number in the order of their hashes. Two
 * writers at once would give two viewers one number, so one runs at a time: in this process
 * one after another, and across processes under a PostgreSQL advisory lock (with
 * DATABASE_URL; embedded PostgreSQL means one process).
 */
export async function numberViewers(deps: Pick<Deps, "ch" | "sql" | "config">, where: string, params: Record<string, unknown>): Promise<void> {
  await oneWriter(deps, () => deps.ch.command({ query: numberViewersSql(where), query_params: params }));
}

/** numberViewers' statement. */
export function numberViewersSql(where: string): string {
  const viewers = `SELECT DISTINCT workspace_id, ${VIEWER_HASH} AS viewer_hash FROM analytics_sessions WHERE ${where} AND ${SHOWN}`;
  const known = `SELECT workspace_id, viewer_hash, ordinal FROM viewer_ordinals WHERE workspace_id IN (SELECT workspace_id FROM (${viewers}))`;
  return `INSERT INTO viewer_ordinals (workspace_id, viewer_hash, ordinal)
SELECT workspace_id, viewer_hash, toUInt32(top + row_number() OVER (PARTITION BY workspace_id ORDER BY viewer_hash))
FROM (
  SELECT v.workspace_id AS workspace_id, v.viewer_hash AS viewer_hash, t.top AS top
  FROM (${viewers}) AS v
  LEFT JOIN (SELECT workspace_id, max(ordinal) AS top FROM (${known}) GROUP BY workspace_id) AS t ON t.workspace_id = v.workspace_id
  WHERE (v.workspace_id, v.viewer_hash) NOT IN (SELECT workspace_id, viewer_hash FROM (${known}))
)`;
}

/** The PostgreSQL advisory lock of the numbering. */
export const ORDINALS_LOCK = 7_240_318_020;
let queue: Promise<unknown> = Promise.resolve();

async function oneWriter<T>(deps: Pick<Deps, "sql" | "config">, write: () => Promise<T>): Promise<T> {
  const locked = () =>
    deps.sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${ORDINALS_LOCK})`;
      return write();
    }) as Promise<T>;
  const run = queue.then(deps.config.databaseUrl ? locked : write);
  queue = run.catch(() => undefined);
  return run;
}
