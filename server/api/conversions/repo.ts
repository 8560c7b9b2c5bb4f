/**
 * The conversions ledger (docs/api.md "Conversion verification"): one row per
 * (workspace, dedup_key). A browser row is inserted only when the key is new; a
 * verified postback inserts or upgrades the row, in either order of arrival.
 */
import { json, type Sql } from "../../storage/postgres.ts";
import { enqueueEvent, LifecycleEvents } from "../../storage/outbox.ts";

export interface LedgerRow {
  id: number;
  dedup_key: string;
  conversion_id: string;
  conversion_type: string;
  verified: boolean;
  conversion_source: string;
  integration: string | null;
  video_id: number | null;
  video_code: string | null;
  session_code: string | null;
  device_id: string | null;
  viewer_id: number | null;
  value: string | null;
  currency: string | null;
  product_code: string | null;
  is_test: boolean;
  split_test_id: string | null;
  split_test_variation_id: string | null;
  occurred_at: Date;
  event_written_at: Date | null;
}

export interface LedgerInput {
  dedupKey: string;
  integration: string | null;
  conversionId: string;
  conversionType: string;
  videoId: number | null;
  videoCode: string | null;
  sessionCode: string | null;
  deviceId: string | null;
  viewerId: number | null;
  value: number | null;
  currency: string | null;
  productCode: string | null;
  productName: string | null;
  customerEmailSha256: string | null;
  customerPhoneSha256: string | null;
  customerName: string | null;
  data: Record<string, unknown>;
  isTest: boolean;
  splitTestId: string | null;
  splitTestVariationId: string | null;
  occurredAt: Date;
}

const columns = (workspaceId: number, c: LedgerInput, verified: boolean, source: string) => ({
  workspace_id: workspaceId,
  dedup_key: c.dedupKey,
  integration: c.integration,
  conversion_id: c.conversionId,
  conversion_type: c.conversionType,
  verified,
  conversion_source: source,
  video_id: c.videoId,
  video_code: c.videoCode,
  session_code: c.sessionCode,
  device_id: c.deviceId,
  viewer_id: c.viewerId,
  value: c.value,
  currency: c.currency,
  product_code: c.productCode,
  product_name: c.productName,
  customer_email_sha256: c.customerEmailSha256,
  customer_phone_sha256: c.customerPhoneSha256,
  customer_name: c.customerName,
  data: c.data,
  is_test: c.isTest,
  split_test_id: c.splitTestId,
  split_test_variation_id: c.splitTestVariationId,
  occurred_at: c.occurredAt,
});

const RETURNING =
  "id, dedup_key, conversion_id, conversion_type, verified, conversion_source, integration, video_id, video_code, session_code, device_id, viewer_id, value, currency, product_code, is_test, split_test_id, split_test_variation_id, occurred_at, event_written_at";

/** Browser fallback: inserts an unverified row unless the key exists (a retry, or a verified row that wins). */
export async function insertBrowserRow(sql: Sql, workspaceId: number, c: LedgerInput): Promise<void> {
  const row = columns(workspaceId, c, false, "browser");
  await sql`INSERT INTO conversions ${sql({ ...row, data: json(sql, row.data) })} ON CONFLICT (workspace_id, dedup_key) DO NOTHING`;
}

/**
 * Verified postback: inserts, or overwrites an unverified row with the
 * verified values. Returns the row and whether this call made it verified;
 * only then are `conversion` and `conversion.created` enqueued (same transaction).
 */
export async function upsertVerified(
  sql: Sql,
  workspaceId: number,
  c: LedgerInput,
  fanOut: (row: LedgerRow) => Record<string, unknown>,
): Promise<{ row: LedgerRow; newlyVerified: boolean }> {
  return sql.begin(async (tx) => {
    const values = columns(workspaceId, c, true, "api");
    const data = { ...values, data: json(tx, values.data) };
    const [inserted]: [LedgerRow?] = await tx`
      INSERT INTO conversions ${tx(data)} ON CONFLICT (workspace_id, dedup_key) DO NOTHING RETURNING ${tx.unsafe(RETURNING)}`;
    let row = inserted;
    let newlyVerified = inserted !== undefined;
    if (!row) {
      const [existing]: [LedgerRow?] = await tx`
        SELECT ${tx.unsafe(RETURNING)} FROM conversions WHERE workspace_id = ${workspaceId} AND dedup_key = ${c.dedupKey} FOR UPDATE`;
      if (existing!.verified) return { row: existing!, newlyVerified: false };
      // The verified postback always wins: its values replace the browser row's.
      const { workspace_id: _w, dedup_key: _k, ...update } = data;
      const [upgraded]: [LedgerRow?] = await tx`
        UPDATE conversions SET ${tx(update)}, event_written_at = NULL, updated_at = now()
        WHERE workspace_id = ${workspaceId} AND dedup_key = ${c.dedupKey} RETURNING ${tx.unsafe(RETURNING)}`;
      row = upgraded!;
      newlyVerified = true;
    }
    const payload = fanOut(row);
    await enqueueEvent(tx, workspaceId, LifecycleEvents.conversion, payload);
    await enqueueEvent(tx, workspaceId, LifecycleEvents.conversionCreated, payload);
    return { row, newlyVerified };
  });
}

export async function markEventWritten(sql: Sql, id: number): Promise<void> {
  await sql`UPDATE conversions SET event_written_at = now() WHERE id = ${id}`;
}

export interface IntegrationRow {
  browser_fallback: boolean;
}

export async function findIntegration(sql: Sql, workspaceId: number, name: string): Promise<IntegrationRow | undefined> {
  const [row]: [IntegrationRow?] = await sql`SELECT browser_fallback FROM integrations WHERE workspace_id = ${workspaceId} AND name = ${name}`;
  return row;
}
