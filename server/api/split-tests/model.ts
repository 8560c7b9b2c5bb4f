/** Wire schemas of split tests (beyond the core interface): the resource, its report and the events host's assignment. */
import { t } from "elysia";
import { DATE_MAX, DATE_MIN, Id as RowId, Int, oneOf, PageNumber, PathId, QueryInt, Text } from "../../http/schemas.ts";

export const GOALS = ["conversion", "play", "cta_click"] as const;
export type Goal = (typeof GOALS)[number];

export const MAX_VARIATIONS = 10;

export const CreateSplitTestBody = t.Object(
  {
    name: Text({
      minLength: 1,
      maxLength: 255,
      pattern: "^[^\\u0000-\\u001f\\u007f]*$",
      description: "What the seller calls the test.",
      error: "The name must be 1 to 255 printable characters.",
    }),
    variations: t.Array(
      t.Object(
        {
          video_id: RowId({ description: "A video of this workspace.", error: "The video_id must be a video id." }),
          weight: Int(1, 99, { description: "Percent of viewers served this variation.", error: "The weight must be a whole number from 1 to 99." }),
        },
        { additionalProperties: false },
      ),
      {
        minItems: 2,
        maxItems: MAX_VARIATIONS,
        description: "2 to 10 variations, weights summing to 100. The first is the control: its own embed serves the test while the test is not ended.",
        error: "The variations must be a list of 2 to 10 entries of {video_id, weight}.",
      },
    ),
    goal: oneOf(GOALS, {
      description:
        "What decides the test: `conversion` (buyers / plays), `play` (plays / impressions) or `cta_click` (sessions that clicked a CTA card / impressions).",
      error: "The goal must be one of conversion, play, cta_click.",
    }),
    auto_promote: t.Optional(
      t.Boolean({ description: "When the winner is declared, serve it to everyone (default false).", error: "The auto_promote field must be true or false." }),
    ),
  },
  { additionalProperties: false },
);
export type CreateSplitTestBody = typeof CreateSplitTestBody.static;

export const EndSplitTestBody = t.Object(
  {
    winner_variation_id: RowId({
      description: "The variation served to everyone from now on.",
      error: "The winner_variation_id must be a variation id of this test.",
    }),
  },
  { additionalProperties: false },
);
export type EndSplitTestBody = typeof EndSplitTestBody.static;

export const Variation = t.Object({
  id: t.Integer(),
  video_id: t.Nullable(t.Integer({ description: "Null once the video was deleted (the control is then served in its place)." })),
  video_code: t.Nullable(t.String()),
  title: t.Nullable(t.String()),
  weight: t.Integer(),
  control: t.Boolean(),
});

export const SplitTest = t.Object({
  id: t.Integer(),
  code: t.String({ description: "Public code: the embed and the events host name the test by it." }),
  name: t.String(),
  goal: t.String({ description: "conversion, play or cta_click." }),
  status: t.String({ description: "running, paused or ended." }),
  auto_promote: t.Boolean(),
  variations: t.Array(Variation),
  control_variation_id: t.Integer(),
  declared_winner: t.Nullable(
    t.Object({ variation_id: t.Integer(), declared_at: t.String({ format: "date-time" }) }, { description: "Set once by the winner rule (README)." }),
  ),
  winner_variation_id: t.Nullable(t.Integer({ description: "Chosen when the test was ended." })),
  serving_variation_id: t.Nullable(
    t.Integer({ description: "The variation every viewer is served now (paused: the control; promoted or ended: the winner); null while split by weight." }),
  ),
  embed: t.Object({ script_url: t.String(), html: t.String({ description: "The test's snippet." }) }),
  ended_at: t.Nullable(t.String({ format: "date-time" })),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});
export type SplitTest = typeof SplitTest.static;

export const SplitTestParams = t.Object({ id: PathId("Numeric split test id") });

export const ListSplitTestsQuery = t.Object({
  page: t.Optional(PageNumber()),
  per_page: t.Optional(QueryInt(1, 100, { error: "The per_page must be a whole number from 1 to 100." })),
});

