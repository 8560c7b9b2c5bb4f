/**
 * The media host's decision for one file of a video (README "Playback protection"):
 * a public video's files are served to anyone; a video with allowed origins only
 * to a request whose `Origin` (or, where a browser's native HLS sends none,
 * `Referer`) is one of them; a video that requires signed URLs only with a valid,
 * unexpired token for that video signed by a live key of its workspace, and whose
 * access rules, if it carries any, let this viewer's IP and country in.
 */
import { originAllowed } from "../../../contract/allowed-origins.ts";
import { allowedBy } from "./access-rules.ts";
import type { Protection } from "./repo.ts";
import type { PlaybackState } from "./state.ts";

export type Refusal = "origin" | "token" | "access";

/** Who is asking, looked up only when a token's access rules need it. */
export interface Viewer {
  ip: () => string;
  country: (ip: string) => string;
}

export const isProtected = (p: Pick<Protection, "allowed_origins" | "require_signed_urls">): boolean => p.allowed_origins.length > 0 || p.require_signed_urls;

/** The page's origin as the request tells it: `Origin`, else the `Referer`'s. */
export const requestOrigin = (headers: Headers): string | null => headers.get("origin") ?? headers.get("referer");

/** Why a request for a file of this video is refused, or null when it may have it. */
export async function refusal(
  state: PlaybackState,
  protection: Protection,
  code: string,
  headers: Headers,
  token: string | null,
  viewer: Viewer,
): Promise<Refusal | null> {
  if (!originAllowed(protection.allowed_origins, requestOrigin(headers))) return "origin";
  if (!protection.require_signed_urls) return null;
  const holder = token ? await state.tokenHolder(token) : null;
  if (!holder || holder.code !== code || holder.workspaceId !== protection.workspace_id) return "token";
  return holder.rules && !allowedBy(holder.rules, viewer.ip(), viewer.country) ? "access" : null;
}

/**
 * A playlist as served for a token: every URI it names (segment, variant,
 * `URI="..."` attribute) carries `?token=` too, so any HLS player sends it on.
 */
export function withToken(playlist: string, token: string): string {
  const add = (uri: string) => (/^[a-z]+:/i.test(uri) ? uri : `${uri}${uri.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}`);
  return playlist
    .split("\n")
    .map((line) => {
      const trimmed = line.trim();
      if (trimmed === "") return line;
      if (!trimmed.startsWith("#")) return add(trimmed);
      return line.replace(/URI="([^"]*)"/g, (_, uri: string) => `URI="${add(uri)}"`);
    })
    .join("\n");
}
