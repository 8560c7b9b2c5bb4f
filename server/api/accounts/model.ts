/** The wire form of accounts (README "The dashboard"). */
import { t } from "elysia";
import { Text } from "../../http/schemas.ts";
import { ALL_ROLES } from "../../../contract/roles.ts";

export const Email = Text({ minLength: 3, maxLength: 254, error: "Enter an email address of at most 254 characters." });
// Its rules (passwords.ts) answer 422 beside the field; this only bounds what is read.
export const Password = Text({ minLength: 1, maxLength: 1024, error: "Enter a password." });
export const RoleName = t.Union([t.Literal("owner"), t.Literal("editor"), t.Literal("analyst")], {
  error: `The role must be one of ${ALL_ROLES.join(", ")}.`,
});

export const User = t.Object({ id: t.Integer(), email: t.String() });
export const SignedIn = t.Object({ user: User, csrf_token: t.String({ description: "Send it as X-CSRF-Token on every call that changes something." }) });
export const Me = t.Object({
  user: User,
  csrf_token: t.String(),
  two_factor: t.Boolean({ description: "Two-factor sign-in is on." }),
  workspaces: t.Array(t.Object({ id: t.Integer(), code: t.String(), name: t.String(), created_at: t.String({ format: "date-time" }), role: RoleName })),
});
export const Member = t.Object({ user_id: t.Integer(), email: t.String(), role: RoleName, created_at: t.String({ format: "date-time" }) });
export const Invite = t.Object({
  id: t.Integer(),
  email: t.String(),
  role: RoleName,
  expires_at: t.String({ format: "date-time" }),
  created_at: t.String({ format: "date-time" }),
});
export const Team = t.Object({ members: t.Array(Member), invites: t.Array(Invite) });
export const InviteCreated = t.Object({
  invite: Invite,
  url: t.String({ description: "The link to send; it holds the invite's secret, shown only now." }),
  emailed: t.Boolean({ description: "SMTP_URL is set and the SMTP server took the mail with the link." }),
});
export const AuditEntry = t.Object({
  id: t.Integer(),
  actor: t.String(),
  action: t.String(),
  detail: t.Record(t.String(), t.Unknown()),
  created_at: t.String({ format: "date-time" }),
});
export const SessionToken = t.Object({
  token: t.Object({
    id: t.Integer(),
    name: t.String(),
    scopes: t.Array(t.String()),
    expires_at: t.Nullable(t.String({ format: "date-time" })),
    created_at: t.String({ format: "date-time" }),
  }),
  secret: t.String(),
  role: RoleName,
});
