/**
 * What the dashboard remembers. A signed-in account's email and CSRF token (its
 * session is an HttpOnly cookie the page cannot read), or an operator's admin
 * key, and the dashboard's own API token live in sessionStorage (gone when the
 * tab closes, never in a URL); only unfinished uploads go to localStorage, so a
 * reload can resume them.
 */
import type { Workspace as WorkspaceRow } from "../contract/api.ts";
import { atLeast, type Role } from "../contract/roles.ts";

/** A workspace as chosen: with the member's role when an account chose it (an operator may do everything). */
export type Workspace = WorkspaceRow & { role?: Role };

export interface Account {
  email: string;
  csrf: string;
}

export interface SessionToken {
  id: number;
  secret: string;
  expires_at: string | null;
}

const ADMIN_KEY = "fl.admin_key";
const ACCOUNT = "fl.account";
const SIGNED_IN = "fl.signed_in";
const WORKSPACE = "fl.workspace";
const tokenKey = (workspaceId: number) => `fl.session_token.${workspaceId}`;

function read<T>(storage: Storage, key: string): T | undefined {
  try {
    const raw = storage.getItem(key);
    return raw ? (JSON.parse(raw) as T) : undefined;
  } catch {
    return undefined;
  }
}

export const adminKey = () => sessionStorage.getItem(ADMIN_KEY) || "";
export const setAdminKey = (key: string) => sessionStorage.setItem(ADMIN_KEY, key);

export const account = () => read<Account>(sessionStorage, ACCOUNT);
export const setAccount = (a: Account) => {
  sessionStorage.setItem(ACCOUNT, JSON.stringify(a));
  localStorage.setItem(SIGNED_IN, "1");
};
/** This browser signed in and has not signed out: a new tab may find its session cookie still good. */
export const maybeSignedIn = () => localStorage.getItem(SIGNED_IN) === "1";
export const signedIn = () => Boolean(adminKey() || account());

/** True when the chosen workspace's role may do what `needed` may. */
export const can = (needed: Role) => atLeast(workspace()?.role ?? "owner", needed);

export const workspace = () => read<Workspace>(sessionStorage, WORKSPACE);
export const setWorkspace = (w: Workspace) => sessionStorage.setItem(WORKSPACE, JSON.stringify(w));

export const sessionToken = (workspaceId: number) => read<SessionToken>(sessionStorage, tokenKey(workspaceId));
export const setSessionToken = (workspaceId: number, t: SessionToken) => sessionStorage.setItem(tokenKey(workspaceId), JSON.stringify(t));
export const clearSessionToken = (workspaceId: number) => sessionStorage.removeItem(tokenKey(workspaceId));

/** Every dashboard token minted in this tab (revoked on sign-out). */
export function allSessionTokens(): SessionToken[] {
  const out: SessionToken[] = [];
  for (let i = 0; i < sessionStorage.length; i++) {
    const key = sessionStorage.key(i);
    if (key?.startsWith("fl.session_token.")) {
      const t = read<SessionToken>(sessionStorage, key);
      if (t) out.push(t);
    }
  }
  return out;
}

export const clearSession = () => {
  sessionStorage.clear();
  localStorage.removeItem(SIGNED_IN);
};

/** An unfinished resumable upload, keyed by the file's fingerprint. */
export interface PendingUpload {
  upload_id: string;
  video_id: number;
  orientation: string;
  name: string;
  size: number;
}

const UPLOAD_PREFIX = "fl.upload.";

export const pendingUpload = (fingerprint: string) => read<PendingUpload>(localStorage, UPLOAD_PREFIX + fingerprint);
export const setPendingUpload = (fingerprint: string, u: PendingUpload) => localStorage.setItem(UPLOAD_PREFIX + fingerprint, JSON.stringify(u));
export const clearPendingUpload = (fingerprint: string) => localStorage.removeItem(UPLOAD_PREFIX + fingerprint);

export function pendingUploadsFor(videoId: number): PendingUpload[] {
  const out: PendingUpload[] = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (!key?.startsWith(UPLOAD_PREFIX)) continue;
    const u = read<PendingUpload>(localStorage, key);
    if (u && u.video_id === videoId) out.push(u);
  }
  return out;
}
