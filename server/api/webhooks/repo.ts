/** The SQL of webhook subscriptions and their deliveries. Subscription queries are bounded by the caller's workspace. */
import type { Sql, Db } from "../../storage/postgres.ts";

export interface SubscriptionRow {
  id: number;
  workspace_id: number;
  name: string;
  url: string;
  events: string[];
  secret: string;
  is_active: boolean;
  failure_count: number;
  source: string | null;
  disabled_reason: string | null;
  created_at: Date;
  updated_at: Date;
}

export async function insertSubscription(
  sql: Db,
  input: { workspace_id: number; name: string; url: string; events: string[]; secret: string; source?: string | null },
): Promise<SubscriptionRow> {
  const [row]: [SubscriptionRow?] = await sql`
    INSERT INTO webhook_subscriptions (workspace_id, name, url, events, secret, source)
    VALUES (${input.workspace_id}, ${input.name}, ${input.url}, ${sql.array(input.events)}, ${input.secret}, ${input.source ?? null})
    RETURNING *`;
  return row!;
}

export async function listSubscriptions(sql: Db, workspaceId: number): Promise<SubscriptionRow[]> {
  return [...(await sql<SubscriptionRow[]>`SELECT * FROM webhook_subscriptions WHERE workspace_id = ${workspaceId} ORDER BY id`)];
}

export async function findSubscription(sql: Db, workspaceId: number, id: number): Promise<SubscriptionRow | undefined> {
  const [row]: [SubscriptionRow?] = await sql`SELECT * FROM webhook_subscriptions WHERE workspace_id = ${workspaceId} AND id = ${id}`;
  return row;
}

/** Its pending deliveries go with it (ON DELETE CASCADE). */
export async function deleteSubscription(sql: Db, workspaceId: number, id: number): Promise<boolean> {
  const rows = await sql`DELETE FROM webhook_subscriptions WHERE workspace_id = ${workspaceId} AND id = ${id} RETURNING id`;
  return rows.length > 0;
}

// ---------------------------------------------------------------- deliveries

export interface ClaimedDelivery {
  id: number;
  /** Attempts including this one. */
  attempts: number;
  subscription_id: number;
  url: string;
  secret: string;
  event_id: string;
  workspace_id: number;
  event: string;
  data: Record<string, unknown>;
  event_created_at: Date;
}

/**
 * Takes the oldest undispatched outbox rows (SKIP LOCKED, so several
 * deliverers take different rows), marks them dispatched and creates one
 * delivery per active subscription of the same workspace that asked for the
 * event, already claimed by the caller for its first attempt (leased like
 * `claimDue`). One statement, so one transaction: an event is fanned out
 * exactly once, and its deliveries exist before the outbox row is marked.
 * Returns the first attempts to make and how many events were taken.
 */
export async function fanOutAndClaim(sql: Db, limit: number, now: Date, leaseUntil: Date): Promise<{ events: number; claimed: ClaimedDelivery[] }> {
  const rows = await sql<(Omit<ClaimedDelivery, "id"> & { id: number | null; outbox_id: number })[]>`
    WITH batch AS (
      SELECT id, event_id, workspace_id, event, data, created_at FROM outbox
      WHERE dispatched_at IS NULL
      ORDER BY id
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), fan AS (
      INSERT INTO webhook_deliveries (subscription_id, outbox_id, attempts, next_attempt_at, created_at, updated_at)
      SELECT s.id, b.id, 1, ${leaseUntil}, ${now}, ${now}
      FROM batch b
      JOIN webhook_subscriptions s ON s.workspace_id = b.workspace_id AND s.is_active AND b.event = ANY (s.events)
      ON CONFLICT (subscription_id, outbox_id) DO NOTHING
      RETURNING id, subscription_id, outbox_id, attempts
    ), marked AS (
      UPDATE outbox SET dispatched_at = ${now} WHERE id IN (SELECT id FROM batch) RETURNING id
    )
    SELECT m.id AS outbox_id, f.id, f.attempts, f.subscription_id, s.url, s.secret,
           b.event_id, b.workspace_id, b.event, b.data, b.created_at AS event_created_at
    FROM marked m
    JOIN batch b ON b.id = m.id
    LEFT JOIN fan f ON f.outbox_id = m.id
    LEFT JOIN webhook_subscriptions s ON s.id = f.subscription_id
    ORDER BY m.id`;
  const events = new Set(rows.map((r) => r.outbox_id)).size;
  const claimed = rows.filter((r): r is typeof r & { id: number } => r.id !== null).map(({ outbox_id: _o, ...rest }) => rest);
  return { events, claimed };
}

