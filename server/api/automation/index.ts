/**
 * Routes of docs/api.md "Automation-platform REST hooks" at `/{platform}/...` for
 * zapier, make and n8n (docs/api.md). All five need webhooks:write and count
 * as writes, GETs included (the scope is of the write kind).
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { parseId } from "../../http/params.ts";
import { PathId, Text } from "../../http/schemas.ts";
import { EnvelopeSchema } from "../webhooks/model.ts";
import { PLATFORMS, type Platform } from "./catalogue.ts";
import * as automation from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

const SubscribeBody = t.Object({
  target_url: Text({ minLength: 1, maxLength: 2048, error: "The target_url must be a URL of at most 2048 characters." }),
  // Any other key is an unknown trigger (a flat 200, docs/api.md): only the URL's size bounds it.
  event: Text({ minLength: 1, maxLength: 16_384, error: "The event must be a trigger key." }),
});

const UnknownTrigger = t.Object({ error: t.Literal("unknown_trigger") });

function platformRoutes(deps: Deps, platform: Platform) {
  const base = `/${platform}`;
  const tag = { tags: ["Automation"] };
  return createModule(`automation.${platform}`)
    .use(authPlugin(deps))
    .get(`${base}/me`, ({ auth }) => automation.me(deps, auth.workspaceId), {
      scope: "webhooks:write",
      detail: { ...tag, summary: `${PLATFORMS[platform]}: the connected workspace`, responses: documented("api", [[404, "FlatError"]]) },
      response: { 200: t.Object({ workspace_id: t.Integer(), workspace_name: t.String(), workspace_code: t.String() }) },
    })
    .get(`${base}/triggers`, () => automation.triggers(), {
      scope: "webhooks:write",
      detail: { ...tag, summary: `${PLATFORMS[platform]}: trigger catalogue`, responses: documented("api", []) },
      response: { 200: t.Object({ triggers: t.Array(t.Object({ key: t.String(), event: t.String(), label: t.String(), description: t.String() })) }) },
    })
    .get(`${base}/triggers/:key/sample`, ({ auth, params }) => automation.sample(deps, auth.workspaceId, params.key), {
      scope: "webhooks:write",
      params: t.Object({ key: Text({ maxLength: 16_384 }) }),
      detail: {
        ...tag,
        summary: `${PLATFORMS[platform]}: one sample delivery`,
        description: 'An array of one delivery. An unknown key answers 200 with the flat body `{error: "unknown_trigger"}` (docs/api.md).',
        responses: documented("api", [422]),
      },
      response: { 200: t.Union([t.Array(EnvelopeSchema), UnknownTrigger]) },
    })
    .post(
      `${base}/subscribe`,
      async ({ auth, body, set }) => {
        const created = await automation.subscribe(deps, auth.workspaceId, platform, body);
        set.status = 201;
        return created;
      },
      {
        scope: "webhooks:write",
        body: SubscribeBody,
        detail: {
          ...tag,
          summary: `${PLATFORMS[platform]}: subscribe a REST hook`,
          description: `Creates a normal webhook subscription named "${PLATFORMS[platform]}: <label>". \`event\` is a trigger key; an unknown key answers 200 with the flat body \`{error: "unknown_trigger"}\` and creates nothing (docs/api.md).`,
          responses: documented("api", [400, 422]),
        },
        response: {
          201: t.Object({ id: t.Integer(), event: t.String() }),
          200: UnknownTrigger,
        },
      },
    )
    .delete(
      `${base}/subscribe/:id`,
      ({ auth, params, request, set }) =>
        idempotent(deps, { auth, request, set }, null, async () => ({
          status: 200,
          body: await automation.unsubscribe(deps, auth.workspaceId, parseId(params.id)),
        })),
      {
        scope: "webhooks:write",
        params: t.Object({ id: PathId("Numeric subscription id") }),
        detail: {
          ...tag,
          summary: `${PLATFORMS[platform]}: unsubscribe`,
          description: "200 `{deleted: true}` even for an unknown or another workspace's id (which is left untouched). Honours Idempotency-Key.",
          responses: documented("api", [409, 422]),
        },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      },
    );
}

export function automationModule(deps: Deps) {
  return createModule("automation").use((Object.keys(PLATFORMS) as Platform[]).map((platform) => platformRoutes(deps, platform)));
}
