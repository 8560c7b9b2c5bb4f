/**
 * What each analytics number means, in one place (docs/api.md "Analytics reads").
 * queries.ts implements exactly these definitions; the README copies them.
 *
 * Rows come from the ClickHouse table `events` (server/storage/clickhouse/0001_events.sql).
 * Assumptions about what the ingest path writes:
 *
 * - Player rows have `event_type` one of `load`, `autoplay`, `unmute`, `play`, `pause`,
 *   `seek`, `ended`, `watched`, `milestone`, `cta_click`, `lead_form_submitted`, `startup`,
 *   `rebuffer`, `error` (and a few more), and carry the viewer's `session_code` (and
 *   `device_id` when the player knows it). `load`: the player was shown on a page (once
 *   per page view and player). `autoplay`: a muted autoplay started (older players sent
 *   `play` instead). `unmute`: the viewer unmuted an autoplay. `cta_click`:
 *   `properties.card_index`. `startup` and `rebuffer`: `value` in ms.
 * - A `load` row carries `properties.referrer_host` and `utm_source`, `utm_medium`,
 *   `utm_campaign` (the session's landing page, as the player sends them); `load`, `play`
 *   and `autoplay` rows carry `properties.device`, `browser`, `os` and `country`, which
 *   the events host derives from the request (server/hosts/events/client.ts).
 * - Watched ranges: one row per contiguous watched range of the video, `event_type`
 *   `watched` (/v1/collect writes a player heartbeat's ranges the same way). `video_time` is the range start in seconds,
 *   `watch_seconds` its length in seconds of video time, so the range is
 *   [video_time, video_time + watch_seconds). `properties.duration_s` is the video's
 *   duration in seconds when the player knows it (`properties.from_s` / `to_s` are not
 *   needed and not read).
 * - `milestone`: `properties.percent` is "25", "50", "75" or "100".
 * - Custom events: `event_type` `custom`, `event` the normalised name. They never count
 *   as plays, completions or conversions.
 * - Conversions: `event_type` `conversion`, `event` the conversion type (e.g. `purchase`;
 *   empty reads as `conversion`), `value` the amount, `properties.currency`. A row is
 *   unverified when `properties.verified` is "0" or `properties.source` is `browser`,
 *   verified otherwise (today only verified ledger rows are written, without a
 *   `verified` key). A row with `properties.is_test` "true" or "1" is a test sale. A
 *   browser row and the later verified postback for the same order carry the same
 *   `event_id` (the ledger's dedup key `<integration>:<order_id>`).
 * - A row with an empty `session_code` is a session of its own (keyed by its `event_id`).
 *
 * Where the rules run: the per-session facts behind play, unique play, completion, watch
 * time, bounce and retention (the event types and the session key below) are computed at
 * insert time by the materialized view on `player_events` (server/storage/clickhouse/0004_player_events.sql)
 * into `analytics_session_slots` (one row per session per 15-minute slot); the reads in
 * queries.ts combine those rows. That SQL names the event types of play (`play`), completion
 * (`ended`, milestone `100`) and watch time (`watched`) itself; the constants below are the
 * ones the reads in queries.ts use. A definition that changes changes in both.
 * Sessions and devices are told apart by 64-bit hashes of their codes there (a collision
 * among one video's sessions is about a one-in-a-billion event at 200,000 sessions).
 *
 * Time window: `from` and `to` are calendar dates in `tz`; a row counts when
 * start of `from` <= created_at < start of the day after `to`, both in `tz`. The summary,
 * retention and conversions default to `from` = 30 days before today and `to` = today
 * (today in `tz`); the events list defaults `from` to 7 days before today. Every real
 * time zone offset is a multiple of 15 minutes, so a local midnight is always a slot
 * boundary and the slot-based reads keep this window exact.
 */

/**
 * **Play** (a true play): a viewing session that started playback on purpose in the
 * window: it has a `play` row (a click on play; older players' `play` rows count too,
 * since they did not mark autoplays) or an `unmute` row (the viewer unmuted a muted
 * autoplay). A muted autoplay nobody unmuted is not a play. A session is counted once
 * however often it pauses and resumes, so `plays` = distinct sessions with either row.
 * The summary, retention and exports count plays this way.
 */

/**
 * **Unique play**: a distinct viewer among the plays. The viewer is the session's
 * `device_id`; a session without one is its own viewer. `unique_plays` <= `plays`.
 * Exact: sealed periods keep their viewers as bitmaps of numbered viewers
 * (viewer-ordinals.ts), and `unique_plays` is never above `plays`.
 */

/**
 * **Completion**: a played session that reached the end: it has an `ended` row, or a
 * `milestone` row with percent >= 100, in the window. Counted once per session, so a
 * rewatch to the end again does not count twice. `completion_rate` =
 * completion_count / plays (0 when there are no plays), a fraction 0..1 rounded to 4 places.
 */

/**
 * **Watch time**: the sum of `watch_seconds` of the `watched` rows of played sessions
 * (time spent watching: a rewatched part counts each time it is watched).
 * `avg_watch_time_s` = watch time / plays, in seconds rounded to 2 places (0 without plays).
 */

/**
 * **Bounce**: a played session whose watch time is under BOUNCE_MAX_WATCH_S seconds and
 * that did not complete (a viewer who pressed play and left almost at once).
 */
export const BOUNCE_MAX_WATCH_S = 5;

