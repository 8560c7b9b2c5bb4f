/**
 * The dashboard's accounts under /account/v1 (README "The dashboard"): sign-in with
 * email and password into a cookie session, sign-out, the member's workspaces and
 * their role, the API token a session uses for the application API, the team,
 * invites by link and the audit list.
 */
import { t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { Errors } from "../../errors.ts";
import { parseId } from "../../http/params.ts";
import { PathId, Text } from "../../http/schemas.ts";
import { documented } from "../../http/openapi-docs.ts";
import { clientIp, type SocketInfo } from "../../hosts/events/http.ts";
import * as accounts from "../../domains/accounts/service.ts";
import { toToken } from "../../domains/workspaces/service.ts";
import { requireSession, sessionCookie, sessionSetCookie } from "./session.ts";
import { mailInvite } from "./invite-mail.ts";
import { AuditEntry, Email, InviteCreated, Me, Password, RoleName, SessionToken, SignedIn, Team } from "./model.ts";

const WorkspaceParams = t.Object({ id: PathId("Numeric workspace id") });
const session = [{ sessionCookie: [] }];
const iso = (d: Date) => d.toISOString();
const toInvite = (r: accounts.InviteRow) => ({ id: r.id, email: r.email, role: r.role, expires_at: iso(r.expires_at), created_at: iso(r.created_at) });

export function accountsModule(deps: Deps) {
  const workspaceId = (raw: string) => {
    const id = parseId(raw);
    if (id === undefined) throw Errors.notFound("Workspace not found.");
    return id;
  };
  /** Who is signing in: the client's address (for the back-off) and the session it came with (ended by the new one). */
  const clientOf = (request: Request, server: unknown) => ({
    ip: clientIp(deps, request, server as SocketInfo | null),
    previous: sessionCookie(request.headers),
  });
  const signedIn = async (set: { headers: Record<string, string | number> }, pending: Promise<accounts.SignedIn>) => {
    const done = await pending;
    set.headers["Set-Cookie"] = sessionSetCookie(deps.config, done.cookie);
    return { user: done.user, csrf_token: done.csrf };
  };

  return (
    createModule("accounts", { tag: "Accounts", prefix: "/account/v1" })
      .post("/sign-in", ({ body, request, server, set }) => signedIn(set, accounts.signIn(deps, { ...body, ...clientOf(request, server) })), {
        body: t.Object({
          email: Email,
          password: Password,
          code: t.Optional(Text({ maxLength: 64, error: "The code must be the 6 digits of the authenticator app or a recovery code." })),
        }),
        detail: {
          summary: "Sign in",
          description:
            "Sets the `fl_session` cookie (HttpOnly, SameSite=Lax, Secure over https) of a new session, ending the one the client came with, " +
            "and answers its CSRF token. 401 INVALID_CREDENTIALS; an account with two-factor sign-in also sends `code` (the app's 6 digits, " +
            "each good once, or a recovery code), else 401 TWO_FACTOR_REQUIRED; after 4 failures from one address on one account, 429 RATE_LIMITED for 30 s, " +
            "doubling with each failure up to 15 minutes (other addresses are not affected); 30 attempts a minute per address.",
          security: [],
          responses: documented("account", [400, 401, 422, 429]),
        },
        response: { 200: SignedIn },
      })
      .post("/invites/accept", ({ body, request, server, set }) => signedIn(set, accounts.acceptInvite(deps, { ...body, ...clientOf(request, server) })), {
        body: t.Object({ token: Text({ minLength: 1, maxLength: 128, error: "Send the invite's token." }), password: Password }),
        detail: {
          summary: "Accept an invite",
          description:
            "Joins the invite's workspace with its role and signs in. A new account is created with `password` (422 beside the field when it breaks " +
            "the password rules); an existing one gives its own password. 404 for a link unknown, used or expired (7 days).",
          security: [],
          responses: documented("account", [400, 401, 404, 422, 429]),
        },
        response: { 200: SignedIn },
      })
      // Every route below needs the session; those that change something, its X-CSRF-Token.
      .guard(
        { transform: async (context) => void ((context as unknown as { session: accounts.SessionRow }).session = await requireSession(deps, context.request)) },
        (app) =>
          app
            .decorate("session", undefined as unknown as accounts.SessionRow)
            .get(
              "/me",
              async ({ session: s }) => ({
                user: { id: s.user_id, email: s.email },
                csrf_token: s.csrf_token,
                two_factor: s.totp_enabled,
                workspaces: (await accounts.listMemberships(deps.sql, s.user_id)).map((w) => ({
                  id: w.id,
                  code: w.code,
                  name: w.name,
                  created_at: iso(w.created_at),
                  role: w.role,
                })),
              }),
              {
                detail: {
                  summary: "The signed-in user",
                  description: "With the CSRF token and each workspace the user is a member of, with the role.",
                  security: session,
                  responses: documented("account", []),
                },
                response: { 200: Me },
              },
            )
            .post(
              "/sign-out",
              async ({ session: s, set }) => {
                await accounts.signOut(deps, s);
                set.headers["Set-Cookie"] = sessionSetCookie(deps.config, undefined);
                return { signed_out: true };
              },
              {
                detail: {
                  summary: "Sign out",
                  description: "Ends this session and revokes the API tokens it minted.",
                  security: session,
                  responses: documented("account", [403]),
                },
                response: { 200: t.Object({ signed_out: t.Boolean() }) },
              },
            )
            .post(
              "/sign-out-everywhere",
              async ({ session: s, set }) => {
                const sessions = await accounts.signOutEverywhere(deps, s);
                set.headers["Set-Cookie"] = sessionSetCookie(deps.config, undefined);
                return { signed_out: true, sessions };
              },
              {
                detail: {
                  summary: "Sign out everywhere",
                  description: "Ends every session of the user, on every device, and revokes the API tokens they minted.",
                  security: session,
                  responses: documented("account", [403]),
                },
                response: { 200: t.Object({ signed_out: t.Boolean(), sessions: t.Integer() }) },
              },
            )
            .post("/two-factor/setup", ({ session: s }) => accounts.setUpTwoFactor(deps, s), {
              detail: {
                summary: "Set up two-factor sign-in",
                description:
                  "A new TOTP secret (RFC 6238: SHA-1, 30 s, 6 digits) for an authenticator app, as base32 and as an `otpauth://` URI; " +
                  "two-factor stays off until `enable` confirms a first code. 422 when it is already on.",
                security: session,
                responses: documented("account", [403, 422]),
              },
              response: { 200: t.Object({ secret: t.String(), otpauth_url: t.String() }) },
            })
            .post(
              "/two-factor/enable",
              async ({ session: s, body }) => ({ enabled: true, recovery_codes: await accounts.enableTwoFactor(deps, s, body.code) }),
              {
                body: t.Object({ code: Text({ minLength: 1, maxLength: 64, error: "Send the 6-digit code the app shows." }) }),
                detail: {
                  summary: "Turn two-factor sign-in on",
                  description: "With a code of the secret from `setup`; answers ten recovery codes, each good once, shown only now. 422 for a wrong code.",
                  security: session,
                  responses: documented("account", [400, 403, 422]),
                },
                response: { 200: t.Object({ enabled: t.Boolean(), recovery_codes: t.Array(t.String()) }) },
              },
            )
            .post(
              "/two-factor/disable",
              async ({ session: s, body }) => {
                await accounts.disableTwoFactor(deps, s, body.password);
                return { enabled: false };
              },
              {
                body: t.Object({ password: Password }),
                detail: {
                  summary: "Turn two-factor sign-in off",
                  description: "The account's password confirms it (422 beside `password` when wrong); the secret and recovery codes are forgotten.",
                  security: session,
                  responses: documented("account", [400, 403, 422]),
                },
                response: { 200: t.Object({ enabled: t.Boolean() }) },
              },
            )
            .post(
              "/workspaces/:id/api-token",
              async ({ session: s, params, set }) => {
                const { token, secret, role } = await accounts.mintSessionToken(deps, s, workspaceId(params.id));
                set.status = 201;
                return { token: toToken(token), secret, role };
              },
              {
                params: WorkspaceParams,
                detail: {
                  summary: "Mint the dashboard's API token",
                  description:
                    "A token for the application API that expires in a day, with the scopes of the member's role (owner: all; editor: videos:read, " +
                    "videos:write, analytics:read, webhooks:write; analyst: videos:read, analytics:read); revoked when the session ends. " +
                    "404 for a workspace the user is not a member of.",
                  security: session,
                  responses: documented("account", [403, 404]),
                },
                response: { 201: SessionToken },
              },
            )
            .get(
              "/workspaces/:id/members",
              async ({ session: s, params }) => {
                const id = workspaceId(params.id);
                await accounts.requireRole(deps, s, id, "owner");
                const [members, invites] = await Promise.all([accounts.listMembers(deps.sql, id), accounts.listOpenInvites(deps, id)]);
                return {
                  members: members.map((m) => ({ user_id: m.user_id, email: m.email, role: m.role, created_at: iso(m.created_at) })),
                  invites: invites.map(toInvite),
                };
              },
              {
                params: WorkspaceParams,
                detail: {
                  summary: "The team",
                  description: "Members with their role, and open invites. Owners only.",
                  security: session,
                  responses: documented("account", [403, 404]),
                },
                response: { 200: Team },
              },
            )
            .post(
              "/workspaces/:id/invites",
              async ({ session: s, params, body, set }) => {
                const { invite, token } = await accounts.invite(deps, s, workspaceId(params.id), body);
                const url = `${deps.config.publicUrl}/dashboard/join#${token}`;
                set.status = 201;
                return { invite: toInvite(invite), url, emailed: await mailInvite(deps, s.email, invite.email, url) };
              },
              {
                params: WorkspaceParams,
                body: t.Object({ email: Email, role: RoleName }),
                detail: {
                  summary: "Invite a member",
                  description:
                    "Answers the invite link once, to copy and send; it is good for 7 days and one use. With SMTP_URL set it is also mailed " +
                    "(`emailed` says whether the server took it). Owners only.",
                  security: session,
                  responses: documented("account", [400, 403, 404, 422]),
                },
                response: { 201: InviteCreated },
              },
            )
            .delete(
              "/workspaces/:id/members/:user",
              async ({ session: s, params }) => {
                const user = parseId(params.user);
                if (user === undefined) throw Errors.notFound("No such member in this workspace.");
                await accounts.removeMember(deps, s, workspaceId(params.id), user);
                return { removed: true };
              },
              {
                params: t.Object({ id: PathId("Numeric workspace id"), user: PathId("Numeric user id") }),
                detail: {
                  summary: "Remove a member",
                  description: "Revokes the API tokens their sessions minted in this workspace at once. The last owner cannot be removed (422). Owners only.",
                  security: session,
                  responses: documented("account", [403, 404, 422]),
                },
                response: { 200: t.Object({ removed: t.Boolean() }) },
              },
            )
            .get(
              "/workspaces/:id/audit",
              async ({ session: s, params }) => {
                const id = workspaceId(params.id);
                await accounts.requireRole(deps, s, id, "owner");
                return { entries: (await accounts.listAudit(deps.sql, id, 200)).map((e) => ({ ...e, created_at: iso(e.created_at) })) };
              },
              {
                params: WorkspaceParams,
                detail: {
                  summary: "The audit list",
                  description: "The latest 200 sign-ins of the members and changes to the workspace, newest first. Owners only.",
                  security: session,
                  responses: documented("account", [403, 404]),
                },
                response: { 200: t.Object({ entries: t.Array(AuditEntry) }) },
              },
            ),
      )
  );
}
