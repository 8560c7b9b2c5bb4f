/** Wire schemas of the per-viewer reads (docs/api.md "Viewers"). */
import { t } from "elysia";

const Money = t.Object({
  currency: t.Nullable(t.String({ description: "ISO 4217; null for sales sent without a currency." })),
  amount: t.Number({ description: "Sum of the verified, non-test sales in this currency." }),
});

export const ViewerSummary = t.Object({
  viewer_id: t.Integer({ description: "The viewer, as `{viewer}` in the viewer's paths." }),
  identified: t.Boolean({ description: "True when a lead form's email or an `identify` named this viewer." }),
  email: t.Nullable(t.String({ description: "The email of the viewer's latest lead; null for anonymous devices and hashed-only identities." })),
  external_id: t.Nullable(t.String({ description: "The external id an `identify` gave; null otherwise." })),
  sessions: t.Integer({ description: "Sessions that played this video." }),
  first_seen_at: t.String({ format: "date-time", description: "When the viewer's first session of this video began." }),
  last_seen_at: t.String({ format: "date-time", description: "When the viewer's latest session of this video began." }),
  watch_time_s: t.Number({ description: "Seconds of the video watched, rewatches counted each time." }),
  furthest_percent: t.Integer({ description: "The furthest point reached, 0 to 100 percent of the video." }),
  plays: t.Integer({ description: "Starts of playback (a play, or the unmute of an autoplay)." }),
  leads: t.Integer({ description: "Lead forms answered." }),
  orders: t.Integer({ description: "Verified, non-test sales of this video made in these sessions." }),
  revenue: t.Array(Money, { description: "Their sum, one row per currency." }),
});

export const ViewerEvent = t.Object({
  type: t.String({ description: "play, pause, seek, ended, cta_click, quiz_answer, lead or sale." }),
  at: t.String({ format: "date-time" }),
  video_time: t.Nullable(t.Number({ description: "Position in the video, seconds (a seek's target); null for a sale." })),
  detail: t.Record(t.String(), t.Union([t.String(), t.Number(), t.Boolean(), t.Null()]), {
    description: "seek: from_s; cta_click: card_index; quiz_answer: question_id, choice_id, correct; sale: amount, currency, product.",
  }),
});

export const ViewerSession = t.Object({
  session_id: t.String(),
  started_at: t.String({ format: "date-time" }),
  source: t.Nullable(t.String({ description: "utm_source of the landing page, else the referrer's host; null when direct." })),
  device: t.Nullable(t.String()),
  browser: t.Nullable(t.String()),
  os: t.Nullable(t.String()),
  country: t.Nullable(t.String({ description: "ISO 3166 code from the IP at the time (the IP itself is never stored)." })),
  watch_time_s: t.Number(),
  watched_ranges: t.Array(t.Array(t.Number(), { minItems: 2, maxItems: 2 }), { description: "[from_s, to_s] stretches of playback, in the order watched." }),
  events: t.Array(ViewerEvent),
});

export const ViewerTimeline = t.Object({
  video_id: t.Integer(),
  viewer: ViewerSummary,
  sessions: t.Array(ViewerSession, { description: "Every session of this viewer that played this video, oldest first." }),
});

export const ViewerHeatmap = t.Object({
  buckets: t.Integer(),
  duration_s: t.Nullable(t.Number({ description: "The video's duration as the player reported it; null before any range." })),
  counts: t.Array(t.Integer(), { description: "Per equal part of the video: how many times the viewer watched it across sessions; 0 = skipped." }),
});

export type ViewerSummary = typeof ViewerSummary.static;
export type ViewerEvent = typeof ViewerEvent.static;
export type ViewerSession = typeof ViewerSession.static;
export type ViewerTimeline = typeof ViewerTimeline.static;
export type ViewerHeatmap = typeof ViewerHeatmap.static;
