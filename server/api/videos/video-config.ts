/** docs/api.md `GET /videos/{video}/config`: what the player needs to size itself. */
import type { Deps } from "../../deps.ts";
import { findWorkspace } from "../../domains/workspaces/service.ts";
import type { MediaState, VideoRow } from "./repo.ts";
import { withDefaults } from "../../../contract/settings.ts";
import { timedEventsOf } from "./timed-events.ts";

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
