/** Wire schemas of docs/api.md "Videos" (TypeBox through Elysia's `t`). */
import { t } from "elysia";
import { Id, Int, MAX_ID, oneOf, PageNumber, QueryInt, Text } from "../../http/schemas.ts";

export const PLAYER_VERSIONS = ["v1", "v2", "1", "2"] as const;
export const SORT_COLUMNS = ["id", "title", "code", "created_at", "updated_at"] as const;
export type SortColumn = (typeof SORT_COLUMNS)[number];

const Title = Text({ minLength: 1, maxLength: 255, error: "The title must be a string of 1 to 255 characters." });
const Tags = t.Array(Text({ maxLength: 64 }), { maxItems: 100, error: "The tags must be a list of at most 100 strings of at most 64 characters each." });
const FolderId = Id({ error: "The folder_id must be an integer id of a folder." });

export const CreateVideoBody = t.Object({
  title: Title,
  folder_id: t.Optional(t.Nullable(FolderId)),
  tags: t.Optional(Tags),
  plain_mode: t.Optional(t.Boolean({ error: "The plain_mode field must be true or false." })),
  player_version: t.Optional(oneOf(PLAYER_VERSIONS, { error: "The player_version must be one of v1, v2, 1, 2." })),
  // An id that names no video copies nothing (docs/api.md "Videos" rule 1); one no bigint holds is refused.
  copy_from: t.Optional(Int(-MAX_ID, MAX_ID, { error: "The copy_from field must be an integer video id." })),
});
export type CreateVideoBody = typeof CreateVideoBody.static;

/** docs/api.md "Playback protection": host names, host:port or *.domain; empty allows any site. */
export const AllowedOrigins = t.Array(Text({ maxLength: 260 }), {
  maxItems: 50,
  error: "The allowed_origins must be a list of at most 50 host names (host, host:port or *.domain).",
});
export const RequireSignedUrls = t.Boolean({ error: "The require_signed_urls field must be true or false." });
export const Encryption = t.Union([t.Literal("none"), t.Literal("aes-128")], {
  error: 'The encryption must be "none" or "aes-128".',
  description:
    "`aes-128`: HLS segments encrypted with AES-128 under a key of the video's own, answered by the media host only to requests its protection allows. `none` (the default): new encodes are stored plain; segments already encrypted stay so.",
});

export const UpdateVideoBody = t.Object({
  title: t.Optional(Title),
  folder_id: t.Optional(t.Nullable(FolderId)),
  tags: t.Optional(Tags),
  allowed_origins: t.Optional(AllowedOrigins),
  require_signed_urls: t.Optional(RequireSignedUrls),
  encryption: t.Optional(Encryption),
});
export type UpdateVideoBody = typeof UpdateVideoBody.static;

export const ListVideosQuery = t.Object({
  // Anything but the listed values falls back to the default (docs/api.md), so only the URL bounds their length.
  sort: t.Optional(Text({ maxLength: 16_384 })),
  order: t.Optional(Text({ maxLength: 16_384 })),
  page: t.Optional(PageNumber()),
  per_page: t.Optional(QueryInt(1, 100, { error: "The per_page must be an integer from 1 to 100." })),
  folder_id: t.Optional(QueryInt(1, MAX_ID, { error: "The folder_id must be an integer id of a folder." })),
  search: t.Optional(Text({ maxLength: 255 })),
});
export type ListVideosQuery = typeof ListVideosQuery.static;

const Orientation = t.Nullable(t.Object({ status: t.String(), progress: t.Number(), error: t.Nullable(t.String()) }));

export const StatusObject = t.Object({
  id: t.Integer(),
  code: t.Optional(t.String()),
  title: t.Optional(t.String()),
  folder_id: t.Optional(t.Nullable(t.Integer())),
  status: t.UnionEnum(["waiting_for_upload", "processing", "ready", "error"]),
  orientations: t.Object({ landscape: Orientation, portrait: Orientation }),
  plain_mode: t.Boolean(),
  status_url: t.Optional(t.String()),
  embed: t.Nullable(t.Object({ script_url: t.String(), html: t.String(), plain_html: t.String() })),
});

export const SlimVideo = t.Object({
  id: t.Integer(),
  title: t.String(),
  code: t.String({ format: "uuid" }),
  workspace_id: t.Integer(),
  created_at: t.String({ format: "date-time" }),
  updated_at: t.String({ format: "date-time" }),
});

export const FullVideo = t.Object(
  {
    id: t.Integer(),
    code: t.String({ format: "uuid" }),
    workspace_id: t.Integer(),
    title: t.String(),
    folder_id: t.Nullable(t.Integer()),
    tags: t.Array(t.String()),
    player_version: t.String(),
    plain_mode: t.Boolean(),
    landscape_hls: t.Nullable(t.String()),
    portrait_hls: t.Nullable(t.String()),
    landscape_thumb: t.Nullable(t.String()),
    portrait_thumb: t.Nullable(t.String()),
    script_url: t.String(),
    default_orientation: t.UnionEnum(["landscape", "portrait"]),
    allowed_origins: t.Array(t.String()),
    require_signed_urls: t.Boolean(),
    encryption: t.Union([t.Literal("none"), t.Literal("aes-128")]),
    created_at: t.String({ format: "date-time" }),
    updated_at: t.String({ format: "date-time" }),
  },
  { additionalProperties: true, description: "Also carries every option group (style_options, playback_options, ...) as an object." },
);

export const TokenBody = t.Object({
  exp: t.Optional(t.Integer({ minimum: 1, maximum: 253402300799, error: "The exp must be a time in seconds since 1970 (an integer)." })),
  nbf: t.Optional(t.Integer({ minimum: 1, maximum: 253402300799, error: "The nbf must be a time in seconds since 1970 (an integer)." })),
  downloadable: t.Optional(
    t.Boolean({
      error: "The downloadable field must be true or false.",
      description: "Default false. Carried in the token for Cloudflare Stream compatibility: Frameline has no MP4 download route for it to open.",
    }),
  ),
  // Each rule's fields are checked by the service (domains/playback/access-rules.ts), which names the rule and field at fault.
  accessRules: t.Optional(
    t.Array(
      t.Object(
        {
          type: t.Optional(t.Unknown({ description: "`any`, `ip.src` or `ip.geoip.country`." })),
          action: t.Optional(t.Unknown({ description: "`allow` or `block`." })),
          country: t.Optional(t.Unknown({ description: 'For `ip.geoip.country`: ISO 3166-1 alpha-2 codes, e.g. `["US", "MX"]`.' })),
          ip: t.Optional(t.Unknown({ description: "For `ip.src`: addresses or CIDR ranges, IPv4 or IPv6." })),
        },
        { additionalProperties: true },
      ),
      {
        maxItems: 20,
        error: "The accessRules must be a list of at most 20 rules.",
        description: "Checked in order on every playlist and segment request; the first rule matching the viewer decides; none matching allows.",
      },
    ),
  ),
});
export type TokenBody = typeof TokenBody.static;

export const SignedToken = t.Object({ token: t.String(), expires_at: t.String({ format: "date-time" }) });
