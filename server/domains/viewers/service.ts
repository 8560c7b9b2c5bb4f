/**
 * Known viewers (docs/api.md "Viewer identity"): player sessions and devices become
 * viewers in Postgres; devices, profiles, identity hashes and external ids link
 * to them. Everything read on the hot path is cached in memory per process
 * (`deps.viewers`, built by createDeps).
 * Positive answers live long (links never move); "unknown" lives 30 seconds,
 * so a session another process just created is seen soon.
 */
import type { Deps } from "../../deps.ts";
import type { Db } from "../../storage/postgres.ts";
import * as repo from "./repo.ts";
import { sessionFacts, sessionsScope } from "./events.ts";
import { furthestPercent } from "./ranges.ts";

export const KeyKinds = {
  device: "device",
  profile: "profile",
  emailSha256: "email_sha256",
  emailMd5: "email_md5",
  phoneSha256: "phone_sha256",
  phoneMd5: "phone_md5",
  externalId: "external_id",
} as const;
export type KeyKind = (typeof KeyKinds)[keyof typeof KeyKinds];

export const MatchedBy = { session: "session_id", device: "device_id", profile: "profile_id", identity: "identity" } as const;
export type MatchedBy = (typeof MatchedBy)[keyof typeof MatchedBy];

export interface ViewerKey {
  kind: KeyKind;
  key: string;
}

export interface Resolution {
  viewerId: number;
  matchedBy: MatchedBy;
  /** Set when matched by session: the video the session last played, and the split-test variation it was served. */
  session?: { videoId: number | null; videoCode: string | null; splitTest: SplitStamp | undefined };
}

/** A session's split-test variation as event rows carry it (`properties`). */
export interface SplitStamp {
  split_test_id: string;
  split_test_variation_id: string;
}

/** The variation a session was served, as event properties; `videoId` given: only when that video is the variation's own. */
export function splitStampOf(session: repo.SessionRow | undefined, videoId?: number): SplitStamp | undefined {
  if (!session || session.split_test_id === null || session.split_test_variation_id === null) return undefined;
  if (videoId !== undefined && session.split_test_video_id !== videoId) return undefined;
  return { split_test_id: String(session.split_test_id), split_test_variation_id: String(session.split_test_variation_id) };
}

const HIT_TTL = 10 * 60_000;
const MISS_TTL = 30_000;
const MISS = -1;

export async function workspaceIdByCode(deps: Deps, code: string): Promise<number | undefined> {
  const c = deps.viewers.workspaces;
  const hit = c.get(code);
  if (hit !== undefined) return hit === MISS ? undefined : hit;
  const id = (await deps.viewers.lookups.run(`w:${code}`, () => repo.findWorkspaceIdByCode(deps.sql, code))) as number | undefined;
  c.set(code, id ?? MISS, id === undefined ? MISS_TTL : HIT_TTL);
  return id;
}

/** A video of this workspace by code; cached a minute (a deleted video stops resolving soon after). */
export async function videoByCode(deps: Deps, workspaceId: number, code: string): Promise<{ id: number; code: string } | undefined> {
  const c = deps.viewers.videos;
  const cacheKey = `${workspaceId}:${code}`;
  const hit = c.get(cacheKey);
  if (hit !== undefined) return hit ?? undefined;
  const video = (await deps.viewers.lookups.run(`v:${cacheKey}`, () => repo.findVideoByCode(deps.sql, workspaceId, code))) as
    | { id: number; code: string }
    | undefined;
  c.set(cacheKey, video ?? null, video ? 60_000 : MISS_TTL);
  return video;
}

export async function findSession(deps: Deps, workspaceId: number, sessionCode: string): Promise<repo.SessionRow | undefined> {
  const c = deps.viewers.sessions;
  const cacheKey = `${workspaceId}:${sessionCode}`;
  const hit = c.get(cacheKey);
  if (hit !== undefined) return hit ?? undefined;
  const row = (await deps.viewers.lookups.run(`s:${cacheKey}`, () => repo.findSession(deps.sql, workspaceId, sessionCode))) as repo.SessionRow | undefined;
  c.set(cacheKey, row ?? null, row ? HIT_TTL : MISS_TTL);
  return row;
}