/**
 * **Retention**: the video's duration D is the largest `properties.duration_s` of its
 * `watched` rows in the window, or, when none carries it, the largest range end seen.
 * The video is cut into N equal buckets; bucket i covers [i*D/N, (i+1)*D/N) and
 * `bucket_pct` = 100*i/N (its start, rounded to 2 places). A session watched bucket i
 * when one of its watched ranges contains the bucket's midpoint (i+0.5)*D/N. Each
 * session counts at most once per bucket (the union of its ranges), so seeks and
 * rewatches do not inflate the curve. `watch_pct` = sessions that watched the bucket /
 * plays, a fraction 0..1 rounded to 4 places; the denominator is the played sessions of
 * the window, so only played sessions count in the numerator too.
 */
export const RETENTION_DEFAULT_BUCKETS = 100;
export const RETENTION_MAX_BUCKETS = 200;

/**
 * **Conversions read**: conversion rows of the window, deduplicated by `event_id` (a
 * verified row wins over an unverified one with the same id; rows without an id are
 * each their own conversion), grouped by `event_name`. `count` counts verified and
 * unverified conversions; `total_revenue` sums `value` of verified, non-test ones only
 * (docs/api.md "Conversion verification": unverified rows never feed revenue), rounded to 2 places.
 * Currencies are summed as sent. Custom events never appear here.
 */

/**
 * **Seller overview** (beyond the core interface; queries in metrics.ts). Per session that started
 * in the window (its start: when the events host first saw its session code, to the
 * 15-minute slot), with everything it did, also after the window's end; a rate whose
 * denominator is zero is null. (The summary and retention count each slot of a
 * session's activity in its own window.)
 *
 * - **Impression**: a session shown the player: it has a `load` (or, from older players
 *   without `load`, a `play` or `autoplay`). `impressions` counts sessions, so a reload
 *   in the same tab is one impression.
 * - `plays` as above; `play_rate` = plays / impressions.
 * - `autoplays` = sessions with an `autoplay`; `unmutes` = those of them with an
 *   `unmute`; `unmute_rate` = unmutes / autoplays.
 * - `unique_viewers`: distinct viewers among the impressions (device id; a session
 *   without one is its own viewer).
 * - `avg_watch_time_s` = watch time of played sessions / plays (as the summary, but null
 *   without plays).
 * - `avg_percent_watched`: per played session, the share of the video its watched ranges
 *   cover, at 1 % resolution (the 100 buckets of retention: a bucket counts when its
 *   midpoint is covered), averaged over plays; equal to the mean of the 100-bucket
 *   retention curve, in percent. Null while the video's duration is unknown.
 * - `cta_clicks`: per card index (0 to 63), the sessions that clicked it (`cta_click`
 *   rows; a session that clicks a card twice counts once for it).
 * - `leads`: sessions that submitted the player's lead form.
 * - **Sales**: conversion rows deduplicated as in the conversions read; only verified,
 *   non-test sales count, per currency (never summed across currencies; a sale without
 *   a currency is its own row, `currency` null). `orders` = their number (all currencies);
 *   per currency `revenue` = the sum of their values, `aov` = revenue / orders, `rpv` =
 *   revenue / unique_viewers, `epc` = revenue / impressions, `roas` = revenue / ad spend
 *   of the same currency on the window's dates (null without ad spend).
 * - `conversion_rate` = sales traced to a session that played this video in the window /
 *   plays.
 * - Playback quality, over every session shown the player (autoplays included):
 *   `startup_time_ms` p50 and p95 over the sessions that started playback, each with its
 *   startup time (the longest of its `startup` rows; a session usually has one), nearest
 *   rank: the value at 0-based index ⌊q·n⌋ of the n sorted times; `rebuffer_ratio` =
 *   stalled time (sum of `rebuffer` ms) / watch time of all sessions; `errors` = the
 *   number of `error` rows.
 *
 * **Breakdowns** group the same metrics by a value of the session: `source` (utm_source,
 * else the referrer host, else `direct`), `utm_source`, `utm_medium`, `utm_campaign`,
 * `referrer_host`, `device`, `browser`, `os` or `country` (an unknown value is null). The
 * OVERVIEW_TOP_VALUES values with the most impressions (ties by value) keep a row each;
 * the rest merge into one `other` row. Sales count in the row of the session they are
 * traced to, when that session was shown the player in the window, so the rows may add
 * up to fewer sales than the overview. `roas` applies to `source`, matching ad spend
 * entered for that source (case-insensitively).
 *
 * **Buyers against everyone** (retention `segment`): buyers are the played sessions
 * traced to a verified, non-test sale of the video in the window; non-buyers the other
 * played sessions. Each curve's denominator is its own played sessions.
 *
 * CTA clicks, leads, startup, rebuffering, errors, impressions, autoplays and the
 * breakdown values are kept per session from ClickHouse migration 0006 on: sessions
 * written before read as having none (their raw events are still in the events read).
 */
export const OVERVIEW_TOP_VALUES = 50;

export type { CurrencyMetrics, GroupMetrics } from "../../../contract/analytics.ts";
export const STARTUP_QUANTILES = "0.5, 0.95";

/** Events list: newest first (created_at descending), `ip_hash` always null (docs/api.md). */
export const EVENTS_DEFAULT_PER_PAGE = 100;
export const EVENTS_MAX_PER_PAGE = 500;

/** Default windows, in days before today (docs/api.md "Analytics reads"). */
export const DEFAULT_WINDOW_DAYS = 30;
export const EVENTS_DEFAULT_WINDOW_DAYS = 7;

/** The summary is computed at most once per this many seconds per query (docs/api.md). */
export const SUMMARY_CACHE_SECONDS = 60;
