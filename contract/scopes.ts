/** The token scopes (docs/api.md "Authentication"): what each grants, shared by the server and the dashboard. */
export const Scopes = {
  "events:write": { kind: "write", grants: "send custom events" },
  "conversions:write": { kind: "write", grants: "send sales" },
  "conversions:read": { kind: "read", grants: "read recorded conversions" },
  "analytics:read": { kind: "read", grants: "analytics reads and exports" },
  "videos:read": { kind: "read", grants: "list and read videos, folders, playlists, status" },
  "videos:write": {
    kind: "write",
    grants: "create, update, delete videos; uploads; settings draft, deploy, restore, deploy list; playlist writes; folder creation",
  },
  "webhooks:write": { kind: "write", grants: "webhook subscriptions and automation hooks" },
  "integrations:read": { kind: "read", grants: "integration configuration" },
  "workspace:read": { kind: "read", grants: "workspace details" },
} as const;

export type Scope = keyof typeof Scopes;
export const ALL_SCOPES = Object.keys(Scopes) as Scope[];

export function isScope(value: string): value is Scope {
  return Object.hasOwn(Scopes, value);
}
