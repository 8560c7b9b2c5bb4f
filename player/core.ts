import type { Feature, PlayerConfig } from "./types.ts";
import type { FramelineGlobal } from "./track.ts";
import { resolveIdentity, type Identity } from "./identity.ts";
import { createGlobal } from "./track.ts";
import { injectCss } from "./styles.ts";
import { Player } from "./player.ts";

export type { Feature, PlayerConfig, PlayerApi } from "./types.ts";
export { Player } from "./player.ts";

declare global {
  interface Window {
    Frameline?: FramelineGlobal;
  }
}

let identity: Identity | undefined;

/**
 * Mounts a player into every `.frameline-player[data-video="<code>"]` under
 * `root` that has none yet, now and (while the page is still parsing) again
 * at DOMContentLoaded, since the async script may run before its div exists.
 * Also installs `window.Frameline` once per page. Never throws into the page.
 *
 * @example
 * import("https://cdn.example/cdn/p/core-abc.js").then((core) => core.boot(config, [chapters]));
 */
export function boot(config: PlayerConfig, features: Feature[] = [], root: ParentNode = document): Player[] {
  const players: Player[] = [];
  try {
    identity ||= resolveIdentity();
    if (!window.Frameline) window.Frameline = createGlobal(config.events_url, config.video.workspace_code, identity);
    const mountAll = () => {
      injectCss(document);
      root.querySelectorAll<HTMLElement>(`.frameline-player[data-video="${CSS.escape(config.video.code)}"]`).forEach((el) => {
        if (el.hasAttribute("data-fl-mounted")) return;
        el.setAttribute("data-fl-mounted", "");
        try {
          players.push(new Player(el, config, features, identity!));
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