async function findKey(deps: Deps, workspaceId: number, kind: string, key: string): Promise<number | undefined> {
  const c = deps.viewers.keys;
  const cacheKey = `${workspaceId}:${kind}:${key}`;
  const hit = c.get(cacheKey);
  if (hit !== undefined) return hit === MISS ? undefined : hit;
  const viewerId = (await deps.viewers.lookups.run(`k:${cacheKey}`, () => repo.findKey(deps.sql, workspaceId, kind, key))) as number | undefined;
  c.set(cacheKey, viewerId ?? MISS, viewerId === undefined ? MISS_TTL : HIT_TTL);
  return viewerId;
}

/**
 * Makes a player session (and its device) known, pointing at the video it plays;
 * `split` sets (or, null, clears) the split-test variation it is served. Cheap when
 * nothing changed: the cache already says so. Returns the session as stored.
 */
export async function touchSession(
  deps: Deps,
  workspaceId: number,
  s: { sessionCode: string; deviceId?: string; profileId?: string; video: { id: number; code: string }; split?: repo.SplitAssignment | null },
): Promise<repo.SessionRow> {
  const c = deps.viewers;
  const cacheKey = `${workspaceId}:${s.sessionCode}`;
  const known = c.sessions.get(cacheKey);
  let session: repo.SessionRow;
  if (known && s.split === undefined && known.video_id === s.video.id && (known.device_id ?? undefined) === s.deviceId) {
    session = known;
  } else {
    const split = s.split === undefined ? "" : `:${s.split?.variationId ?? "none"}`;
    session = (await deps.viewers.writes.run(`s:${cacheKey}:${s.video.id}${split}`, () =>
      repo.upsertSession(deps.sql, workspaceId, {
        sessionCode: s.sessionCode,
        deviceId: s.deviceId ?? null,
        videoId: s.video.id,
        videoCode: s.video.code,
        split: s.split,
        now: new Date(deps.clock.now()),
      }),
    )) as repo.SessionRow;
    c.sessions.set(cacheKey, session, HIT_TTL);
  }
  const keys: ViewerKey[] = [];
  if (s.deviceId) keys.push({ kind: KeyKinds.device, key: s.deviceId });
  if (s.profileId) keys.push({ kind: KeyKinds.profile, key: s.profileId });
  await linkKeys(deps, workspaceId, session.viewer_id, keys);
  return session;
}

/** Links keys not yet known to this viewer (an identify). Keys already linked elsewhere stay put. */
export async function linkKeys(deps: Deps, workspaceId: number, viewerId: number, keys: ViewerKey[]): Promise<void> {
  const c = deps.viewers.keys;
  const fresh = keys.filter((k) => c.get(`${workspaceId}:${k.kind}:${k.key}`) === undefined || c.get(`${workspaceId}:${k.kind}:${k.key}`) === MISS);
  if (fresh.length === 0) return;
  await deps.viewers.writes.run(`k:${workspaceId}:${viewerId}:${fresh.map((k) => `${k.kind}=${k.key}`).join("|")}`, () =>
    repo.linkKeys(deps.sql, workspaceId, viewerId, fresh),
  );
  // Re-read so the cache holds the viewer that actually owns each key.
  for (const k of fresh) {
    c.delete(`${workspaceId}:${k.kind}:${k.key}`);
    await findKey(deps, workspaceId, k.kind, k.key);
  }
}

/**
 * A session tells who it is (a lead form's email): its viewer takes the
 * identity keys that are new; when the identity already belongs to another
 * viewer, the session and its device move to that viewer, so the session's
 * later events and sales attribute to the identity. Returns the viewer the
 * session belongs to now.
 */
