/**
 * Writes event rows straight into ClickHouse the way the server does: player
 * events through `player_events` (which feeds `events` and the analytics
 * slots), conversions through `sale_events` (which feeds `events` and
 * `analytics_sales`), custom events into `events`.
 */
import type { Ch } from "../../server/storage/clickhouse.ts";
import { PLAYER_EVENT_TYPES } from "../../contract/events.ts";

const PLAYER = new Set<string>(PLAYER_EVENT_TYPES);

export async function insertEventRows(ch: Ch, rows: (Record<string, unknown> & { event_type: string })[]): Promise<void> {
  const player = rows.filter((r) => PLAYER.has(r.event_type));
  const sales = rows.filter((r) => r.event_type === "conversion");
  const other = rows.filter((r) => !PLAYER.has(r.event_type) && r.event_type !== "conversion");
  if (player.length) await ch.insert({ table: "player_events", format: "JSONEachRow", values: player });
  if (sales.length) await ch.insert({ table: "sale_events", format: "JSONEachRow", values: sales });
  if (other.length) await ch.insert({ table: "events", format: "JSONEachRow", values: other });
}
