/**
 * Player startup of a protected video against the same video public (README "Playback
 * protection"): a clip uploaded and encoded by the real app (in this process, on the
 * embedded engines), twice; one video limited to pages on 127.0.0.1 with signed URLs, so
 * its player asks the events host for a token before it loads the manifest, and every
 * file it fetches is checked. Each is embedded with its snippet on a seller's page; play
 * intent → first frame in Chromium (hls.js engine), a fresh context per run, the two
 * interleaved, on the loopback network and under the throttled profile. Target: the
 * protected video within 1.1x of the public one, throttled.
 *
 *   node_modules/.bin/bun bench/protection.bench.ts [runs]
 */
import { startEncoder } from "../server/workers/encoder.ts";
import { testApp, UNLIMITED, type TestApp } from "../test/helpers/app.ts";
import { launchBrowser, page, serve } from "../test/helpers/browser.ts";
import { clip } from "../test/helpers/media.ts";
import { settledStatus } from "../test/helpers/status.ts";
import { measure, median, PROFILES } from "./lib/first-frame.ts";
import { report, type Row } from "./lib/report.ts";

const RUNS = Math.min(20, Math.max(1, Number(process.argv[2]) || 7));
const TARGET = 1.1;

let app: TestApp["app"] | undefined;
const api = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req) => app!.handle(req) });
const t = await testApp({ publicUrl: `http://127.0.0.1:${api.port}`, config: UNLIMITED });
app = t.app;
const ws = await t.workspace();
const stopEncoder = startEncoder(t.deps, { pollMs: 100 });
const browser = await launchBrowser();
const site = serve({});
try {
  const path = await clip("long");
  const pages: Record<"public" | "protected", string> = { public: "", protected: "" };
  for (const kind of ["public", "protected"] as const) {
    const video = await t.createVideo(ws, { title: `Startup, ${kind}` });
    if ((await t.upload(ws, video.id, path)).status !== 202) throw new Error("upload refused");
    if ((await settledStatus(t, ws.token, video.id)) !== "ready") throw new Error("encoding failed");
    // The hls.js engine in both, so the token's cost is not hidden behind the engine choice.
    const deployed = await t.call("POST", `/api/v1/videos/${video.id}/deploy`, { token: ws.token, body: { playback_options: { hls_engine: "hlsjs" } } });
    if (deployed.status !== 200) throw new Error(`deploy refused: ${JSON.stringify(deployed.body)}`);
    // A change of protection builds the player again, with the token request in it.
    if (kind === "protected") {
      const patched = await t.call("PATCH", `/api/v1/videos/${video.id}`, {
        token: ws.token,
        body: { allowed_origins: ["127.0.0.1"], require_signed_urls: true },
      });
      if (patched.status !== 200) throw new Error(`protection refused: ${JSON.stringify(patched.body)}`);
    }
    const embed = (await t.call("GET", `/api/v1/videos/${video.id}/embed`, { token: ws.token })).body.html as string;
    site.route(`/${kind}.html`, page(`<h1>Our offer</h1><div style="width:640px">${embed}</div>`));
    pages[kind] = `${site.url}/${kind}.html`;
  }

  const rows: Row[] = [];
  const summary: Record<string, number> = {};
  for (const profile of Object.keys(PROFILES) as (keyof typeof PROFILES)[]) {
    const runs = { public: [] as number[], protected: [] as number[] };
    // One discarded warm-up round, then the two interleaved so browser warm-up favours neither.
    for (let i = -1; i < RUNS; i++) {
      for (const kind of ["public", "protected"] as const) {
        const r = await measure(browser, pages[kind], ".fl-big", profile);
        if (i >= 0) runs[kind].push(Math.round(r.ms * 10) / 10);
      }
    }
    const ratio = median(runs.protected) / median(runs.public);
    summary[profile] = Number(ratio.toFixed(3));
    rows.push(
      { network: profile, video: "public", "startup ms (median)": median(runs.public), runs: runs.public.join(" ") },
      { network: profile, video: "protected (origin + token)", "startup ms (median)": median(runs.protected), runs: runs.protected.join(" ") },
      { network: profile, video: "ratio (protected / public)", "startup ms (median)": `${ratio.toFixed(2)}x`, runs: "" },
    );
  }
  await report(
    "protection",
    `Player startup, protected against public: play intent → first frame, median of ${RUNS} cold runs (Chromium ${browser.version()})`,
    rows,
    {
      ratio_loopback: summary.loopback,
      ratio_throttled: summary.throttled,
      target: `throttled <= ${TARGET}`,
      met: summary.throttled! <= TARGET,
    },
  );
} finally {
  await browser.close();
  await stopEncoder();
  site.stop();
  api.stop(true);
}
process.exit(0);
