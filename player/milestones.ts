import { listen } from "./dom.ts";
import type { PlayerApi } from "./types.ts";

const MARKS = [25, 50, 75];

/**
 * The milestones of watched time, for every consumer (the analytics, the ad pixels):
 * 25, 50 and 75 % when playback crosses them and 100 at the end, each once per source,
 * as the bus's `milestone`. A seek crosses nothing, nor does a play that starts where
 * the viewer stopped before (resume): the first position of a play is `startAt`.
 */
export function milestones(player: PlayerApi): () => void {
  const video = player.video;
  const reached = new Set<number>();
  let last = 0;
  const reach = (percent: number) => {
    if (reached.has(percent)) return;
    reached.add(percent);
    player.emit("milestone", { percent });
  };
  const offs = [
    player.on("source", () => {
      reached.clear();
      last = 0;
    }),
    player.on("intent", () => (last = Math.max(last, player.startAt))),
    listen(video, "seeking", () => (last = video.currentTime)),
    listen(video, "timeupdate", () => {
      if (video.seeking) return;
      const now = video.currentTime;
      const d = video.duration;
      if (d > 0 && d < Infinity) for (const m of MARKS) if (last < (d * m) / 100 && now >= (d * m) / 100) reach(m);
      last = now;
    }),
    listen(video, "ended", () => reach(100)),
  ];
  return () => offs.forEach((f) => f());
}
