import type { Feature } from "../types.ts";

/**
 * Funnels (docs/api.md "Funnels"): a quiz choice or a CTA card that names
 * `next_video_code` emits `next_video` (after sending its step, which carries the
 * code); this swaps the player to that video in place, without a page load. The
 * player is destroyed (its last batch leaves under its own video), its element takes
 * the next code, and that video's own entry script, beside this one with the same
 * query, mounts into it with its own deployed settings. Both players share the
 * page's `window.Frameline`, so the next video's events carry the same session and
 * device ids. The viewer's click was the play intent: the next player plays once
 * ready. A script that does not load brings this video back.
 *
 * @example
 *   if (__FL_FEATURES__.funnel) features.push(funnel(scriptUrl()));
 */
export const funnel = (script: string): Feature => ({
  name: "funnel",
  setup(player) {
    return player.on("next_video", ({ code }) => {
      const mount = player.mount;
      const from = player.config.video.code;
      const load = (to: string, onerror?: () => void) => {
        mount.removeAttribute("data-fl-mounted");
        mount.setAttribute("data-video", to);
        const src = new URL(`${encodeURIComponent(to)}.js`, script);
        src.search = new URL(script).search;
        const tag = document.createElement("script");
        tag.async = true;
        tag.src = src.href;
        if (onerror) tag.onerror = onerror;
        document.head.appendChild(tag);
      };
      player.destroy();
      load(code, () => load(from));
      window.Frameline?.player(code).play();
    });
  },
});
