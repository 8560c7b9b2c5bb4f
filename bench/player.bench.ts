/**
 * Player startup (docs/architecture.md "What fast means here"): play intent → first frame, and bytes fetched
 * before play intent, in headless Chromium on a local HLS ladder (720p and 360p, the
 * master authored as the encoder writes it), next to hls.js alone on a bare page
 * (script loaded with the page, attached on click). The turbo row is the player with
 * turbo_options on (hls.js, its first segment fetched from the 360p rendition while
 * the page is idle). Each run is a fresh browser context (cold cache); medians are
 * reported, on the loopback network and under a throttled "fast mobile" profile.
 *
 *   node_modules/.bin/bun bench/player.bench.ts [runs]
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { PlayerConfig } from "../player/types.ts";
import { authorHls, folderFiles } from "../server/domains/encoding/hls-authoring.ts";
import { ROOT, buildCore, buildEntry, embedHtml, launchBrowser, makeHlsStream, page, serve, tempDir } from "../test/helpers/browser.ts";
import { measure, median, PROFILES } from "./lib/first-frame.ts";
// The flags a deploy of the turbo row's settings compiles with.
import { flagsFor } from "../test/helpers/browser.ts";

const RUNS = Math.min(20, Math.max(1, Number(process.argv[2]) || 5));
const CODE = "5a0e7d2c-1b3f-4c8e-9f00-benchbenchbe";
interface Variant {
  name: string;
  path: string;
  click: string;
}

async function main() {
  const dir = tempDir("fl-bench-");
  const browser = await launchBrowser();
  const server = serve({ "/media/": join(dir, "media"), "/cdn/p/": join(dir, "p"), "/vendor/": join(ROOT, "node_modules/hls.js/dist") });
  try {
    const [, , core] = await Promise.all([
      makeHlsStream(join(dir, "media/720p"), 6, "1280x720"),
      makeHlsStream(join(dir, "media/360p"), 6, "640x360"),
      buildCore(join(dir, "p")),
    ]);
    await authorHls(
      folderFiles(join(dir, "media")),
      [
        { uri: "720p/index.m3u8", width: 1280, height: 720 },
        { uri: "360p/index.m3u8", width: 640, height: 360 },
      ],
      { master: "master.m3u8", media: (uri) => uri },
    );
    const coreUrl = `${server.url}/cdn/p/${core.core}`;
    const stream = `${server.url}/media/master.m3u8`;
    const poster = `${server.url}/media/720p/poster.jpg`;
    const config = (engine: "hlsjs" | "auto", turbo = false): PlayerConfig => ({
      video: {
        id: 1,
        code: CODE,
        title: "Bench",
        workspace_code: "ws_bench",
        default_orientation: "landscape",
        plain_mode: false,
        landscape: { hls: stream, poster, w: 1280, h: 720 },
        portrait: null,
      },
      settings: {
        playback_options: { hls_engine: engine },
        continue_watching_options: { enabled: false },
        progress_options: { bar_color: "#ff8800", background_color: "#ffffff33" },
        style_options: { main_color: "#2563eb", background_color: "#000000" },
        ...(turbo ? { turbo_options: { enabled: true, preload_segments: 1 } } : {}),
      },
      playlist: null,
      events_url: server.url,
    });
    for (const [name, cfg] of [
      ["hlsjs", config("hlsjs")],
      ["auto", config("auto")],
      ["turbo", config("hlsjs", true)],
    ] as const) {
      server.route(`/cdn/p/${name}/${CODE}.js`, await buildEntry(cfg, coreUrl, flagsFor(cfg)), "text/javascript");
      server.route(`/player-${name}.html`, page(embedHtml(CODE, `${server.url}/cdn/p/${name}/${CODE}.js`)));
    }
    server.route(
      "/bare-hlsjs.html",
      page(
        `<video id="v" poster="/media/720p/poster.jpg" style="width:100%;aspect-ratio:16/9;background:#000" playsinline></video><button id="play">Play</button>`,
        `<script src="/vendor/hls.light.min.js"></script><script>document.addEventListener("click",function(e){if(e.target.id!=="play")return;var v=document.getElementById("v");var h=new Hls();h.loadSource(${JSON.stringify(stream)});h.attachMedia(v);v.play();});</script>`,
      ),
    );
    server.route(
      "/bare-native.html",
      page(
        `<video id="v" poster="/media/720p/poster.jpg" style="width:100%;aspect-ratio:16/9" playsinline></video><button id="play" onclick="var v=document.getElementById('v');v.src=${JSON.stringify(stream).replace(/"/g, "&quot;")};v.play()">Play</button>`,
      ),
    );

    const variants: Variant[] = [
      { name: "hls.js alone (bare page)", path: "/bare-hlsjs.html", click: "#play" },
      { name: "Frameline player, hls.js engine", path: "/player-hlsjs.html", click: ".fl-big" },
      { name: "Frameline player, auto engine", path: "/player-auto.html", click: ".fl-big" },
      { name: "Frameline player, turbo", path: "/player-turbo.html", click: ".fl-big" },
      { name: "native <video> alone (bare page)", path: "/bare-native.html", click: "#play" },
    ];
    const results: Record<
      string,
      Record<
        string,
        {
          startup_ms_median: number;
          startup_ms_runs: number[];
          moving_ms_median: number;
          bytes_before_play: number;
          script_bytes_before_play: number;
        }
      >
    > = {};
    for (const profile of Object.keys(PROFILES) as (keyof typeof PROFILES)[]) {
      results[profile] = {};
      const runs = new Map<string, number[]>(variants.map((v) => [v.name, []]));
      const moving = new Map<string, number[]>(variants.map((v) => [v.name, []]));
      // One discarded warm-up round, then the variants interleaved so browser warm-up favours none.
      for (let i = -1; i < RUNS; i++) {
        for (const v of variants) {
          const r = await measure(browser, server.url + v.path, v.click, profile);
          if (i < 0) continue;
          runs.get(v.name)!.push(Math.round(r.ms * 10) / 10);
          moving.get(v.name)!.push(Math.round(r.moving * 10) / 10);
          const list = runs.get(v.name)!;
          results[profile][v.name] = {
            startup_ms_median: median(list),
            startup_ms_runs: list,
            moving_ms_median: median(moving.get(v.name)!),
            bytes_before_play: r.bytes.total,
            script_bytes_before_play: r.bytes.scripts,
          };
        }
      }
    }

    const base = "hls.js alone (bare page)";
    console.log(`\nplayer startup: play intent → first frame, median of ${RUNS} cold runs (Chromium ${browser.version()})\n`);
    console.log("| network | page | startup ms | vs hls.js alone | moving ms | bytes before play (all) | script bytes before play |");
    console.log("|---|---|---:|---:|---:|---:|---:|");
    for (const [profile, rows] of Object.entries(results)) {
      for (const [name, r] of Object.entries(rows)) {
        const ratio = r.startup_ms_median / rows[base].startup_ms_median;
        console.log(
          `| ${profile} | ${name} | ${r.startup_ms_median.toFixed(1)} | ${ratio.toFixed(2)}x | ${r.moving_ms_median.toFixed(1)} | ${r.bytes_before_play} | ${r.script_bytes_before_play} |`,
        );
      }
    }
    const turbo = results.throttled["Frameline player, turbo"];
    const alone = results.throttled[base];
    console.log(
      `\nturbo, throttled: first frame ${(turbo.startup_ms_median / alone.startup_ms_median).toFixed(2)}x hls.js alone (target ≤ 0.6x), ` +
        `moving ${(turbo.moving_ms_median / alone.moving_ms_median).toFixed(2)}x`,
    );
    mkdirSync(join(ROOT, "bench/results"), { recursive: true });
    writeFileSync(
      join(ROOT, "bench/results/player.json"),
      JSON.stringify({ bench: "player-startup", at: new Date().toISOString(), chromium: browser.version(), runs: RUNS, baseline: base, results }, null, 2) +
        "\n",
    );
    console.log("\nwritten: bench/results/player.json");
  } finally {
    await browser.close();
    server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
