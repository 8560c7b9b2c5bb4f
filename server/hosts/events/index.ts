/**
 * The events host (docs/api.md "Custom events"; docs/api.md): `POST /v1/event`
 * (backend, token), `POST /v1/track` (browser, declared names only),
 * `POST /v1/collect` (the player's batches). Errors use `{error: CODE, message}`.
 */
import { type Static, t } from "elysia";
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { ApiError, Errors, REFUSED_VALUE } from "../../errors.ts";
import { credentialOf } from "../../http/auth.ts";
import { documented } from "../../http/openapi-docs.ts";
import { Text } from "../../http/schemas.ts";
import { countAccepted } from "../../ingest/outcomes.ts";
import { storageFailure } from "../../storage/postgres.ts";
import * as viewers from "../../domains/viewers/service.ts";
import { collect } from "./collect.ts";
import { leadStatus } from "./leads.ts";
import { courseProgress, resumePosition } from "./course.ts";
import { browserPreflight, CORS_HEADERS } from "../../http/cors.ts";
import { authorizeEvents, browserRoute, clientIp, limit, perMinute, parseTextJson, rejectUnknownFields, type SocketInfo } from "./http.ts";
import { CollectBody, CustomEventBody, CustomEventReply, TrackBody } from "./model.ts";
import { isDeclaredMetric, normaliseName, recordCustomEvent } from "./service.ts";

/** Anything that is not already a spec error is a write that did not happen: 500 WRITE_FAILED, retry with the same event_id. */
function writeFailed(deps: Deps, error: unknown): unknown {
  if (error instanceof ApiError) return error;
  // A value the database refused as malformed is the client's mistake, not a write to retry (a backstop: edges check every value).
  if (storageFailure(error) === "invalidData") return Errors.invalidPayload(REFUSED_VALUE);
  deps.log.error("event write failed", { error: error instanceof Error ? error.message : String(error) });
  return Errors.eventNotWritten();
}

/** Runs an event write, answering any failure as writeFailed does. */
async function writeOrFail<T>(deps: Deps, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    throw writeFailed(deps, error);
  }
}

