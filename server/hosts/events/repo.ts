/** SQL of custom events: the event-name registry, declared metrics, event_id dedup and leads. */
import type { Ch } from "../../storage/clickhouse.ts";
import type { Db, Sql } from "../../storage/postgres.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";

export const MAX_EVENT_NAMES = 100;

export async function listEventNames(sql: Sql, workspaceId: number): Promise<string[]> {
  return (await sql<{ name: string }[]>`SELECT name FROM event_names WHERE workspace_id = ${workspaceId}`).map((r) => r.name);
}

/**
 * Registers a name unless the workspace already uses MAX_EVENT_NAMES others.
 * A transaction-scoped advisory lock per workspace serialises the count check.
 */
export async function registerEventName(sql: Sql, workspaceId: number, name: string): Promise<{ ok: boolean; inUse: number }> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(72403185, ${workspaceId}::int)`;
    const [exists] = await tx`SELECT 1 FROM event_names WHERE workspace_id = ${workspaceId} AND name = ${name}`;
    const [{ n }]: [{ n: number }] = await tx`SELECT count(*)::int AS n FROM event_names WHERE workspace_id = ${workspaceId}`;
    if (exists) return { ok: true, inUse: n };
    if (n >= MAX_EVENT_NAMES) return { ok: false, inUse: n };
    await tx`INSERT INTO event_names (workspace_id, name) VALUES (${workspaceId}, ${name})`;
    return { ok: true, inUse: n + 1 };
  });
}

export async function isDeclaredMetric(sql: Sql, workspaceId: number, name: string): Promise<boolean> {
  const [row] = await sql`SELECT 1 FROM custom_metrics WHERE workspace_id = ${workspaceId} AND name = ${name}`;
  return row !== undefined;
}

/** Whether a claim's row reached ClickHouse: the row carries the claim's time (`createdAt`, ClickHouse DateTime64 text). */
export async function customEventWritten(ch: Ch, workspaceId: number, eventId: string, createdAt: string): Promise<boolean> {
  const result = await ch.query({
    query: `SELECT count() AS n FROM events
            WHERE workspace_id = {w:UInt64} AND event_type = 'custom' AND event_id = {e:String} AND created_at = {t:DateTime64(3, 'UTC')}`,
    query_params: { w: workspaceId, e: eventId, t: createdAt },
    format: "JSONEachRow",
  });
  return Number(((await result.json()) as { n: string | number }[])[0]?.n ?? 0) > 0;
}

export interface DedupRow {
  event: string;
  attributed: boolean;
  matched_by: string | null;
  /** When the claim was taken: the time of its event row in ClickHouse. */
  created_at: Date;
  /**
   * Set only by processes of the previous version, which marked each claim once
   * its row was written (their claim time is not always the row's time).
   */
  written: boolean;
}

/** A claim's row is deleted after a failed write, so the retry can take the event_id at once. */
export async function releaseClaim(sql: Sql, workspaceId: number, eventId: string, claimedAt: Date): Promise<void> {
  await sql`DELETE FROM event_dedup WHERE workspace_id = ${workspaceId} AND event_id = ${eventId} AND created_at = ${claimedAt}`;
}

/**
 * Takes over a claim whose writer is gone (its row never reached ClickHouse).
 * Only one caller wins: the claim must still be the one that was found.
 */
export async function takeOverClaim(sql: Sql, workspaceId: number, eventId: string, found: Date, answer: ClaimItem["answer"], now: Date): Promise<boolean> {
  const rows = await sql`
    UPDATE event_dedup SET event = ${answer.event}, attributed = ${answer.attributed}, matched_by = ${answer.matchedBy}, created_at = ${now}, written = false
    WHERE workspace_id = ${workspaceId} AND event_id = ${eventId} AND created_at = ${found}
    RETURNING event_id`;
  return rows.length === 1;
}

export async function sweepEventDedup(sql: Sql, now: Date): Promise<number> {
  const rows = await sql`DELETE FROM event_dedup WHERE created_at <= ${new Date(now.getTime() - 24 * 60 * 60_000)} RETURNING event_id`;
  return rows.length;
}

/**
 * docs/api.md "Custom events" rule 4: a raw email with a video_code is a real contact. Call it in a
 * transaction: the lead and its `lead.captured` event commit together; only a
 * new lead emits. Returns whether the lead is new.
 */
export async function upsertLead(
  tx: Db,
  workspaceId: number,
  lead: {
    email: string;
    emailSha256: string;
    video: { id: number; code: string };
    viewerId: number | null;
    source: string;
    firstName?: string;
    url?: string;
    /** How far into the video the viewer got (0 to 100) when known (docs/api.md "Viewers"). */
    watchPercent?: number;
  },
): Promise<boolean> {
  const [row]: [{ id: number; inserted: boolean }?] = await tx`
    INSERT INTO leads (workspace_id, email, email_sha256, video_id, video_code, viewer_id)
    VALUES (${workspaceId}, ${lead.email}, ${lead.emailSha256}, ${lead.video.id}, ${lead.video.code}, ${lead.viewerId})
    ON CONFLICT (workspace_id, email_sha256) DO UPDATE
      SET video_id = EXCLUDED.video_id, video_code = EXCLUDED.video_code, viewer_id = COALESCE(EXCLUDED.viewer_id, leads.viewer_id), updated_at = now()
    RETURNING id, (xmax = 0) AS inserted`;
  if (!row!.inserted) return false;
  // The shape of docs/api.md's `new_lead` automation sample, plus where it came from.
  await enqueueEvent(tx, workspaceId, LifecycleEvents.leadCaptured, {
    video_code: lead.video.code,
    identity: { email: lead.email, first_name: lead.firstName ?? null },
    url: lead.url ?? null,
    captured_at: new Date().toISOString(),
    watch_percent: lead.watchPercent ?? null,
    lead_id: row!.id,
    video_id: lead.video.id,
    source: lead.source,
  });
  return true;
}

/** A lead form (or watch gate) of this video was answered with this email, by this viewer. */
export async function recordLeadSubmission(tx: Db, workspaceId: number, videoId: number, emailSha256: string, viewerId: number): Promise<void> {
  await tx`
    INSERT INTO lead_submissions (workspace_id, video_id, email_sha256, viewer_id) VALUES (${workspaceId}, ${videoId}, ${emailSha256}, ${viewerId})
    ON CONFLICT (workspace_id, video_id, email_sha256) DO UPDATE SET viewer_id = EXCLUDED.viewer_id`;
}

/** Whether this viewer, or an email of theirs, already answered this video's lead form. */
export async function hasLeadSubmission(sql: Sql, workspaceId: number, videoId: number, viewerId: number): Promise<boolean> {
  const rows = await sql`
    SELECT 1 FROM lead_submissions s
    WHERE s.workspace_id = ${workspaceId} AND s.video_id = ${videoId}
      AND (s.viewer_id = ${viewerId} OR s.email_sha256 IN (
        SELECT key FROM viewer_keys k WHERE k.workspace_id = ${workspaceId} AND k.viewer_id = ${viewerId} AND k.kind = 'email_sha256'))
    LIMIT 1`;
  return rows.length > 0;
}

export interface ClaimItem {
  workspaceId: number;
  eventId: string;
  answer: { event: string; attributed: boolean; matchedBy: string | null };
  /** The event's time (ms): the claim's `created_at`, and its row's `created_at` in ClickHouse. */
  now: number;
}

/**
 * Claims many event_ids in one statement (keys must be distinct). A claim older
 * than 24 h has expired (docs/api.md "Custom events" rule 5) and is taken again. Returns, per item,
 * either a fresh claim or the claim found (with the answer given first).
 */
export async function claimEventIds(sql: Sql, items: ClaimItem[]): Promise<({ claimed: true } | { claimed: false; prior: DedupRow })[]> {
  const expired = new Date(Math.min(...items.map((i) => i.now)) - 24 * 60 * 60_000);
  const claimed = await sql<{ workspace_id: number; event_id: string }[]>`
    INSERT INTO event_dedup (workspace_id, event_id, event, attributed, matched_by, created_at)
    SELECT u.w, u.e, u.n, u.a, NULLIF(u.m, ''), 'epoch'::timestamptz + u.t * interval '1 millisecond'
    FROM unnest(${sql.array(items.map((i) => String(i.workspaceId)))}::bigint[], ${sql.array(items.map((i) => i.eventId))}::text[],
                ${sql.array(items.map((i) => i.answer.event))}::text[], ${sql.array(items.map((i) => String(i.answer.attributed)))}::boolean[],
                ${sql.array(items.map((i) => i.answer.matchedBy ?? ""))}::text[], ${sql.array(items.map((i) => String(i.now)))}::bigint[]) AS u(w, e, n, a, m, t)
    ON CONFLICT (workspace_id, event_id) DO UPDATE
      SET event = EXCLUDED.event, attributed = EXCLUDED.attributed, matched_by = EXCLUDED.matched_by, created_at = EXCLUDED.created_at, written = false
      WHERE event_dedup.created_at <= ${expired}
    RETURNING workspace_id, event_id`;
  const won = new Set(claimed.map((r) => `${r.workspace_id}:${r.event_id}`));
  const lost = items.filter((i) => !won.has(`${i.workspaceId}:${i.eventId}`));
  const priors = new Map<string, DedupRow>();
  if (lost.length) {
    const rows = await sql<(DedupRow & { workspace_id: number; event_id: string })[]>`
      SELECT d.workspace_id, d.event_id, d.event, d.attributed, d.matched_by, d.created_at, d.written FROM event_dedup d
      JOIN unnest(${sql.array(lost.map((i) => String(i.workspaceId)))}::bigint[], ${sql.array(lost.map((i) => i.eventId))}::text[]) AS u(w, e)
        ON d.workspace_id = u.w AND d.event_id = u.e`;
    for (const r of rows)
      priors.set(`${r.workspace_id}:${r.event_id}`, {
        event: r.event,
        attributed: r.attributed,
        matched_by: r.matched_by || null,
        created_at: r.created_at,
        written: r.written,
      });
  }
  return items.map((i) => {
    const key = `${i.workspaceId}:${i.eventId}`;
    if (won.has(key)) return { claimed: true as const };
    const prior = priors.get(key);
    // Swept between the two statements: nobody holds it, so this call does.
    return prior ? { claimed: false as const, prior } : { claimed: true as const };
  });
}
