/** Routes of docs/api.md "Webhook subscriptions" (all need webhooks:write). */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { parseId } from "../../http/params.ts";
import { PathId } from "../../http/schemas.ts";
import { CreateWebhookBody, Subscription, SUPPORTED_EVENTS } from "./model.ts";
import * as webhooks from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

const WebhookParams = t.Object({ webhook: PathId("Numeric subscription id") });

export function webhooksModule(deps: Deps) {
  return createModule("webhooks", { tag: "Webhooks" })
    .use(authPlugin(deps))
    .get(
      "/webhooks",
      async ({ auth }) => ({
        webhooks: (await webhooks.listSubscriptions(deps, auth.workspaceId)).map(webhooks.toSubscription),
        supported_events: [...SUPPORTED_EVENTS],
      }),
      {
        scope: "webhooks:write",
        detail: {
          summary: "List webhook subscriptions",
          description: "Every subscription of the workspace (never its secret) and the events one can subscribe to.",
          responses: documented("api", []),
        },
        response: { 200: t.Object({ webhooks: t.Array(Subscription), supported_events: t.Array(t.String()) }) },
      },
    )
    .post(
      "/webhooks",
      async ({ auth, body, set }) => {
        const row = await webhooks.createSubscription(deps, auth.workspaceId, body);
        set.status = 201;
        return { webhook: webhooks.toSubscription(row) };
      },
      {
        scope: "webhooks:write",
        body: CreateWebhookBody,
        detail: {
          summary: "Create a webhook subscription",
          description:
            "Deliveries are JSON `{id, event, workspace_id, created_at, data}` signed per Standard Webhooks (`webhook-id`, `webhook-timestamp`, " +
            "`webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`). The HMAC key is the secret's UTF-8 bytes, or for a `whsec_<base64>` " +
            "secret the decoded bytes. The secret is never returned: supply your own to verify signatures. Failed deliveries are retried after about " +
            "5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h (with jitter; a later Retry-After wins); a 410 answer, or a delivery failing its last attempt, " +
            "sets `is_active` false.",
          responses: documented("api", [400, 422]),
        },
        response: { 201: t.Object({ webhook: Subscription }) },
      },
    )
    .delete(
      "/webhooks/:webhook",
      async ({ auth, params }) => {
        const id = parseId(params.webhook);
        if (id === undefined || !(await webhooks.deleteSubscription(deps, auth.workspaceId, id)))
          throw Errors.modelNotFound(webhooks.WEBHOOK_MODEL, params.webhook);
        return { deleted: true };
      },
      {
        scope: "webhooks:write",
        params: WebhookParams,
        detail: {
          summary: "Delete a webhook subscription",
          description: "Its pending deliveries are dropped.",
          responses: documented("api", [[404, "ModelNotFound"]]),
        },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      },
    )
    .post(
      "/webhooks/:webhook/test",
      async ({ auth, params, set }) => {
        const id = parseId(params.webhook);
        if (id === undefined) throw Errors.modelNotFound(webhooks.WEBHOOK_MODEL, params.webhook);
        const reply = await webhooks.testSubscription(deps, auth.workspaceId, id);
        set.status = reply.status;
        return reply.body;
      },
      {
        scope: "webhooks:write",
        params: WebhookParams,
        detail: {
          summary: "Send a test delivery",
          description: "One signed `webhook.test` delivery, attempted exactly once. 200 when the receiver answered 2xx, else 502 with the reason.",
          responses: documented("api", [[404, "ModelNotFound"]]),
        },
        response: {
          200: t.Object({ delivered: t.Literal(true), status_code: t.Integer() }),
          502: t.Object({ delivered: t.Literal(false), error: t.String() }),
        },
      },
    );
}