export function eventsModule(deps: Deps) {
  const { eventLimits } = deps.config;
  const workspaceRule = perMinute("events", eventLimits.perWorkspacePerMinute);
  const ipRule = perMinute("events_ip", eventLimits.perIpPerMinute);
  const collectRule = perMinute("collect_ip", eventLimits.perIpPerMinute * 10);
  /** A read the player makes from the viewer's browser (no token): CORS on the answer, the per-IP limit of /v1/collect before any lookup. */
  const browserRead =
    <T>(answer: (query: Static<typeof ViewerQuery>) => Promise<T>) =>
    async ({
      query,
      request,
      server,
      set,
    }: {
      query: Static<typeof ViewerQuery>;
      request: Request;
      server: unknown;
      set: { headers: Record<string, unknown> };
    }) => {
      Object.assign(set.headers, CORS_HEADERS);
      await limit(deps, [{ key: `ip:${clientIp(deps, request, server as SocketInfo | null)}`, rule: collectRule }]);
      return answer(query);
    };

  return createModule("events", { tag: "Events host" })
    .post(
      "/v1/event",
      ({ body, request, set, server }) =>
        writeOrFail(deps, async () => {
          const auth = await authorizeEvents(deps, credentialOf(request.headers), "events:write");
          const limited = limit(deps, [
            { key: `w${auth.workspaceId}`, rule: workspaceRule },
            { key: `ip:${clientIp(deps, request, server as SocketInfo | null)}`, rule: ipRule },
          ]);
          if (limited) await limited;
          const recorded = await recordCustomEvent(deps, auth.workspaceId, body, "backend");
          countAccepted(deps, "/v1/event", recorded.deduplicated);
          set.status = recorded.status;
          return recorded.body;
        }),
      {
        // Listing the parsers also lets the OpenAPI description show the JSON body.
        parse: [parseTextJson, "json" as const],
        transform: rejectUnknownFields(CustomEventBody),
        body: CustomEventBody,
        detail: {
          summary: "Send a custom event",
          description:
            "Scope `events:write`. 200 when a viewer resolved (session_id, device_id, profile_id, then identity), 202 when not (recorded unattributed, do not retry). " +
            "Raw email/phone are hashed on arrival. `event_id` deduplicates for 24 h. Unknown fields: 400 INVALID_PAYLOAD. Never a conversion.",
          // Documented, not validated at run time: this is the hottest write.
          responses: documented("events", [422, 500], { 200: CustomEventReply, 202: CustomEventReply }),
        },
      },
    )
    .options("/v1/track", browserPreflight, { detail: { hide: true } })
    .post(
      "/v1/track",
      ({ body, request, set, server }) =>
        writeOrFail(deps, async () => {
          const workspaceId = await viewers.workspaceIdByCode(deps, body.workspace_code);
          if (workspaceId === undefined) throw Errors.workspaceNotFound();
          await limit(deps, [
            { key: `w${workspaceId}`, rule: workspaceRule },
            { key: `ip:${clientIp(deps, request, server as SocketInfo | null)}`, rule: ipRule },
          ]);
          const name = normaliseName(body.event);
          if (!(await isDeclaredMetric(deps, workspaceId, name))) throw Errors.eventNotDeclared(name);
          const { workspace_code: _, ...input } = body;
          const recorded = await recordCustomEvent(deps, workspaceId, input, "browser");
          countAccepted(deps, "/v1/track", recorded.deduplicated);
          set.status = recorded.status;
          return recorded.body;
        }),
      {
        ...browserRoute(TrackBody),
        detail: {
          summary: "Send a browser custom event (no token)",
          description:
            "Used by the tracker script. The name must first be declared as a custom metric (POST /admin/v1/workspaces/{id}/custom-metrics); " +
            "an undeclared name is 422 EVENT_NOT_DECLARED. Raw email and phone are not accepted here: the page sends their hashes. " +
            "Same answer as POST /v1/event. CORS-enabled; `text/plain` bodies accepted (sendBeacon).",
          security: [],
          responses: documented("browser", [404, 422, 500]),
        },
        response: { 200: CustomEventReply, 202: CustomEventReply },
      },
    )
    .options("/v1/collect", browserPreflight, { detail: { hide: true } })
    .post(
      "/v1/collect",
      ({ body, request, server }) =>
        writeOrFail(deps, async () => {
          const ip = clientIp(deps, request, server as SocketInfo | null);
          await limit(deps, [{ key: `ip:${ip}`, rule: collectRule }]);
          const written = await collect(deps, body, { userAgent: request.headers.get("user-agent"), ip });
          countAccepted(deps, "/v1/collect");
          return { ok: true, ...written };
        }),
      {
        ...browserRoute(CollectBody),
        detail: {
          summary: "Player beacons (no token)",
          description:
            "The player's batches: up to 200 events of one session on one video, each `{type, t (ms epoch), video_time, ...fields}`. Types: " +
            "load (the player was shown on a page, once per page view: an impression; carries the page's `page_host` and `page_path` and the " +
            "session's landing `referrer_host` and `utm_source`/`utm_medium`/`utm_campaign`/`utm_term`/`utm_content`), autoplay (a muted autoplay " +
            "started: not a play), unmute (the viewer unmuted an autoplay: a play), play (the viewer started playback), pause, " +
            "seek (`from`, `to`), ended, watched (`from_s`, `to_s`: a stretch actually watched; stored as event_type `watched` with video_time = from_s and " +
            "watch_seconds = to_s - from_s; `heartbeat` with `ranges: [{from_s, to_s}]` is the same, one row per range), milestone (`percent` 25/50/75/100), " +
            "cta_click, lesson_completed, playlist_ended, lead_form_submitted (`email` makes a lead and ties the session to the email's identity; `phone` is hashed), " +
            "quiz_answered (`properties: {question_id, choice_id, correct}`; the row's `event`, shown by the events read and the exports, is " +
            "`<question_id>:<choice_id>` plus `:correct` or `:wrong` when the question has a right answer), lesson_completed and playlist_ended " +
            "carry `container_video_code` (the course) and lesson_completed `video_code` (the lesson): they mark the viewer's course progress " +
            "(GET /v1/course-progress) and announce `lesson.completed` / `playlist.ended` once per viewer, course and lesson; pause, seek, watched, " +
            "heartbeat and milestone keep an identified viewer's last position (GET /v1/resume-position), ended clears it; timed_event (`name`: a timed reveal or the pitch reached), share_click (`network`), startup and rebuffer (`ms`), error. " +
            "Other scalar fields are kept as properties (100 characters, 20 keys). " +
            "The events host derives device, browser and OS from the User-Agent and the country from the IP (never stored) for the breakdowns. " +
            "Webhooks: play and unmute → `play` (+ `video.viewed` on the session's first play), milestone → `play.milestone`, cta_click → `cta.clicked`, " +
            "ended → `ended`, lesson_completed → `lesson.completed`, playlist_ended → `playlist.ended`, lead_form_submitted → `lead_form.submitted` with `identity` " +
            "(+ `lead.captured` for a new lead), quiz_answered → `quiz.answered`. Answers after the rows are written (or kept in the spool while the event store is away). " +
            "With `seq`, a batch whose number its session already took is answered `duplicate: true` and written nothing (the player retries). CORS-enabled; `text/plain` accepted.",
          security: [],
          responses: documented("browser", [404, 500, 503]),
        },
        response: { 200: t.Object({ ok: t.Boolean(), accepted: t.Integer(), duplicate: t.Optional(t.Boolean()) }) },
      },
    )
    .get(
      "/v1/lead-status",
      browserRead(async (query) => ({ submitted: await leadStatus(deps, query) })),
      {
        query: ViewerQuery,
        detail: {
          summary: "Has this viewer answered the video's lead form? (no token)",
          description:
            "The player asks before it shows a lead form or watch gate: `submitted` is true when the viewer of this session (else of this device) " +
            "already left an email in this video's form, on any device that email was used on. Unknown codes answer false. CORS-enabled.",
          security: [],
          responses: documented("browser", [503]),
        },
        response: { 200: t.Object({ submitted: t.Boolean() }) },
      },
    )
    .get(
      "/v1/course-progress",
      browserRead((query) => courseProgress(deps, query)),
      {
        query: ViewerQuery,
        detail: {
          summary: "Which lessons of this course has this viewer completed? (no token)",
          description:
            "The player of a playlist in course mode asks at load (and after a lead form): `completed` lists the video codes of the lessons the viewer " +
            "of this session (else of this device) completed in the course whose container video is `video_code`, on any device once the viewer is " +
            "identified (lead form, identify); `ended` says the course was finished. A lesson completes at its end, or when its quiz was passed. " +
            "Answers no identity. Unknown codes answer an empty list. Rate-limited per IP like /v1/collect. CORS-enabled.",
          security: [],
          responses: documented("browser", [503]),
        },
        response: { 200: t.Object({ completed: t.Array(t.String()), ended: t.Boolean() }) },
      },
    )
    .get(
      "/v1/resume-position",
      browserRead(async (query) => ({ position_s: await resumePosition(deps, query) })),
      {
        query: ViewerQuery,
        detail: {
          summary: "Where did this viewer stop in this video, on any device? (no token)",
          description:
            "With `cross_device_resume_options.enabled`, the player asks once at load: `position_s` is the last position (whole seconds) the viewer " +
            "of this session (else of this device) reached in the video on any device, kept only for identified viewers (lead form, identify, or an " +
            "`fl_sid` session that carries an identity); null when there is none or the video was watched to its end. Answers a position only, never " +
            "an identity. Unknown codes answer null. Rate-limited per IP like /v1/collect. CORS-enabled.",
          security: [],
          responses: documented("browser", [503]),
        },
        response: { 200: t.Object({ position_s: t.Nullable(t.Integer()) }) },
      },
    );
}

/** Who asks, for the browser's read paths: the workspace and video by code, the viewer by session, else device. */
const ViewerQuery = t.Object({
  workspace_code: Text({ minLength: 1, maxLength: 100 }),
  video_code: Text({ minLength: 1, maxLength: 100 }),
  session_id: t.Optional(Text({ minLength: 1, maxLength: 100 })),
  device_id: t.Optional(Text({ minLength: 1, maxLength: 100 })),
});
