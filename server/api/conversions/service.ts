/**
 * Conversions: server-to-server postbacks (verified) and the browser fallback
 * (unverified), merged in one ledger where the verified row always wins.
 * Only verified rows fan out (outbox) and land in ClickHouse (through `sale_events`: `events` and `analytics_sales`) as
 * `event_type = 'conversion'` (value = amount), so analytics revenue sees
 * verified sales only, once each.
 */
import type { Deps } from "../../deps.ts";
import { storageFailure } from "../../storage/postgres.ts";
import { Errors, validation } from "../../errors.ts";
import { chTime, type EventRow } from "../../ingest/index.ts";
import { e164, hex, normaliseEmail } from "../../hosts/events/identity.ts";
import * as viewers from "../../domains/viewers/service.ts";
import type { BrowserConversionBody, ConversionBody } from "./model.ts";
import * as repo from "./repo.ts";

export interface ConversionReply {
  recorded: boolean;
  conversion_id: string;
  video_code: string;
  attributed_to_split_test: boolean;
}

/** S2S postbacks without `conversion_data.integration` are keyed under this prefix. */
const API_PREFIX = "api";

export function dedupKey(integration: string | null, orderId: string): string {
  return `${integration ?? API_PREFIX}:${orderId}`;
}

function integrationOf(data: Record<string, unknown> | undefined): string | null {
  const value = data?.integration;
  if (value === undefined || value === null) return null;
  if (typeof value !== "string" || value.length < 1 || value.length > 60)
    throw validation({ "conversion_data.integration": ["The integration must be a string of 1 to 60 characters."] });
  return value;
}

const emailHash = (email: string | undefined) => (email && normaliseEmail(email) ? hex("sha256", normaliseEmail(email)) : null);
const phoneHash = (phone: string | undefined) => {
  const number = phone === undefined ? undefined : e164(phone);
  return number ? hex("sha256", number) : null;
};

export async function recordVerified(deps: Deps, workspaceId: number, body: ConversionBody): Promise<ConversionReply> {
  if ((body.split_test_id === undefined) !== (body.split_test_variation_id === undefined)) {
    const missing = body.split_test_id === undefined ? "split_test_id" : "split_test_variation_id";
    throw validation({ [missing]: ["Send split_test_id and split_test_variation_id together, or neither."] });
  }
  let occurredAt = new Date(deps.clock.now());
  if (body.occurred_at !== undefined) {
    occurredAt = new Date(body.occurred_at);
    if (Number.isNaN(occurredAt.getTime())) throw validation({ occurred_at: ["The occurred_at must be an ISO 8601 date-time."] });
  }
  const integration = integrationOf(body.conversion_data);
  const video = await viewers.videoByCode(deps, workspaceId, body.video_code);
  if (!video) throw Errors.conversionVideoNotFound(body.video_code);
  const session = body.session_code ? await viewers.findSession(deps, workspaceId, body.session_code) : undefined;
  const conversionId = body.conversion_id ?? crypto.randomUUID();
  const customerEmailSha256 = emailHash(body.conversion_customer_email);
  // Ids sent are kept (both or neither); without them the sale takes the split-test variation its session was served.
  const split = body.split_test_id !== undefined ? undefined : viewers.splitStampOf(session);

  const { row, newlyVerified } = await repo.upsertVerified(
    deps.sql,
    workspaceId,
    {
      dedupKey: dedupKey(integration, conversionId),
      integration,
      conversionId,
      conversionType: "purchase",
      videoId: video.id,
      videoCode: video.code,
      sessionCode: body.session_code ?? null,
      deviceId: session?.device_id ?? null,
      viewerId: session?.viewer_id ?? null,
      value: body.conversion_value ?? null,
      currency: body.conversion_currency?.toUpperCase() ?? null,
      productCode: body.conversion_product_code ?? null,
      productName: body.conversion_product_name ?? null,
      customerEmailSha256,
      customerPhoneSha256: phoneHash(body.conversion_customer_phone),
      customerName: body.conversion_customer_name ?? null,
      data: body.conversion_data ?? {},
      isTest: body.is_test ?? false,
      splitTestId: body.split_test_id ?? split?.split_test_id ?? null,
      splitTestVariationId: body.split_test_variation_id ?? split?.split_test_variation_id ?? null,
      occurredAt,
    },
    (r) => ({
      conversion: {
        id: r.id,
        conversion_id: r.conversion_id,
        integration: r.integration,
        video: { id: video.id, code: video.code },
        session_code: r.session_code,
        value: r.value === null ? null : Number(r.value),
        currency: r.currency,
        product_code: body.conversion_product_code ?? null,
        product_name: body.conversion_product_name ?? null,
        // Connectors and CRMs need the contact; it travels in the delivery only, the ledger keeps hashes.
        customer: { email: body.conversion_customer_email ?? null, name: body.conversion_customer_name ?? null, phone: body.conversion_customer_phone ?? null },
        data: body.conversion_data ?? {},
        is_test: r.is_test,
        split_test_id: r.split_test_id,
        split_test_variation_id: r.split_test_variation_id,
        occurred_at: r.occurred_at.toISOString(),
        verified: true,
      },
    }),
  );
  const eventMissing = row.event_written_at === null;
  if (eventMissing) {
    await deps.ingest.sales.add([conversionEvent(workspaceId, row)]);
    await repo.markEventWritten(deps.sql, row.id);
  }
  if (session && customerEmailSha256) {
    await viewers.linkKeys(deps, workspaceId, session.viewer_id, [{ kind: viewers.KeyKinds.emailSha256, key: customerEmailSha256 }]).catch(() => {});
  }
  return {
    recorded: newlyVerified || eventMissing,
    conversion_id: row.conversion_id,
    video_code: body.video_code,
    // docs/api.md: without a session the sale is not traced to a split-test winner (the rule: server/api/split-tests/stats.ts).
    attributed_to_split_test: row.split_test_id !== null && row.split_test_variation_id !== null && row.session_code !== null,
  };
}

