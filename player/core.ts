import type { Feature, PlayerConfig } from "./types.ts";
import type { Identity } from "../browser/identity.ts";
import { frameline } from "../browser/frameline.ts";
import { injectCss } from "./styles.ts";
import { Player } from "./player.ts";

export type { Feature, PlayerConfig, PlayerApi } from "./types.ts";
export { Player } from "./player.ts";

/**
 * Mounts a player into every `.frameline-player[data-video="<code>"]` under
 * `root` that has none yet, now and (while the page is still parsing) again
 * at DOMContentLoaded, since the async script may run before its div exists.
 * Uses the page's `window.Frameline` (browser/frameline.ts), creating it when
 * no other script has, so every player and the tracker share one viewer
 * identity. Never throws into the page.
 *
 * @example
 * import("https://cdn.example/cdn/p/core-abc.js").then((core) => core.boot(config, [chapters]));
 */
export function boot(config: PlayerConfig, features: Feature[] = [], root: ParentNode = document): Player[] {
  const players: Player[] = [];
  try {
    const page = frameline({ url: config.events_url.replace(/\/$/, "") + "/v1/track", workspaceCode: config.video.workspace_code }, "player");
    const identity: Identity = { sessionId: page.getSessionId(), deviceId: page.getDeviceId() };
    const mountAll = () => {
      injectCss(document);
      root.querySelectorAll<HTMLElement>(`.frameline-player[data-video="${CSS.escape(config.video.code)}"]`).forEach((el) => {
        if (el.hasAttribute("data-fl-mounted")) return;
        el.setAttribute("data-fl-mounted", "");
        try {
          players.push(new Player(el, config, features, identity));
        } catch (e) {
          console.warn("frameline: player failed to mount", e);
        }
      });
    };
    mountAll();
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mountAll, { once: true });
  } catch (e) {
    console.warn("frameline: boot failed", e);
  }
  return players;
}
