/**
 * docs/api.md "Signing keys": keys a seller's server mints playback tokens with,
 * offline (README "Signed URLs"). The secret is answered once, at creation.
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { documented } from "../../http/openapi-docs.ts";
import { Text } from "../../http/schemas.ts";
import { newSecret } from "../../domains/playback/service.ts";
import * as repo from "../../domains/playback/repo.ts";

const KeyInfo = t.Object({ id: t.String({ format: "uuid" }), algorithm: t.Literal("HS256"), created_at: t.String({ format: "date-time" }) });
const NewKey = t.Object({
  id: t.String({ format: "uuid" }),
  algorithm: t.Literal("HS256"),
  secret: t.String({ description: "base64url; shown once" }),
  jwk: t.Object({ kty: t.Literal("oct"), kid: t.String(), alg: t.Literal("HS256"), k: t.String() }),
  created_at: t.String({ format: "date-time" }),
});

const info = (row: repo.SigningKeyRow) => ({ id: row.id, algorithm: "HS256" as const, created_at: row.created_at.toISOString() });

export function signingKeysModule(deps: Deps) {
  return createModule("signing-keys", { tag: "Playback protection" })
    .use(authPlugin(deps))
    .post(
      "/signing-keys",
      ({ auth, request, set }) =>
        idempotent(deps, { auth, request, set }, null, async () => {
          const row = (await repo.insertKey(deps.sql, auth.workspaceId, newSecret()))!;
          deps.playback.keysChanged();
          const key = { ...info(row), secret: row.secret, jwk: { kty: "oct" as const, kid: row.id, alg: "HS256" as const, k: row.secret } };
          return { status: 201, body: { signing_key: key } };
        }),
      {
        scope: "videos:write",
        detail: {
          summary: "Create a signing key",
          description: "An HMAC-SHA256 key to mint playback tokens offline. The secret is in this answer only.",
          responses: documented("api", [409, 422]),
        },
        response: { 201: t.Object({ signing_key: NewKey }) },
      },
    )
    .get("/signing-keys", async ({ auth }) => ({ data: (await repo.listKeys(deps.sql, auth.workspaceId)).map(info) }), {
      scope: "videos:read",
      detail: { summary: "List signing keys", description: "Live keys, without their secrets.", responses: documented("api", []) },
      response: { 200: t.Object({ data: t.Array(KeyInfo) }) },
    })
    .delete(
      "/signing-keys/:id",
      async ({ auth, params }) => {
        if (!(await repo.revokeKey(deps.sql, auth.workspaceId, params.id))) throw Errors.signingKeyNotFound();
        deps.playback.keysChanged();
        return { deleted: true };
      },
      {
        scope: "videos:write",
        params: t.Object({ id: Text({ maxLength: 64, description: "The key's id" }) }),
        detail: {
          summary: "Revoke a signing key",
          description: "Tokens it signed stop playing: at once in this process, within 10 seconds in every other.",
          responses: documented("api", [404, 422]),
        },
        response: { 200: t.Object({ deleted: t.Boolean() }) },
      },
    );
}
