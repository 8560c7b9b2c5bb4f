/**
 * The live timed events as `GET /videos/{id}/embed` (`timed_events`) and
 * `GET /videos/{id}/config` (`timed_events_options`) answer them: docs/api.md's
 * arrays, each entry completed with the defaults the player applies.
 */
import { t } from "elysia";
import type { Settings } from "../../../contract/settings.ts";

/** The wire shape (OpenAPI). */
export const TimedEventsRead = t.Array(
  t.Object({
    time_s: t.Number({ minimum: 0 }),
    selector: t.Nullable(t.String({ description: "CSS selector of the page elements shown or hidden; null: the event only reaches the page API." })),
    action: t.Union([t.Literal("show"), t.Literal("hide")]),
    name: t.Nullable(t.String()),
    persist: t.Boolean({ description: "A returning viewer on the same device gets the revealed state at load." }),
  }),
);

export type TimedEvent = (typeof TimedEventsRead.static)[number];

export function timedEventsOf(settings: Settings): TimedEvent[] {
  return (settings.timed_events_options.events ?? []).map((e) => ({
    time_s: e.time_s,
    selector: e.selector ?? null,
    action: e.action ?? "show",
    name: e.name ?? null,
    persist: e.persist !== false,
  }));
}
