/**
 * Custom events (docs/api.md "Custom events"): normalise, cap names, resolve the
 * viewer, dedup by event_id, write one `events` row through the batcher and
 * answer only once it is written. Never a conversion, never revenue.
 */
import type { Deps } from "../../deps.ts";
import { Errors, fail } from "../../errors.ts";
import { chTime, type EventRow } from "../../ingest/index.ts";
import { normaliseEventName } from "../../../contract/events.ts";
import * as viewers from "../../domains/viewers/service.ts";
import { hex, identityKeys, IDENTITY_FIELDS, normaliseEmail, type IdentityInput } from "./identity.ts";
import * as repo from "./repo.ts";
import type { Recorded } from "./state.ts";

export interface CustomEventInput extends IdentityInput {
  event: string;
  session_id?: string;
  device_id?: string;
  profile_id?: string;
  value?: number;
  event_id?: string;
  properties?: Record<string, string | number | boolean>;
  video_code?: string;
}

/**
 * A claim this old whose row is not in ClickHouse belongs to a writer that failed
 * or died: a repeat takes it over. A younger one may still be on its way.
 */
const STALE_CLAIM_MS = 30_000;

/** docs/api.md "Custom events" rule 6: at most 100 distinct names per workspace (known names cached; the cap is enforced in Postgres). */
async function ensureEventName(deps: Deps, workspaceId: number, name: string): Promise<void> {
  const state = deps.customEvents;
  if (state.names.get(workspaceId)?.has(name)) return;
  return state.nameFlights
    .run(`${workspaceId}`, () => registerName(deps, workspaceId, name))
    .then(() => {
      if (!state.names.get(workspaceId)?.has(name)) return ensureEventName(deps, workspaceId, name);
    });
}

async function registerName(deps: Deps, workspaceId: number, name: string): Promise<void> {
  const perWorkspace = deps.customEvents.names;
  let names = perWorkspace.get(workspaceId);
  if (names?.has(name)) return;
  if (!names) {
    names = new Set(await repo.listEventNames(deps.sql, workspaceId));
    perWorkspace.set(workspaceId, names);
    if (names.has(name)) return;
  }
  const { ok, inUse } = await repo.registerEventName(deps.sql, workspaceId, name);
  if (!ok) {
    throw Errors.tooManyEventNames(inUse, repo.MAX_EVENT_NAMES);
  }
  names.add(name);
}

export function normaliseName(raw: string): string {
  const name = normaliseEventName(raw);
  if (name === "") throw fail("INVALID_EVENT_NAME");
  return name;
}

/** Properties as stored: strings, identity keys removed (docs/api.md "Custom events": never stored as properties). */
export function storedProperties(properties: Record<string, string | number | boolean> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!properties) return out;
  const entries = Object.entries(properties);
  if (entries.length > 20) throw Errors.invalidPayload("properties: at most 20 keys.");
  for (const [key, value] of entries) {
    if (key.length === 0 || key.length > 40) throw Errors.invalidPayload(`properties: the key "${key.slice(0, 40)}" must be 1 to 40 characters.`);
    const text = String(value);
    if (text.length > 100) throw Errors.invalidPayload(`properties.${key}: the value must be at most 100 characters.`);
    if ((IDENTITY_FIELDS as readonly string[]).includes(key)) continue;
    out[key] = text;
  }
  return out;
}

export async function recordCustomEvent(deps: Deps, workspaceId: number, input: CustomEventInput, source: "backend" | "browser"): Promise<Recorded> {
  const event = normaliseName(input.event);
  const properties = storedProperties(input.properties);
  if (input.value !== undefined && (!Number.isFinite(input.value) || Math.abs(input.value) > 1_000_000_000)) {
    throw Errors.invalidPayload("value: must be between -1000000000 and 1000000000.");
  }
  await ensureEventName(deps, workspaceId, event);

  const identity = identityKeys(input);
  const resolution = await viewers.resolveViewer(deps, workspaceId, {
    sessionId: input.session_id,
    deviceId: input.device_id,
    profileId: input.profile_id,
    identity,
  });
  const answer = { event, attributed: resolution !== undefined, matchedBy: resolution?.matchedBy ?? null };
  const reply = (a: { event: string; attributed: boolean; matchedBy: string | null }): Omit<Recorded, "deduplicated"> => ({
    status: a.attributed ? 200 : 202,
    body: { ok: true, event: a.event, event_id: input.event_id ?? null, attributed: a.attributed, matched_by: a.matchedBy },
  });

  const pending: PendingEvent = { workspaceId, input, resolution, now: deps.clock.now(), source, properties, identity, event };
  if (input.event_id !== undefined) {
    // A repeat while the first is still being written waits for its answer (same process); otherwise Postgres decides.
    const flightKey = `${workspaceId}:${input.event_id}`;
    const { inFlight } = deps.customEvents;
    const running = inFlight.get(flightKey);
    if (running) {
      const first = await running;
      return { ...reply({ event: first.body.event, attributed: first.body.attributed, matchedBy: first.body.matched_by }), deduplicated: true };
    }
    const attempt = claimAndWrite(deps, pending, answer).then((r) => ({ ...reply(r.answer), deduplicated: r.deduplicated }));
    inFlight.set(flightKey, attempt);
    try {
      return await attempt;
    } finally {
      inFlight.delete(flightKey);
    }
  }
  await write(deps, pending);
  return { ...reply(answer), deduplicated: false };
}

