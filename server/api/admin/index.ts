/**
 * The operator API of docs/api.md, guarded by the admin key. The dashboard calls
 * the routes of one workspace with a member's session instead (README "The
 * dashboard"): the member's role there decides, and each change is audited.
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors, validation } from "../../errors.ts";
import { parseId } from "../../http/params.ts";
import { Int, JsonObject, MAX_JSON_DEPTH, PathId, Text } from "../../http/schemas.ts";
import { ALL_SCOPES, isScope, Scopes } from "../../../contract/scopes.ts";
import { assertAdminKey } from "../../http/admin-key.ts";
import * as workspaces from "../../domains/workspaces/service.ts";
import { normaliseEventName } from "../../../contract/events.ts";
import * as settings from "../settings/service.ts";
import { FullVideo } from "../videos/model.ts";
import { GROUP_NAMES } from "../../../contract/settings.ts";
import { groupsDoc } from "../settings/groups-doc.ts";
import { scriptUrl, toFullVideo, VIDEO_MODEL } from "../videos/service.ts";
import { documented } from "../../http/openapi-docs.ts";
import { credentialOf } from "../../http/auth.ts";
import { requireSession, sessionCookie } from "../accounts/session.ts";
import { actorOf, audit, createUser, requireRole, type Actor } from "../../domains/accounts/service.ts";
import type { Role } from "../../../contract/roles.ts";
import { Email, Password, RoleName } from "../accounts/model.ts";
import { randomBytes } from "node:crypto";

/** The routes a member's session may call, the role each needs, and what a change is called in the audit list. */
const MEMBER_ROUTES: Record<string, { role: Role; action?: string }> = {
  "GET /admin/v1/workspaces/:id/tokens": { role: "owner" },
  "POST /admin/v1/workspaces/:id/tokens": { role: "owner", action: "token.created" },
  "DELETE /admin/v1/tokens/:id": { role: "owner", action: "token.revoked" },
  "GET /admin/v1/workspaces/:id/custom-metrics": { role: "editor" },
  "POST /admin/v1/workspaces/:id/custom-metrics": { role: "owner", action: "metric.declared" },
  "GET /admin/v1/workspaces/:id/integrations": { role: "owner" },
  "PUT /admin/v1/workspaces/:id/integrations/:integration": { role: "owner", action: "integration.set" },
  "POST /admin/v1/workspaces/:id/videos/:video/draft": { role: "editor" },
  "POST /admin/v1/workspaces/:id/videos/:video/deploy": { role: "editor", action: "settings.deployed" },
};

const Workspace = t.Object({ id: t.Integer(), code: t.String(), name: t.String(), created_at: t.String({ format: "date-time" }) });
const Token = t.Object(
  {
    id: t.Integer(),
    name: t.String(),
    scopes: t.Array(t.String()),
    expires_at: t.Nullable(t.String({ format: "date-time" })),
    created_at: t.String({ format: "date-time" }),
  },
  { additionalProperties: true },
);
const WorkspaceParams = t.Object({ id: PathId("Numeric workspace id") });
const VideoParams = t.Object({ id: PathId("Workspace id"), video: PathId("Numeric video id") });
const Name = Text({ minLength: 1, maxLength: 255, error: "The name must be a string of 1 to 255 characters." });
// Free-form inside like the application API's payload (http/schemas.ts JsonObject): the registry validates the merged result.
const OperatorSettings = JsonObject({
  maxDepth: MAX_JSON_DEPTH,
  properties: { ...groupsDoc(GROUP_NAMES), _version_label: t.Optional(t.Unknown({ description: "Deploy: a label for the version, at most 255 characters." })) },
  description:
    "Any subset of option groups, the five docs/api.md keeps from the application API included (`headline_options`, `pitch_time_options`, " +
    "`cloak_options`, `share_options`, `actions_options`), merged recursively over the live settings, a list replacing the stored list whole; `_version_label` on deploy.",
});

