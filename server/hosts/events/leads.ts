/**
 * The player's lead form and watch gate on the server: a `lead_form_submitted`
 * event with a raw email ties its session to the email's identity, upserts the
 * lead (docs/api.md "Custom events" rule 4: a raw email with a video code), and
 * remembers the submission, so the player does not ask that viewer again
 * (`GET /v1/lead-status`).
 */
import type { Deps } from "../../deps.ts";
import type { Db } from "../../storage/postgres.ts";
import * as viewers from "../../domains/viewers/service.ts";
import { e164, hex, identityKeys, normaliseEmail } from "./identity.ts";
import type { PlayerEvent } from "./model.ts";
import * as repo from "./repo.ts";

/** A lead form answer the server can use: an event of that type with a non-empty email. */
export const isLeadSubmission = (e: PlayerEvent): boolean => e.type === "lead_form_submitted" && typeof e.email === "string" && normaliseEmail(e.email) !== "";

const text = (v: unknown) => (typeof v === "string" && v !== "" ? v.slice(0, 100) : null);

/** The `identity` of a `lead_form.submitted` delivery: the raw email (as in `lead.captured`) and names; a phone only as its hash (docs/api.md "Viewer identity"). */
export function leadIdentity(e: PlayerEvent): Record<string, unknown> {
  const phone = typeof e.phone === "string" ? e164(e.phone) : undefined;
  return {
    email: normaliseEmail(String(e.email)),
    first_name: text(e.properties?.first_name),
    last_name: text(e.properties?.last_name),
    phone_sha256: phone ? hex("sha256", phone) : null,
  };
}

/** Ties the session to each submitted email's identity; returns the viewer the session belongs to afterwards. */
export async function identifyLeads(
  deps: Deps,
  workspaceId: number,
  session: { sessionCode: string; deviceId?: string; viewerId: number },
  events: PlayerEvent[],
): Promise<number> {
  let viewerId = session.viewerId;
  for (const e of events) {
    if (!isLeadSubmission(e)) continue;
    const keys = identityKeys({ email: String(e.email), phone: typeof e.phone === "string" ? e.phone : undefined });
    viewerId = await viewers.identifySession(deps, workspaceId, { ...session, viewerId }, keys);
  }
  return viewerId;
}

/** In the collect transaction, after `lead_form.submitted`: the lead (with `lead.captured` when new) and the submission. */
export async function recordLead(
  tx: Db,
  workspaceId: number,
  video: { id: number; code: string },
  viewerId: number,
  e: PlayerEvent,
  watchPercent: number,
): Promise<void> {
  const email = normaliseEmail(String(e.email));
  const emailSha256 = hex("sha256", email);
  await repo.upsertLead(tx, workspaceId, {
    email,
    emailSha256,
    video,
    viewerId,
    source: "lead_form",
    firstName: text(e.properties?.first_name) ?? undefined,
    url: text(e.properties?.url) ?? undefined,
    watchPercent,
  });
  await repo.recordLeadSubmission(tx, workspaceId, video.id, emailSha256, viewerId);
}

/** Whether the viewer of this session (or device) already answered this video's lead form. */
export async function leadStatus(deps: Deps, q: { workspace_code: string; video_code: string; session_id?: string; device_id?: string }): Promise<boolean> {
  const workspaceId = await viewers.workspaceIdByCode(deps, q.workspace_code);
  const video = workspaceId === undefined ? undefined : await viewers.videoByCode(deps, workspaceId, q.video_code);
  if (workspaceId === undefined || !video) return false;
  const viewer = await viewers.resolveViewer(deps, workspaceId, { sessionId: q.session_id, deviceId: q.device_id, identity: [] });
  return viewer !== undefined && repo.hasLeadSubmission(deps.sql, workspaceId, video.id, viewer.viewerId);
}
