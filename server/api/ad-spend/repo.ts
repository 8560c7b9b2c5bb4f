/** The SQL of ad spend: one row per (workspace, video, date, source). */
import type { Sql } from "../../storage/postgres.ts";
import type { AdSpendEntry } from "../../../contract/api.ts";

/** The entry as postgres.js reads it: its numeric amount as text, its timestamps as dates. */
export interface AdSpendRow extends Omit<AdSpendEntry, "amount" | "created_at" | "updated_at"> {
  amount: string;
  created_at: Date;
  updated_at: Date;
  inserted?: boolean;
}

// Dates come back as YYYY-MM-DD text, never shifted by the process time zone.
const COLUMNS = "id, video_id, spend_date::text AS date, source, currency, amount::text AS amount, created_at, updated_at";

export async function upsertAdSpend(
  sql: Sql,
  workspaceId: number,
  row: { videoId: number; date: string; source: string; currency: string; amount: number },
): Promise<AdSpendRow> {
  const [saved]: [AdSpendRow?] = await sql`
    INSERT INTO ad_spend (workspace_id, video_id, spend_date, source, currency, amount)
    VALUES (${workspaceId}, ${row.videoId}, ${row.date}, ${row.source}, ${row.currency}, ${row.amount})
    ON CONFLICT (workspace_id, video_id, spend_date, source) DO UPDATE
      SET currency = EXCLUDED.currency, amount = EXCLUDED.amount, updated_at = now()
    RETURNING ${sql.unsafe(COLUMNS)}, (xmax = 0) AS inserted`;
  return saved!;
}

export async function listAdSpend(sql: Sql, workspaceId: number, videoId: number, from: string, to: string): Promise<AdSpendRow[]> {
  return [
    ...(await sql<AdSpendRow[]>`
      SELECT ${sql.unsafe(COLUMNS)} FROM ad_spend
      WHERE workspace_id = ${workspaceId} AND video_id = ${videoId} AND spend_date BETWEEN ${from} AND ${to}
      ORDER BY spend_date DESC, source, id`),
  ];
}

export async function deleteAdSpend(sql: Sql, workspaceId: number, videoId: number, id: number): Promise<boolean> {
  const rows = await sql`DELETE FROM ad_spend WHERE workspace_id = ${workspaceId} AND video_id = ${videoId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}

export interface SpendTotal {
  video_id: number;
  source: string;
  currency: string;
  amount: string;
}

/** Spend per video, source and currency on the days [from, to]. */
export async function spendTotals(sql: Sql, workspaceId: number, videoIds: number[], from: string, to: string): Promise<SpendTotal[]> {
  return [
    ...(await sql<SpendTotal[]>`
      SELECT video_id, source, currency, sum(amount)::text AS amount FROM ad_spend
      WHERE workspace_id = ${workspaceId} AND video_id = ANY(${sql.array(videoIds)}::bigint[]) AND spend_date BETWEEN ${from} AND ${to}
      GROUP BY video_id, source, currency`),
  ];
}