/**
 * Claims up to `limit` due deliveries of active subscriptions: counts the
 * attempt and moves `next_attempt_at` to the lease expiry, so a process that
 * dies mid-attempt leaves the delivery due again once the lease runs out
 * (deliveries survive a restart; at-least-once).
 */
export async function claimDue(sql: Db, limit: number, now: Date, leaseUntil: Date): Promise<ClaimedDelivery[]> {
  return [
    ...(await sql<ClaimedDelivery[]>`
      WITH due AS (
        SELECT d.id FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.is_active
        WHERE d.state = 'pending' AND d.next_attempt_at <= ${now}
        ORDER BY d.next_attempt_at, d.id
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries d
      SET attempts = d.attempts + 1, next_attempt_at = ${leaseUntil}, updated_at = ${now}
      FROM due, webhook_subscriptions s, outbox o
      WHERE d.id = due.id AND s.id = d.subscription_id AND o.id = d.outbox_id
      RETURNING d.id, d.attempts, d.subscription_id, s.url, s.secret, o.event_id, o.workspace_id, o.event, o.data, o.created_at AS event_created_at`),
  ];
}

export async function markDelivered(sql: Db, deliveries: { id: number; status: number }[], now: Date): Promise<void> {
  if (deliveries.length === 0) return;
  const ids = deliveries.map((d) => d.id);
  const statuses = deliveries.map((d) => d.status);
  // One statement: the deliveries, and the end of their subscriptions' runs of
  // failures (the WHERE keeps the common case free of writes).
  await sql`
    WITH done AS (
      UPDATE webhook_deliveries d SET state = 'delivered', last_status = v.status, last_error = NULL, delivered_at = ${now}, updated_at = ${now}
      FROM (SELECT unnest(${sql.array(ids)}::bigint[]) AS id, unnest(${sql.array(statuses)}::int[]) AS status) v
      WHERE d.id = v.id AND d.state = 'pending'
      RETURNING d.subscription_id
    )
    UPDATE webhook_subscriptions SET failure_count = 0, updated_at = ${now}
    WHERE id IN (SELECT subscription_id FROM done) AND failure_count <> 0`;
}

export async function recordFailure(
  sql: Sql,
  delivery: { id: number; subscription_id: number; status?: number; error: string },
  outcome: { retryAt: Date } | { giveUp: true; disableReason?: string },
  now: Date,
): Promise<void> {
  await sql.begin(async (tx) => {
    const error = delivery.error.slice(0, 500);
    if ("retryAt" in outcome) {
      await tx`UPDATE webhook_deliveries SET next_attempt_at = ${outcome.retryAt}, last_status = ${delivery.status ?? null}, last_error = ${error}, updated_at = ${now}
               WHERE id = ${delivery.id} AND state = 'pending'`;
    } else {
      await tx`UPDATE webhook_deliveries SET state = 'failed', last_status = ${delivery.status ?? null}, last_error = ${error}, updated_at = ${now}
               WHERE id = ${delivery.id} AND state = 'pending'`;
    }
    const disable = "giveUp" in outcome && outcome.disableReason !== undefined;
    await tx`UPDATE webhook_subscriptions SET failure_count = failure_count + 1, updated_at = ${now}
             ${disable ? tx`, is_active = false, disabled_reason = ${outcome.disableReason!}` : tx``}
             WHERE id = ${delivery.subscription_id}`;
    if (disable) {
      await tx`UPDATE webhook_deliveries SET state = 'cancelled', last_error = ${`subscription disabled: ${outcome.disableReason}`.slice(0, 500)}, updated_at = ${now}
               WHERE subscription_id = ${delivery.subscription_id} AND state = 'pending' AND id <> ${delivery.id}`;
    }
  });
}

/**
 * Housekeeping: finished deliveries older than `before`, and outbox rows
 * dispatched before then with nothing left pending (the deliverer is the
 * outbox's reader; a week of history stays for inspection).
 */
export async function pruneFinished(sql: Db, before: Date, limit = 5000): Promise<number> {
  const gone = await sql`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT id FROM webhook_deliveries WHERE state <> 'pending' AND updated_at < ${before} LIMIT ${limit})
    RETURNING id`;
  await sql`
    DELETE FROM outbox WHERE id IN (
      SELECT o.id FROM outbox o
      WHERE o.dispatched_at < ${before}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.outbox_id = o.id AND d.state = 'pending')
      -- Oldest first along the primary key: the rows to drop are at its start.
      ORDER BY o.id
      LIMIT ${limit})`;
  return gone.length;
}