// Dates and the zone are checked by the report (analytics' resolveWindow), so that its 422 names the parameter and says why.
export const ReportQuery = t.Object({
  from: t.Optional(Text({ maxLength: 64, description: `ISO date (${DATE_MIN} to ${DATE_MAX}); default the day the test was created.` })),
  to: t.Optional(Text({ maxLength: 64, description: `ISO date (${DATE_MIN} to ${DATE_MAX}); default today.` })),
  tz: t.Optional(Text({ maxLength: 64, description: "IANA time zone of the days; default UTC." })),
});

const Rate = t.Nullable(t.Number());

const Goal = t.Object({
  trials: t.Integer({ description: "conversion: plays; play and cta_click: impressions." }),
  successes: t.Integer({
    description: "conversion: played sessions with a verified, non-test sale; play: plays; cta_click: sessions that clicked a CTA card.",
  }),
  rate: Rate,
  difference: t.Nullable(t.Number({ description: "Rate minus the control's; null on the control." })),
  ci_low: t.Nullable(t.Number({ description: "95 % confidence interval of the difference." })),
  ci_high: t.Nullable(t.Number()),
  p_value: t.Nullable(t.Number({ description: "Two-sided, pooled two-proportion z-test against the control." })),
  probability_to_beat_control: t.Nullable(t.Number({ description: "Φ(difference / its standard error)." })),
});

export const ReportVariation = t.Object({
  variation_id: t.Integer(),
  video_id: t.Nullable(t.Integer()),
  video_code: t.Nullable(t.String()),
  title: t.Nullable(t.String()),
  weight: t.Integer(),
  control: t.Boolean(),
  impressions: t.Integer(),
  plays: t.Integer(),
  play_rate: Rate,
  unique_viewers: t.Integer(),
  unique_viewers_exact: t.Boolean({
    description: 'Always true: distinct viewers are counted exactly (README "How fresh, how exact"); kept for clients that read it.',
  }),
  conversions: t.Integer({ description: "Verified, non-test sales traced to a session of this variation that played." }),
  conversion_rate: Rate,
  cta_click_sessions: t.Integer(),
  revenue: t.Array(
    t.Object({
      currency: t.Nullable(t.String()),
      orders: t.Integer(),
      revenue: t.Number(),
      rpv: Rate,
    }),
  ),
  goal: Goal,
});

export const Report = t.Object({
  split_test_id: t.Integer(),
  goal: t.String({ description: "conversion, play or cta_click." }),
  from: t.String({ format: "date" }),
  to: t.String({ format: "date" }),
  tz: t.String(),
  variations: t.Array(ReportVariation),
  decision: t.Object({
    method: t.String(),
    confidence: t.Number(),
    minimum_trials: t.Integer(),
    minimum_expected: t.Integer(),
    sample_reached: t.Boolean(),
    leader_variation_id: t.Nullable(t.Integer()),
    significant: t.Boolean({ description: "The leader beats every other variation by the winner rule, on this window." }),
    declared_variation_id: t.Nullable(t.Integer()),
    declared_at: t.Nullable(t.String({ format: "date-time" })),
  }),
  series: t.Array(
    t.Object({
      date: t.String({ format: "date" }),
      variations: t.Array(t.Object({ variation_id: t.Integer(), trials: t.Integer(), successes: t.Integer(), rate: Rate, cumulative_rate: Rate })),
    }),
    { description: "The goal metric per day (sessions by the local day they started) and cumulated up to that day." },
  ),
});
export type Report = typeof Report.static;

/** As /v1/collect takes them (a session id must match the player's batches). */
const Id = Text({ minLength: 1, maxLength: 100 });

export const AssignBody = t.Object(
  {
    workspace_code: Text({ minLength: 1, maxLength: 100 }),
    split_test: Text({ minLength: 1, maxLength: 100, description: "The test's public code." }),
    session_id: Id,
    device_id: t.Optional(Id),
  },
  { additionalProperties: false },
);
export type AssignBody = typeof AssignBody.static;

export const AssignReply = t.Object({
  split_test: t.String(),
  variation_id: t.Integer(),
  video_code: t.String(),
  script_url: t.String({ description: "The variation's player entry." }),
  in_test: t.Boolean({ description: "True when served by weight (the session's events then carry the variation); false when paused, promoted or ended." }),
});
export type AssignReply = typeof AssignReply.static;
