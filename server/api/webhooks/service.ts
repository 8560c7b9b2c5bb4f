/** The rules of docs/api.md "Webhook subscriptions"; knows nothing of HTTP. */
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { isSupportedEvent, SUPPORTED_EVENTS, TEST_EVENT, type CreateWebhookBody, type Envelope } from "./model.ts";
import * as repo from "./repo.ts";
import type { SubscriptionRow } from "./repo.ts";
import { attemptDelivery } from "./send.ts";
import { generateSecret } from "./signing.ts";
import { targetUrlProblem } from "./ssrf.ts";

export const WEBHOOK_MODEL = "Webhook";

/** The wire form: never the secret (docs/api.md "Webhook subscription"). */
export function toSubscription(row: SubscriptionRow) {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    name: row.name,
    url: row.url,
    events: row.events,
    is_active: row.is_active,
    failure_count: row.failure_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function listSubscriptions(deps: Deps, workspaceId: number) {
  return repo.listSubscriptions(deps.sql, workspaceId);
}

/** 422 with the reason when the URL is not an acceptable delivery target (SSRF rule of docs/api.md). */
export async function assertTargetUrl(deps: Deps, field: string, url: string): Promise<void> {
  const problem = await targetUrlProblem(url, deps.config.webhookAllowPrivate);
  if (problem) throw validation({ [field]: [`The ${field} ${problem}.`] });
}

export async function createSubscription(
  deps: Deps,
  workspaceId: number,
  input: CreateWebhookBody,
  options: { source?: string; urlField?: string } = {},
): Promise<SubscriptionRow> {
  const bad = input.events.filter((e) => !isSupportedEvent(e));
  if (bad.length) {
    throw validation({ events: [`The events must each be one of: ${SUPPORTED_EVENTS.join(", ")}. Unsupported: ${bad.join(", ")}.`] });
  }
  await assertTargetUrl(deps, options.urlField ?? "url", input.url);
  return repo.insertSubscription(deps.sql, {
    workspace_id: workspaceId,
    name: input.name,
    url: input.url,
    events: [...new Set(input.events)],
    secret: input.secret ?? generateSecret(),
    source: options.source ?? null,
  });
}

export async function deleteSubscription(deps: Deps, workspaceId: number, id: number): Promise<boolean> {
  return repo.deleteSubscription(deps.sql, workspaceId, id);
}

/**
 * docs/api.md: a real `webhook.test` delivery signed like a live one, attempted
 * exactly once with no retry. It does not count toward `failure_count` and
 * works on an inactive subscription too (to check an endpoint before relying on it).
 */
export async function testSubscription(deps: Deps, workspaceId: number, id: number, timeoutMs?: number) {
  const row = await repo.findSubscription(deps.sql, workspaceId, id);
  if (!row) throw Errors.modelNotFound(WEBHOOK_MODEL, id);
  const now = deps.clock.now();
  const envelope: Envelope = {
    id: crypto.randomUUID(),
    event: TEST_EVENT,
    workspace_id: workspaceId,
    created_at: new Date(now).toISOString(),
    data: { webhook_id: row.id, message: "This is a test delivery from Frameline." },
  };
  const result = await attemptDelivery(row.url, row.secret, envelope, { allowPrivate: deps.config.webhookAllowPrivate, nowMs: now, timeoutMs });
  if (result.ok) return { status: 200, body: { delivered: true as const, status_code: result.status! } };
  return { status: 502, body: { delivered: false as const, error: result.error ?? "delivery failed" } };
}
