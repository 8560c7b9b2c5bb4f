/** Wire schemas of docs/api.md "Playlists" (TypeBox through Elysia's `t`). */
import { t } from "elysia";
import { Id, Int, oneOf, PageNumber, QueryInt, Text } from "../../http/schemas.ts";
import { LESSON_NAVIGATION, PLAYLIST_CHROME, PLAYLIST_MODES } from "../../../contract/settings.ts";

const VideoCode = Text({ minLength: 1, maxLength: 64, error: "The video_code must be a string of 1 to 64 characters." });
const Title = Text({ maxLength: 255, error: "The title must be a string of at most 255 characters." });
const LessonLabel = Text({ maxLength: 255, error: "The lesson_label must be a string of at most 255 characters." });
const ThumbUrl = Text({ maxLength: 2048, pattern: "^https?://[^\\s]+$", error: "The thumb_url must be an http(s) URL of at most 2048 characters." });
const PlaybackMode = oneOf(PLAYLIST_MODES, { error: "The playback_mode must be linear or course." });
const PlaylistCode = t.Nullable(Text({ maxLength: 128, error: "The playlist_code must be a string of at most 128 characters." }));
/** Seconds; the player reads it as a 32-bit integer. */
const MAX_DURATION_S = 2_147_483_647;
const Chrome = oneOf(PLAYLIST_CHROME, { error: "The playlist_chrome must be rail or button." });
const flag = (name: string) => t.Boolean({ error: `The ${name} field must be true or false.` });

// Fields not listed (auto_advance_delay_ms, lesson_navigation at creation; items
// on PATCH) are not applied: docs/api.md "Playlists" rule 1 and the PATCH row.
export const CreatePlaylistBody = t.Object({
  video_id: Id({ error: "The video_id must be an integer id of a video." }),
  playback_mode: t.Optional(PlaybackMode),
  playlist_code: t.Optional(PlaylistCode),
  items: t.Optional(
    t.Array(t.Object({ video_code: VideoCode, title: t.Optional(t.Nullable(Title)) }), {
      maxItems: 1000,
      error: "The items must be a list of {video_code, title}.",
    }),
  ),
  auto_advance: t.Optional(flag("auto_advance")),
  loop: t.Optional(flag("loop")),
  playlist_chrome: t.Optional(Chrome),
});
export type CreatePlaylistBody = typeof CreatePlaylistBody.static;

export const UpdatePlaylistBody = t.Object({
  playback_mode: t.Optional(PlaybackMode),
  playlist_code: t.Optional(PlaylistCode),
  auto_advance: t.Optional(flag("auto_advance")),
  auto_advance_delay_ms: t.Optional(Int(0, 30000, { error: "The auto_advance_delay_ms must be an integer from 0 to 30000." })),
  loop: t.Optional(flag("loop")),
  lesson_navigation: t.Optional(oneOf(LESSON_NAVIGATION, { error: "The lesson_navigation must be sidebar, next-button, both or none." })),
  playlist_chrome: t.Optional(Chrome),
});
export type UpdatePlaylistBody = typeof UpdatePlaylistBody.static;

export const AddItemBody = t.Object({
  video_code: VideoCode,
  title: t.Optional(t.Nullable(Title)),
  lesson_label: t.Optional(t.Nullable(LessonLabel)),
  duration_s: t.Optional(t.Nullable(Int(0, MAX_DURATION_S, { error: "The duration_s must be an integer number of seconds." }))),
  thumb_url: t.Optional(t.Nullable(ThumbUrl)),
});
export type AddItemBody = typeof AddItemBody.static;

export const UpdateItemBody = t.Object({
  title: t.Optional(t.Nullable(Title)),
  lesson_label: t.Optional(t.Nullable(LessonLabel)),
  duration_s: t.Optional(Int(1, MAX_DURATION_S, { error: "The duration_s must be an integer of at least 1." })),
  thumb_url: t.Optional(t.Nullable(ThumbUrl)),
});
export type UpdateItemBody = typeof UpdateItemBody.static;

export const PlaylistItem = t.Object({
  video_code: t.String(),
  title: t.Nullable(t.String()),
  lesson_label: t.Nullable(t.String()),
  duration_s: t.Nullable(t.Integer()),
  thumb_url: t.Nullable(t.String()),
});

/** The read shape: `playlist_chrome`, `enabled` and `auto_advance_delay_ms` are stored but never read. */
export const Playlist = t.Object({
  video_id: t.Integer(),
  video_code: t.String(),
  title: t.String(),
  playback_mode: t.String(),
  playlist_code: t.Nullable(t.String()),
  item_count: t.Integer(),
  auto_advance: t.Boolean(),
  loop: t.Boolean(),
  lesson_navigation: t.String(),
});

export const ListPlaylistsQuery = t.Object({
  page: t.Optional(PageNumber()),
  per_page: t.Optional(QueryInt(1, 100, { error: "The per_page must be an integer from 1 to 100." })),
});
