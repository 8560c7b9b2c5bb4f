/** Wire schemas of the seller reads beyond the core interface (definitions.ts "Seller overview"). */
import { t } from "elysia";

const Rate = (description: string) => t.Nullable(t.Number({ description: `${description} Null when the denominator is zero.` }));

export const CurrencyMetrics = t.Object({
  currency: t.Nullable(t.String({ description: "ISO 4217; null for sales sent without a currency." })),
  orders: t.Integer({ description: "Verified, non-test sales in this currency." }),
  revenue: t.Number({ description: "Their sum, never mixed with another currency." }),
  aov: Rate("revenue / orders."),
  rpv: Rate("revenue / unique_viewers."),
  epc: Rate("revenue / impressions."),
  ad_spend: t.Nullable(t.Number({ description: "Ad spend entered in this currency for the window's days; null when none." })),
  roas: Rate("revenue / ad_spend; null without ad spend."),
});

export const GroupMetrics = t.Object({
  impressions: t.Integer({ description: "Sessions shown the player (a `load`)." }),
  plays: t.Integer({ description: "Sessions that started playback on purpose: a click on play, or an unmute of an autoplay." }),
  play_rate: Rate("plays / impressions."),
  autoplays: t.Integer({ description: "Sessions with a muted autoplay start." }),
  unmutes: t.Integer({ description: "Autoplayed sessions the viewer unmuted." }),
  unmute_rate: Rate("unmutes / autoplays."),
  unique_viewers: t.Integer({ description: "Distinct viewers (device) among the impressions." }),
  unique_viewers_exact: t.Boolean({
    description: 'Always true: distinct viewers are counted exactly (README "How fresh, how exact"); kept for clients that read it.',
  }),
  avg_watch_time_s: Rate("Watch time of played sessions / plays."),
  avg_percent_watched: Rate("Average share of the video (0..100) a play watched, rewatches counted once; null while the duration is unknown."),
  cta_clicks: t.Array(t.Object({ card_index: t.Integer(), sessions: t.Integer() }), {
    description: "Per CTA card: the sessions that clicked it (cards 0 to 63).",
  }),
  leads: t.Integer({ description: "Sessions that submitted the player's lead form." }),
  orders: t.Integer({ description: "Verified, non-test sales, all currencies." }),
  conversion_rate: Rate("Sales traced to a session that played / plays."),
  revenue: t.Array(CurrencyMetrics, { description: "One row per currency." }),
  startup_time_ms: t.Object({ p50: t.Nullable(t.Number()), p95: t.Nullable(t.Number()) }, { description: "Play intent to first frame, nearest rank." }),
  rebuffer_ratio: Rate("Stalled time / watch time."),
  errors: t.Integer({ description: "Player errors reported." }),
});

const Head = {
  video_id: t.Integer(),
  video_code: t.String(),
  from: t.String({ format: "date" }),
  to: t.String({ format: "date" }),
  tz: t.String(),
};

export const OverviewReply = t.Object({ ...Head, overview: GroupMetrics });

export const BreakdownReply = t.Object({
  ...Head,
  by: t.String(),
  rows: t.Array(
    t.Composite([
      t.Object({
        value: t.Nullable(t.String({ description: "The value; null when unknown, and on the `other` row." })),
        other: t.Boolean({ description: "True on the one row merging every value past the top 50." }),
      }),
      GroupMetrics,
    ]),
  ),
});

export const WorkspaceOverviewReply = t.Object({
  from: t.String({ format: "date" }),
  to: t.String({ format: "date" }),
  tz: t.String(),
  sort: t.String(),
  order: t.String(),
  currency: t.Nullable(t.String({ description: "The currency money sorts used." })),
  page: t.Integer(),
  per_page: t.Integer(),
  total: t.Integer(),
  videos: t.Array(t.Composite([t.Object({ video_id: t.Integer(), video_code: t.String(), title: t.String() }), GroupMetrics])),
});