/** One accepted event on its way to ClickHouse: what `write` needs, resolved once. */
interface PendingEvent {
  workspaceId: number;
  input: CustomEventInput;
  resolution: viewers.Resolution | undefined;
  now: number;
  source: "backend" | "browser";
  properties: Record<string, string>;
  identity: viewers.ViewerKey[];
  event: string;
}

type Answer = { event: string; attributed: boolean; matchedBy: string | null };

async function claimAndWrite(deps: Deps, pending: PendingEvent, answer: Answer): Promise<{ answer: Answer; deduplicated: boolean }> {
  const { workspaceId, now } = pending;
  const eventId = pending.input.event_id!;
  const claim = await deps.customEvents.claims.add({ workspaceId, eventId, answer, now });
  if (!claim.claimed) {
    const { prior } = claim;
    // A repeat is answered as the first was only once the first is written: the claim alone proves nothing.
    // Whether the claim's row reached ClickHouse is asked only for repeats, which are rare.
    if (
      prior.written ||
      (await repo.customEventWritten(deps.ch, workspaceId, eventId, chTime(prior.created_at.getTime()))) ||
      // Acknowledged while ClickHouse was away: the row waits in the spool.
      (await deps.ingest.spool.holdsEvent(workspaceId, eventId))
    ) {
      return { answer: { event: prior.event, attributed: prior.attributed, matchedBy: prior.matched_by }, deduplicated: true };
    }
    if (now - prior.created_at.getTime() < STALE_CLAIM_MS) {
      throw Errors.eventNotWritten("The first request with this event_id is still being written. Retry shortly with the same event_id.");
    }
    // Its writer is gone and nothing was written: this call records the event, unless another repeat took it over first.
    if (!(await repo.takeOverClaim(deps.sql, workspaceId, eventId, prior.created_at, answer, new Date(now)))) return claimAndWrite(deps, pending, answer);
  }
  try {
    await write(deps, pending);
  } catch (error) {
    await repo.releaseClaim(deps.sql, workspaceId, eventId, new Date(now)).catch(() => {});
    throw error;
  }
  return { answer, deduplicated: false };
}

async function write(deps: Deps, { workspaceId, input, resolution, now, source, properties, identity, event }: PendingEvent): Promise<void> {
  // Rule 4: identity on an attributed event ties the viewer to it, as an identify call does.
  if (resolution) {
    const keys = [...identity];
    if (input.device_id) keys.push({ kind: viewers.KeyKinds.device, key: input.device_id });
    if (input.profile_id) keys.push({ kind: viewers.KeyKinds.profile, key: input.profile_id });
    await viewers.linkKeys(deps, workspaceId, resolution.viewerId, keys);
  }
  const video = input.video_code ? await viewers.videoByCode(deps, workspaceId, input.video_code) : undefined;
  if (input.email !== undefined && normaliseEmail(input.email) !== "" && video) {
    const email = normaliseEmail(input.email);
    const lead = {
      email,
      emailSha256: hex("sha256", email),
      video,
      viewerId: resolution?.viewerId ?? null,
      source,
      firstName: typeof input.properties?.first_name === "string" ? input.properties.first_name : undefined,
      url: typeof input.properties?.url === "string" ? input.properties.url : undefined,
    };
    await deps.sql.begin((tx) => repo.upsertLead(tx, workspaceId, lead));
  }
  const sessionVideo = resolution?.session;
  const row: EventRow = {
    workspace_id: workspaceId,
    video_id: video?.id ?? sessionVideo?.videoId ?? 0,
    video_code: video?.code ?? sessionVideo?.videoCode ?? "",
    event_type: "custom",
    event,
    event_id: input.event_id ?? "",
    // An unattributed event carries no session identity (docs/api.md "Custom event").
    session_code: resolution ? (input.session_id ?? "") : "",
    device_id: resolution ? (input.device_id ?? "") : "",
    watch_seconds: 0,
    video_time: 0,
    value: input.value ?? null,
    // A session served a split-test variation: the event carries it (the server's record, over the sender's keys).
    properties: { ...properties, ...(source === "browser" ? { $source: "browser" } : {}), ...sessionVideo?.splitTest },
    created_at: chTime(now),
    viewer_id: resolution?.viewerId ?? 0,
  };
  await deps.ingest.events.add([row]);
}

/** Browser path (docs/api.md "Custom events", browser): the name must be declared as a custom metric. */
export async function isDeclaredMetric(deps: Deps, workspaceId: number, name: string): Promise<boolean> {
  return repo.isDeclaredMetric(deps.sql, workspaceId, name);
}

export async function sweepEventDedup(deps: Deps): Promise<number> {
  return repo.sweepEventDedup(deps.sql, new Date(deps.clock.now()));
}
