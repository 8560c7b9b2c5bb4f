/**
 * A protected video's entry (README "Playback protection"), compiled in only when
 * `__FL_PROTECTION__` is set: on a site the video does not allow, the player never
 * loads and says so in its place; with signed URLs it first asks the events host for
 * a token and puts it on the playlist and poster URLs (the media host passes it on
 * to every segment).
 */
import { originAllowed } from "../contract/allowed-origins.ts";
import type { PlaybackGuard, PlayerConfig, Rendition } from "../contract/player-config.ts";

export const REFUSED_TEXT = "This video can't be played on this site";

/** Puts the refusal where the player would be, now and once the page has parsed. */
function refuse(code: string): void {
  const show = () =>
    document.querySelectorAll<HTMLElement>(`.frameline-player[data-video="${CSS.escape(code)}"]`).forEach((el) => {
      if (el.hasAttribute("data-fl-mounted")) return;
      el.setAttribute("data-fl-mounted", "");
      const box = document.createElement("div");
      box.setAttribute("role", "alert");
      box.className = "fl-refused";
      box.textContent = REFUSED_TEXT;
      box.style.cssText =
        "display:flex;align-items:center;justify-content:center;aspect-ratio:16/9;background:#111;color:#fff;font:16px/1.4 system-ui,sans-serif;text-align:center;padding:16px;box-sizing:border-box";
      el.replaceChildren(box);
    });
  show();
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", show, { once: true });
}

/** `url` with `?token=` (or `&token=`) added; as it is without a token. */
export const withToken = (url: string | null, token?: string): string | null =>
  url && token ? `${url}${url.includes("?") ? "&" : "?"}token=${encodeURIComponent(token)}` : url;

/**
 * A token for the video with this code, from the events host, which answers only a
 * page the video allows. Rejects when refused.
 *
 * @example
 *   const token = await playbackToken(config.events_url, code);
 */
export async function playbackToken(eventsUrl: string, code: string): Promise<string> {
  const res = await fetch(`${eventsUrl}/v1/playback/${encodeURIComponent(code)}/token`, { credentials: "omit" });
  if (!res.ok) throw new Error(`token refused: ${res.status}`);
  return ((await res.json()) as { token: string }).token;
}

const signed = (r: Rendition | null, token: string): Rendition | null => r && { ...r, hls: withToken(r.hls, token), poster: withToken(r.poster, token) };

/**
 * The config to boot with, or null when this page may not play the video (the
 * refusal is then shown). Never throws.
 *
 * @example
 *   guard(__FL_PROTECTION__, config).then((ready) => ready && core.boot(ready, features));
 */
export async function guard(rules: PlaybackGuard, config: PlayerConfig): Promise<PlayerConfig | null> {
  const { code } = config.video;
  if (!originAllowed(rules.allowed_origins, location.href)) {
    refuse(code);
    return null;
  }
  if (!rules.signed) return config;
  try {
    const token = await playbackToken(config.events_url, code);
    return { ...config, video: { ...config.video, landscape: signed(config.video.landscape, token), portrait: signed(config.video.portrait, token) } };
  } catch (e) {
    console.warn("frameline: no playback token", e);
    refuse(code);
    return null;
  }
}
