/**
 * Writes event rows straight into ClickHouse the way the server does: player
 * events through `player_events` (which feeds `events` and the analytics
 * slots), conversions through `sale_events` (which feeds `events` and
 * `analytics_sales`), custom events into `events`.
 */
import type { Ch } from "../../server/storage/clickhouse.ts";
import { PLAYER_EVENT_TYPES } from "../../contract/events.ts";

const PLAYER = new Set<string>(PLAYER_EVENT_TYPES);

/** A row of `events` with nothing in it: tests spread what they need over it. */
export const BLANK_EVENT = {
  workspace_id: 0,
  video_id: 0,
  video_code: "",
  event_type: "custom",
  event: "",
  event_id: "",
  session_code: "",
  device_id: "",
  watch_seconds: 0,
  video_time: 0,
  value: null as number | null,
  properties: {} as Record<string, string>,
  created_at: "2026-11-20 10:00:00.000",
  viewer_id: 0,
};

export async function insertEventRows(ch: Ch, rows: (Record<string, unknown> & { event_type: string })[]): Promise<void> {
  const player = rows.filter((r) => PLAYER.has(r.event_type));
  const sales = rows.filter((r) => r.event_type === "conversion");
  const other = rows.filter((r) => !PLAYER.has(r.event_type) && r.event_type !== "conversion");
  if (player.length) await ch.insert({ table: "player_events", format: "JSONEachRow", values: player });
  if (sales.length) await ch.insert({ table: "sale_events", format: "JSONEachRow", values: sales });
  if (other.length) await ch.insert({ table: "events", format: "JSONEachRow", values: other });
}
