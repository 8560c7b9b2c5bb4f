import type { Feature } from "../types.ts";
import { on, style } from "./lib/style.ts";

/**
 * cloak_options: the sales-letter player that cannot be skipped ahead. The
 * progress bar, time and chapter marks are hidden (root class `fl-cloaked`,
 * which the controls honour too) and a seek ahead of what was watched is
 * undone, whatever asked for it (native controls, media keys); seeks asked
 * through `seek()` (the page API, a replay) and seeks back are let through.
 * Play/pause and volume stay. A resumed play (continue watching, resume on any
 * device) starts where the viewer stopped: that much counts as watched.
 */
export const cloak: Feature = {
  name: "cloak",
  setup(player) {
    style("fl-css-cloak", ".fl-cloaked .fl-track,.fl-cloaked .fl-time,.fl-cloaked .fl-mark,.fl-cloaked .fl-chapter{display:none!important}");
    const video = player.video;
    player.root.classList.add("fl-cloaked");
    let asked = -1;
    let watched = 0;
    let started = false;
    const offs = [
      player.on("seek", ({ to }) => (asked = to)),
      player.on("source", () => {
        started = false;
        watched = 0;
      }),
      // A play starts at startAt (resume, start_time_s, a page's seek): the player's own seek there is no skip.
      player.on("intent", () => (watched = Math.max(watched, player.startAt))),
      on(video, "playing", () => (started = true)),
      on(video, "timeupdate", () => {
        if (!video.seeking && video.currentTime > watched && video.currentTime - watched < 2) watched = video.currentTime;
      }),
      on(video, "seeking", () => {
        const t = video.currentTime;
        if (Math.abs(t - asked) < 0.5) {
          asked = -1;
          watched = Math.max(watched, t);
          return;
        }
        if (started && t > watched + 1) video.currentTime = watched;
      }),
    ];
    return () => {
      offs.forEach((f) => f());
      player.root.classList.remove("fl-cloaked");
    };
  },
};
