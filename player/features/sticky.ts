import type { Feature } from "../types.ts";
import { el, on, style } from "./lib/style.ts";

/**
 * sticky_options {position, width_px}: while the player is scrolled out of
 * view and playing, it floats as a mini player in the chosen corner, with a
 * close button that docks it back for the rest of the visit; the page keeps
 * its place (the mount holds the player's height).
 */
export const sticky: Feature = {
  name: "sticky",
  setup(player) {
    if (typeof IntersectionObserver !== "function") return;
    const o = player.settings.sticky_options || {};
    const corner = o.position || "bottom-right";
    const [v, h] = corner.split("-");
    style(
      "fl-css-sticky",
      ".fl-sticky{position:fixed!important;z-index:2147483000;max-width:calc(100vw - 32px)!important;box-shadow:0 6px 24px #0009}" +
        ".fl-sticky-x{display:none;position:absolute;top:4px;right:4px;z-index:4;width:28px;height:28px;border:0;border-radius:50%;background:#000b;color:#fff;font:18px/1 sans-serif;cursor:pointer}.fl-sticky .fl-sticky-x{display:block}",
    );
    const { root, mount, video } = player;
    const close = el("button", "fl-sticky-x", root, "×");
    close.type = "button";
    close.setAttribute("aria-label", "Close the mini player");
    let visible = true;
    let closed = false;
    const update = () => {
      const float = !visible && !closed && !video.paused && !video.ended;
      if (float === root.classList.contains("fl-sticky")) return;
      if (float) {
        mount.style.minHeight = `${root.offsetHeight}px`;
        root.classList.add("fl-sticky");
        Object.assign(root.style, { width: `${o.width_px ?? 320}px`, [v!]: "16px", [h!]: "16px" });
      } else {
        root.classList.remove("fl-sticky");
        for (const p of ["width", v!, h!]) root.style.removeProperty(p);
        mount.style.removeProperty("min-height");
      }
    };
    close.onclick = () => {
      closed = true;
      update();
    };
    const observer = new IntersectionObserver(
      ([entry]) => {
        visible = !!entry?.isIntersecting;
        update();
      },
      { threshold: 0 },
    );
    observer.observe(mount);
    const off = on(video, "play pause ended", update);
    return () => {
      observer.disconnect();
      off();
      close.remove();
      closed = true;
      update();
    };
  },
};
