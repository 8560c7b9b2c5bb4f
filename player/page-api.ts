/**
 * The player's side of the page API (`window.Frameline.player()`, browser/frameline.ts):
 * a control over the facade, registered once the player is ready, and the
 * player's events forwarded to the page: play, pause, ended, timeupdate (at
 * most 4 a second), timed_event, cta_click, lead and quiz_answer.
 */
import { dispatchToPage, registerPlayer, unregisterPlayer, type PlayerControl } from "../browser/frameline.ts";
import { listen } from "./dom.ts";
import type { PlayerApi } from "./types.ts";

const TIMEUPDATE_EVERY_MS = 250;

/** Connects one player to the page; returns the teardown. */
export function connectPage(player: PlayerApi): () => void {
  const video = player.video;
  const control: PlayerControl = {
    code: player.config.video.code,
    play: () => player.play(),
    pause: () => video.pause(),
    seek: (seconds) => player.seek(seconds),
    unlock: () => player.emit("unlock", undefined),
    get currentTime() {
      return video.currentTime;
    },
    get duration() {
      return video.duration;
    },
    get muted() {
      return video.muted;
    },
    set muted(value) {
      video.muted = !!value;
    },
  };
  const send = (name: Parameters<typeof dispatchToPage>[1], data?: Record<string, unknown>) => dispatchToPage(control, name, data);
  const at = () => ({ currentTime: video.currentTime, duration: video.duration });
  let lastTick = 0;
  const off = [
    player.on("ready", () => registerPlayer(control)),
    listen(video, "play", () => send("play", at())),
    listen(video, "pause", () => !video.ended && send("pause", at())),
    listen(video, "ended", () => send("ended", at())),
    listen(video, "timeupdate", () => {
      const now = performance.now();
      if (now - lastTick < TIMEUPDATE_EVERY_MS) return;
      lastTick = now;
      send("timeupdate", at());
    }),
    player.on("timed_event", (e) => send("timed_event", { ...e })),
    player.on("collect", ({ type, fields }) => type === "cta_click" && send("cta_click", { ...fields })),
    player.on("lead", (lead) => send("lead", { ...lead })),
    player.on("quiz_answer", (answer) => send("quiz_answer", answer)),
  ];
  return () => {
    off.forEach((f) => f());
    unregisterPlayer(control);
  };
}
