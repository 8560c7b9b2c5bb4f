/**
 * The roles of a workspace member (README "The dashboard"): what each may do is a
 * set of the token scopes of contract/scopes.ts, plus, for owners, the team,
 * the workspace's tokens, metrics and integrations. Shared by the server and the dashboard.
 */
import { ALL_SCOPES, type Scope } from "./scopes.ts";

export const Roles = {
  owner: { rank: 3, scopes: ALL_SCOPES, may: "everything: the team, invites, tokens, metrics, integrations, the audit list, videos and analytics" },
  editor: {
    rank: 2,
    scopes: ["videos:read", "videos:write", "analytics:read", "webhooks:write"] as Scope[],
    may: "upload, edit and deploy videos, manage webhooks, read analytics",
  },
  analyst: { rank: 1, scopes: ["videos:read", "analytics:read"] as Scope[], may: "read videos and analytics" },
} as const satisfies Record<string, { rank: number; scopes: readonly Scope[]; may: string }>;

export type Role = keyof typeof Roles;
export const ALL_ROLES = Object.keys(Roles) as Role[];

export function isRole(value: string): value is Role {
  return Object.hasOwn(Roles, value);
}

/** True when `role` may do what `needed` may. */
export const atLeast = (role: Role, needed: Role): boolean => Roles[role].rank >= Roles[needed].rank;