export async function identifySession(
  deps: Deps,
  workspaceId: number,
  session: { sessionCode: string; deviceId?: string; viewerId: number },
  identity: ViewerKey[],
): Promise<number> {
  if (identity.length === 0) return session.viewerId;
  await linkKeys(deps, workspaceId, session.viewerId, identity);
  const owner = (await findKey(deps, workspaceId, identity[0]!.kind, identity[0]!.key)) ?? session.viewerId;
  if (owner === session.viewerId) return owner;
  await repo.moveSession(deps.sql, workspaceId, session.sessionCode, session.deviceId ?? null, owner);
  deps.viewers.sessions.delete(`${workspaceId}:${session.sessionCode}`);
  if (session.deviceId) deps.viewers.keys.delete(`${workspaceId}:${KeyKinds.device}:${session.deviceId}`);
  return owner;
}

/**
 * docs/api.md "Custom events" rule 1: session_id, then device_id, then profile_id,
 * then identity (email / phone hashes, external_id); the first that resolves wins.
 */
export async function resolveViewer(
  deps: Deps,
  workspaceId: number,
  by: { sessionId?: string; deviceId?: string; profileId?: string; identity: ViewerKey[] },
): Promise<Resolution | undefined> {
  if (by.sessionId) {
    const session = await findSession(deps, workspaceId, by.sessionId);
    if (session)
      return {
        viewerId: session.viewer_id,
        matchedBy: MatchedBy.session,
        session: { videoId: session.video_id, videoCode: session.video_code, splitTest: splitStampOf(session) },
      };
  }
  if (by.deviceId) {
    const viewerId = await findKey(deps, workspaceId, KeyKinds.device, by.deviceId);
    if (viewerId !== undefined) return { viewerId, matchedBy: MatchedBy.device };
  }
  if (by.profileId) {
    const viewerId = await findKey(deps, workspaceId, KeyKinds.profile, by.profileId);
    if (viewerId !== undefined) return { viewerId, matchedBy: MatchedBy.profile };
  }
  for (const k of by.identity) {
    const viewerId = await findKey(deps, workspaceId, k.kind, k.key);
    if (viewerId !== undefined) return { viewerId, matchedBy: MatchedBy.identity };
  }
  return undefined;
}

/** True only for the session's first play (it emits `video.viewed`). Pass a transaction to commit it with the outbox rows. */
export async function markFirstPlay(sql: Db, workspaceId: number, sessionCode: string): Promise<boolean> {
  return repo.markFirstPlay(sql, workspaceId, sessionCode);
}

const MILESTONE_BITS: Record<number, number> = { 25: 1, 50: 2, 75: 4, 100: 8 };

/** True only the first time the session reports this milestone (it emits `play.milestone` once). */
export async function markMilestone(sql: Db, workspaceId: number, sessionCode: string, percent: number): Promise<boolean> {
  const bit = MILESTONE_BITS[percent];
  return bit === undefined || repo.markMilestone(sql, workspaceId, sessionCode, bit);
}

/**
 * Erases a viewer's identity and sessions from PostgreSQL (repo.eraseViewer) and drops
 * what this process cached of them; other processes' caches lapse (HIT_TTL).
 */
export async function eraseViewer(
  deps: Deps,
  workspaceId: number,
  viewerId: number,
  footprint: { sessionCodes: string[]; keys: { kind: string; key: string }[] },
): Promise<void> {
  await repo.eraseViewer(deps.sql, workspaceId, viewerId, footprint.sessionCodes);
  for (const code of footprint.sessionCodes) deps.viewers.sessions.delete(`${workspaceId}:${code}`);
  for (const k of footprint.keys) deps.viewers.keys.delete(`${workspaceId}:${k.kind}:${k.key}`);
}

/** How far into the video the viewer got across all their sessions of it, 0 to 100 (a lead's `watch_percent`). */
export async function watchPercent(deps: Deps, workspaceId: number, viewerId: number, videoId: number): Promise<number> {
  const sessions = await repo.sessionsOf(deps.sql, workspaceId, videoId, [viewerId]);
  if (sessions.length === 0) return 0;
  const facts = await sessionFacts(deps.ch, sessionsScope(workspaceId, videoId, sessions));
  const furthest = Math.max(0, ...facts.map((f) => Number(f.furthest_s)));
  const duration = Math.max(0, ...facts.map((f) => Number(f.duration_s)));
  return furthestPercent(furthest, duration || furthest);
}
