/** docs/api.md `GET /videos/{video}/config`: what the player needs to size itself. */
import { Type } from "@sinclair/typebox";
import type { Deps } from "../../deps.ts";
import { findWorkspace } from "../../domains/workspaces/service.ts";
import type { MediaState, VideoRow } from "./repo.ts";
import { withDefaults } from "../../../contract/settings.ts";
import { TimedEventsRead, timedEventsOf } from "./timed-events.ts";

export interface OrientationConfig {
  w: number;
  h: number;
  padding: string;
  aspectRatio: string;
}

/** Null until the encoder has measured the file (docs/api.md: "null when no media"). */
function orientationConfig(media: MediaState | null): OrientationConfig | null {
  if (!media || typeof media.w !== "number" || typeof media.h !== "number") return null;
  return { w: media.w, h: media.h, padding: String(media.padding), aspectRatio: String(media.aspect_ratio) };
}

const OrientationRead = Type.Union([
  Type.Object({ w: Type.Integer(), h: Type.Integer(), padding: Type.String(), aspectRatio: Type.String() }),
  Type.Null({ description: "No media measured yet." }),
]);

/** The wire shape (OpenAPI). */
export const ConfigRead = Type.Object({
  config: Type.Object({
    workspace_code: Type.Union([Type.String(), Type.Null()]),
    video_code: Type.String(),
    landscape: OrientationRead,
    portrait: OrientationRead,
  }),
  timed_events_options: TimedEventsRead,
});

export async function videoConfig(deps: Pick<Deps, "sql">, row: VideoRow) {
  const ws = await findWorkspace(deps.sql, row.workspace_id);
  return {
    config: {
      workspace_code: ws?.code ?? null,
      video_code: row.code,
      landscape: orientationConfig(row.landscape_media),
      portrait: orientationConfig(row.portrait_media),
    },
    timed_events_options: timedEventsOf(withDefaults(row.settings)),
  };
}
