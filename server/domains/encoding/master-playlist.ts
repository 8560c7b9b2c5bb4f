/**
 * The master playlist for ffmpeg builds that cannot write one (see
 * `Config.media.legacyHls`): rendition folders renamed from `<index>` to the
 * rung's name, and BANDWIDTH measured from the segments as ffmpeg would.
 */
import { rename, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Plan } from "./ladder.ts";

export async function finishLegacyLayout(outDir: string, plan: Plan): Promise<void> {
  const lines = ["#EXTM3U", "#EXT-X-VERSION:6", "#EXT-X-INDEPENDENT-SEGMENTS"];
  for (const [i, rung] of plan.rungs.entries()) {
    await rename(join(outDir, String(i)), join(outDir, rung.name));
    const { peak, average } = await bitrates(join(outDir, rung.name));
    lines.push(`#EXT-X-STREAM-INF:BANDWIDTH=${peak},AVERAGE-BANDWIDTH=${average},RESOLUTION=${rung.width}x${rung.height}`, `${rung.name}/index.m3u8`);
  }
  await Bun.write(join(outDir, "master.m3u8"), lines.join("\n") + "\n");
}

/** Peak and average bits per second over a variant playlist's segments. */
async function bitrates(dir: string): Promise<{ peak: number; average: number }> {
  const playlist = await Bun.file(join(dir, "index.m3u8")).text();
  let peak = 0;
  let bits = 0;
  let seconds = 0;
  let duration = 0;
  for (const line of playlist.split("\n")) {
    const extinf = /^#EXTINF:([\d.]+)/.exec(line);
    if (extinf) duration = Number(extinf[1]);
    else if (line && !line.startsWith("#") && duration > 0) {
      const size = (await stat(join(dir, line.trim()))).size * 8;
      peak = Math.max(peak, size / duration);
      bits += size;
      seconds += duration;
      duration = 0;
    }
  }
  return { peak: Math.ceil(peak), average: Math.ceil(seconds > 0 ? bits / seconds : 0) };
}
