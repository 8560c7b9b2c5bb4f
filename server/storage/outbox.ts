/**
 * The transactional outbox: a lifecycle event is written in the same
 * transaction as the change it describes, so it exists if and only if the
 * change committed. The webhook deliverer reads it from here.
 */
import { json, type Db } from "./postgres.ts";

export const LifecycleEvents = {
  videoCreated: "video.created",
  videoDeleted: "video.deleted",
  videoUploaded: "video.uploaded",
  settingsDeployed: "video.settings.deployed",
  conversion: "conversion",
  conversionCreated: "conversion.created",
  leadCaptured: "lead.captured",
} as const;

export async function enqueueEvent(sql: Db, workspaceId: number, event: string, data: Record<string, unknown>): Promise<string> {
  const eventId = crypto.randomUUID();
  await sql`INSERT INTO outbox (event_id, workspace_id, event, data) VALUES (${eventId}, ${workspaceId}, ${event}, ${json(sql, data)})`;
  return eventId;
}