function conversionEvent(workspaceId: number, row: repo.LedgerRow): EventRow {
  const properties: Record<string, string> = { conversion_id: row.conversion_id, source: row.conversion_source, is_test: String(row.is_test) };
  if (row.currency) properties.currency = row.currency;
  if (row.integration) properties.integration = row.integration;
  if (row.product_code) properties.product_code = row.product_code;
  if (row.split_test_id) properties.split_test_id = row.split_test_id;
  if (row.split_test_variation_id) properties.split_test_variation_id = row.split_test_variation_id;
  return {
    workspace_id: workspaceId,
    video_id: row.video_id ?? 0,
    video_code: row.video_code ?? "",
    event_type: "conversion",
    event: row.conversion_type,
    event_id: row.dedup_key,
    session_code: row.session_code ?? "",
    device_id: row.device_id ?? "",
    watch_seconds: 0,
    video_time: 0,
    value: row.value === null ? null : Number(row.value),
    properties,
    created_at: chTime(row.occurred_at.getTime()),
    viewer_id: row.viewer_id ?? 0,
  };
}

export class UnavailableError extends Error {}

/**
 * Browser fallback (docs/api.md "Browser conversion fallback"): an unverified row,
 * excluded from revenue, fanning out nothing; a retry or a row already verified
 * leaves the ledger as it is.
 */
export async function recordBrowser(
  deps: Deps,
  body: BrowserConversionBody,
): Promise<{ id: string; attributed: boolean } | "integration_not_found" | "fallback_disabled"> {
  let workspaceId: number | undefined;
  let integration: repo.IntegrationRow | undefined;
  try {
    workspaceId = await viewers.workspaceIdByCode(deps, body.workspace_code);
    const id = workspaceId;
    integration = id === undefined ? undefined : await repo.findIntegration(deps.sql, id, body.integration);
  } catch (error) {
    // Never a payload rejection (docs/api.md), unless the value itself was refused: that is the client's.
    if (storageFailure(error) === "invalidData") throw error;
    throw new UnavailableError(String(error));
  }
  if (workspaceId === undefined || !integration) return "integration_not_found";
  if (!integration.browser_fallback) return "fallback_disabled";

  const session = body.session_id ? await viewers.findSession(deps, workspaceId, body.session_id) : undefined;
  const split = viewers.splitStampOf(session);
  const video = body.video_code ? await viewers.videoByCode(deps, workspaceId, body.video_code) : undefined;
  const id = dedupKey(body.integration, body.order_id);
  const ws = workspaceId;
  await repo.insertBrowserRow(deps.sql, ws, {
    dedupKey: id,
    integration: body.integration,
    conversionId: body.order_id,
    conversionType: body.conversion_type ?? "purchase",
    videoId: video?.id ?? (body.video_code ? null : (session?.video_id ?? null)),
    videoCode: body.video_code ?? session?.video_code ?? null,
    sessionCode: session ? body.session_id! : null,
    deviceId: body.device_id ?? session?.device_id ?? null,
    viewerId: session?.viewer_id ?? null,
    value: body.value,
    currency: (body.currency ?? "USD").toUpperCase(),
    productCode: body.product_code ?? null,
    productName: body.product_name ?? null,
    customerEmailSha256: emailHash(body.customer_email),
    customerPhoneSha256: phoneHash(body.customer_phone),
    customerName: body.customer_name ?? null,
    data: body.properties ?? {},
    isTest: body.is_test ?? false,
    // The split-test variation its session was served, as a verified sale's.
    splitTestId: split?.split_test_id ?? null,
    splitTestVariationId: split?.split_test_variation_id ?? null,
    occurredAt: new Date(deps.clock.now()),
  });
  return { id, attributed: session !== undefined };
}