export function adminModule(deps: Deps, adminKey: string) {
  const workspaceOr404 = async (raw: string) => {
    const id = parseId(raw);
    const row = id === undefined ? undefined : await workspaces.findWorkspace(deps.sql, id);
    if (!row) throw Errors.notFound("Workspace not found.");
    return row;
  };
  const videoId = (raw: string) => {
    const id = parseId(raw);
    if (id === undefined) throw Errors.modelNotFound(VIDEO_MODEL, raw);
    return id;
  };

  /** The changes members made, audited once their route answered. */
  const changes = new WeakMap<Request, { actor: Actor; action: string; workspaceId: number; detail: Record<string, unknown> }>();
  /** The admin key, or on the routes of MEMBER_ROUTES a session whose member has the role there. */
  const authorize = async (request: Request, route: string, params: Record<string, string>) => {
    const member = MEMBER_ROUTES[`${request.method} ${route}`];
    if (!member || credentialOf(request.headers) !== undefined || !sessionCookie(request.headers)) return assertAdminKey(request.headers, adminKey);
    const session = await requireSession(deps, request);
    const id = parseId(params.id ?? "");
    const workspaceId = id === undefined ? undefined : route === "/admin/v1/tokens/:id" ? await workspaces.findTokenWorkspace(deps.sql, id) : id;
    if (workspaceId === undefined) throw Errors.notFound(route === "/admin/v1/tokens/:id" ? "Token not found or already revoked." : "Workspace not found.");
    await requireRole(deps, session, workspaceId, member.role);
    if (member.action) changes.set(request, { actor: actorOf(session), action: member.action, workspaceId, detail: { ...params } });
  };

  return (
    createModule("admin", { tag: "Operator", prefix: "/admin/v1" })
      // `transform` runs before validation, so an unauthenticated call gets 401, not a 422.
      .onTransform(({ request, route, params }) => authorize(request, route, params as Record<string, string>))
      .onAfterHandle(async ({ request }) => {
        const change = changes.get(request);
        if (change) await audit(deps.sql, change.actor, change.action, change.workspaceId, change.detail);
      })
      .post(
        "/users",
        async ({ body, set }) => {
          if (body.workspace_id !== undefined && !(await workspaces.findWorkspace(deps.sql, body.workspace_id))) throw Errors.notFound("Workspace not found.");
          const password = body.password ?? randomBytes(15).toString("base64url");
          const user = await deps.sql.begin((tx) => createUser(tx, { email: body.email, password, workspaceId: body.workspace_id, role: body.role }, null));
          set.status = 201;
          return {
            user: { id: user.id, email: user.email },
            workspace_id: body.workspace_id ?? null,
            role: body.role ?? "owner",
            password: body.password ? null : password,
          };
        },
        {
          body: t.Object({
            email: Email,
            password: t.Optional(Password),
            workspace_id: t.Optional(Int(1, Number.MAX_SAFE_INTEGER, { error: "The workspace_id must be a workspace's id." })),
            role: t.Optional(RoleName),
          }),
          detail: {
            summary: "Create a dashboard account",
            description:
              "An account that signs in to the dashboard with email and password, a member of `workspace_id` with `role` (default owner). " +
              "Without `password` one is generated and answered once. 422 for a password under 10 characters or a common one, or an email already used.",
            responses: documented("operator", [400, 404, 422]),
          },
          response: {
            201: t.Object({
              user: t.Object({ id: t.Integer(), email: t.String() }),
              workspace_id: t.Nullable(t.Integer()),
              role: t.String(),
              password: t.Nullable(t.String({ description: "The generated password, shown once; null when it was sent." })),
            }),
          },
        },
      )
      .post(
        "/workspaces",
        async ({ body, set }) => {
          const { workspace, legacyKey } = await workspaces.createWorkspace(deps.sql, body.name);
          set.status = 201;
          return { workspace: workspaces.toWorkspace(workspace), legacy_key: legacyKey };
        },
        {
          body: t.Object({ name: Name }),
          detail: { summary: "Create a workspace", description: "Returns its legacy key once.", responses: documented("operator", [400, 422]) },
          response: { 201: t.Object({ workspace: Workspace, legacy_key: t.String() }) },
        },
      )
      .get("/workspaces", async () => ({ workspaces: (await workspaces.listWorkspaces(deps.sql)).map(workspaces.toWorkspace) }), {
        detail: { summary: "List workspaces", responses: documented("operator", []) },
        response: { 200: t.Object({ workspaces: t.Array(Workspace) }) },
      })
      .post(
        "/workspaces/:id/tokens",
        async ({ params, body, set }) => {
          const workspace = await workspaceOr404(params.id);
          const unknown = body.scopes.filter((s) => !isScope(s));
          if (unknown.length) throw validation({ scopes: [`Unknown scope ${unknown.map((s) => `"${s}"`).join(", ")}; allowed: ${ALL_SCOPES.join(", ")}.`] });
          if (body.scopes.length === 0) throw validation({ scopes: ["Choose at least one scope."] });
          const { token, secret } = await workspaces.createToken(deps, workspace.id, {
            name: body.name,
            scopes: body.scopes.filter(isScope),
            expiresInDays: body.expires_in_days ?? undefined,
          });
          set.status = 201;
          return { token: workspaces.toToken(token), secret };
        },
        {
          params: WorkspaceParams,
          body: t.Object({
            name: Name,
            scopes: t.Array(Text({ maxLength: 64 }), { maxItems: 64, error: "The scopes must be a list of scope names." }),
            // docs/api.md "Authentication" 3: blank (omitted or null) means never expires; docs/api.md: an integer (a JSON number, not "1").
            expires_in_days: t.Optional(t.Nullable(Int(1, 3650, { error: "The expires_in_days must be an integer from 1 to 3650." }))),
          }),
          detail: {
            summary: "Mint a scoped token",
            description: `The plaintext \`secret\` is shown once. Scopes: ${Object.entries(Scopes)
              .map(([s, v]) => `\`${s}\` (${v.grants})`)
              .join("; ")}.`,
            responses: documented("operator", [403, 400, 404, 422]),
          },
          response: { 201: t.Object({ token: Token, secret: t.String() }) },
        },
      )
      .get(
        "/workspaces/:id/tokens",
        async ({ params }) => ({ tokens: (await workspaces.listTokens(deps.sql, (await workspaceOr404(params.id)).id)).map(workspaces.toToken) }),
        {
          params: WorkspaceParams,
          detail: { summary: "List a workspace's live tokens", description: "Never the plaintext.", responses: documented("operator", [403, 404]) },
          response: { 200: t.Object({ tokens: t.Array(Token) }) },
        },
      )
      .delete(
        "/tokens/:id",
        async ({ params }) => {
          const id = parseId(params.id);
          if (id === undefined || !(await workspaces.revokeToken(deps, id))) throw Errors.notFound("Token not found or already revoked.");
          return { revoked: true };
        },
        {
          params: t.Object({ id: PathId("Numeric token id") }),
          detail: { summary: "Revoke a token", description: "Fails at once with 401 INVALID_TOKEN.", responses: documented("operator", [403, 404]) },
          response: { 200: t.Object({ revoked: t.Boolean() }) },
        },
      )
      .post(
        "/workspaces/:id/custom-metrics",
        async ({ params, body, set }) => {
          const workspace = await workspaceOr404(params.id);
          const name = normaliseEventName(body.name);
          if (name === "") throw validation({ name: ["The name has no usable characters (a-z, 0-9, _ and -)."] });
          await workspaces.declareMetric(deps.sql, workspace.id, name);
          set.status = 201;
          return { metric: { name } };
        },
        {
          params: WorkspaceParams,
          body: t.Object({ name: Name }),
          detail: {
            summary: "Declare a custom metric",
            description: "Name normalised as event names are.",
            responses: documented("operator", [403, 400, 404, 422]),
          },
          response: { 201: t.Object({ metric: t.Object({ name: t.String() }) }) },
        },
      )
      .put(
        "/workspaces/:id/integrations/:integration",
        async ({ params, body }) => {
          const workspace = await workspaceOr404(params.id);
          if (!/^[a-z0-9][a-z0-9_-]{0,59}$/.test(params.integration)) {
            throw validation({ integration: ["The integration name must be 1 to 60 characters of a-z, 0-9, _ and -."] });
          }
          await workspaces.setIntegration(deps.sql, workspace.id, params.integration, body.browser_fallback);
          return { integration: { name: params.integration, browser_fallback: body.browser_fallback } };
        },
        {
          params: t.Object({ id: PathId("Numeric workspace id"), integration: Text({ maxLength: 1024 }) }),
          body: t.Object({ browser_fallback: t.Boolean({ error: "The browser_fallback field must be true or false." }) }),
          detail: {
            summary: "Configure an integration",
            description: "Turns the browser conversion fallback on or off.",
            responses: documented("operator", [403, 400, 404, 422]),
          },
          response: { 200: t.Object({ integration: t.Object({ name: t.String(), browser_fallback: t.Boolean() }) }) },
        },
      )
      // Settings of every group, the five of docs/api.md "Video settings" rule 3 included: same registry, same deploy/version path.
      .post(
        "/workspaces/:id/videos/:video/draft",
        async ({ params, body }) => {
          const workspace = await workspaceOr404(params.id);
          return {
            draft: await settings.saveDraft(deps, workspace.id, videoId(params.video), settings.settingsPayload(body, "draft"), "operator"),
            version: null,
          };
        },
        {
          params: VideoParams,
          body: OperatorSettings,
          detail: {
            summary: "Save a settings draft (every group)",
            description:
              "As `POST /api/v1/videos/{video}/draft`, but every option group may be set and a list replaces the stored one whole (not by index). " +
              "404 for a video of another workspace.",
            responses: documented("operator", [403, 400, [404, "ApiError", "ModelNotFound"], 422]),
          },
          response: { 200: t.Object({ draft: t.Record(t.String(), t.Unknown()), version: t.Null() }) },
        },
      )
      .post(
        "/workspaces/:id/videos/:video/deploy",
        async ({ params, body: raw }) => {
          const workspace = await workspaceOr404(params.id);
          const { video, version } = await settings.deploy(deps, workspace.id, videoId(params.video), settings.settingsPayload(raw, "deploy"), "operator");
          return { video: toFullVideo(deps.config, video), version_id: version.id, embed_url: scriptUrl(deps.config, video.code) };
        },
        {
          params: VideoParams,
          body: OperatorSettings,
          detail: {
            summary: "Deploy settings (every group)",
            description:
              "As `POST /api/v1/videos/{video}/deploy` (merge over live, validate with the same registry, compile, push to both CDN targets, " +
              "version, drop the draft, fire `video.settings.deployed`), but every option group may be set, the five the application API drops included, " +
              "and a list replaces the stored one whole (not by index), so a row can be removed.",
            responses: documented("operator", [403, 400, [404, "ApiError", "ModelNotFound"], 422, 500]),
          },
          response: { 200: t.Object({ video: FullVideo, version_id: t.Integer(), embed_url: t.String() }) },
        },
      )
      // The dashboard's Settings lists what was declared and configured (docs/api.md has only the writes).
      .get(
        "/workspaces/:id/custom-metrics",
        async ({ params }) => ({ metrics: await workspaces.listMetrics(deps.sql, (await workspaceOr404(params.id)).id) }),
        {
          params: WorkspaceParams,
          detail: { summary: "List declared custom metrics", responses: documented("operator", [403, 404]) },
          response: { 200: t.Object({ metrics: t.Array(t.Object({ name: t.String() })) }) },
        },
      )
      .get(
        "/workspaces/:id/integrations",
        async ({ params }) => ({ integrations: await workspaces.listIntegrations(deps.sql, (await workspaceOr404(params.id)).id) }),
        {
          params: WorkspaceParams,
          detail: { summary: "List configured integrations", responses: documented("operator", [403, 404]) },
          response: { 200: t.Object({ integrations: t.Array(t.Object({ name: t.String(), browser_fallback: t.Boolean() })) }) },
        },
      )
  );
}
