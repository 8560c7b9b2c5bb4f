/**
 * Deploy (merge + validate + compile + push to both CDN targets + version
 * snapshot, through the real settings service on embedded Postgres and fs
 * targets) against esbuild building the same entry with the same defines alone.
 * Target (issue 4): deploy p50 < 150 ms.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../server/config.ts";
import { createDeps } from "../server/runtime.ts";
import { deploy } from "../server/api/settings/service.ts";
import { createVideo } from "../server/api/videos/service.ts";
import { withDefaults } from "../contract/settings.ts";
import { buildEntry, coreFor, DEFAULT_SOURCES } from "../compiler/build.ts";
import { playerConfig } from "../compiler/config.ts";
import { featureFlags } from "../compiler/flags.ts";
import { report } from "./lib/report.ts";

const N = Number(process.env.BENCH_RUNS ?? 50);

const dataDir = await mkdtemp(join(tmpdir(), "frameline-deploy-bench-"));
const deps = await createDeps(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: "warn" }));
try {
  const [ws] =
    await deps.sql`INSERT INTO workspaces (code, name, legacy_key_hash) VALUES (${crypto.randomUUID()}, 'bench', ${crypto.randomUUID().replaceAll("-", "").padEnd(64, "0")}) RETURNING id, code`;
  const video = await createVideo(deps, ws!.id, { title: "Deploy bench" });
  // A realistic payload: theme colours, chapters and a CTA card, so feature code is in the bundle.
  const payload = (i: number) => ({
    style_options: { main_color: `#${(0x100000 + i * 9973).toString(16).slice(-6)}` },
    chapters_options: {
      enabled: true,
      chapters: [
        { time_s: 0, title: "Intro" },
        { time_s: 30, title: "Offer" },
      ],
    },
    cta_cards_options: { enabled: true, cards: [{ time_s: 20, text: "Buy now", button_text: "Buy", url: "https://shop.example/buy" }] },
  });

  // Cold start (esbuild service + core build + first pushes), reported apart from the runs.
  const cold0 = performance.now();
  await deploy(deps, ws!.id, video.id, payload(0));
  const coldMs = performance.now() - cold0;

  const ours: number[] = [];
  for (let i = 1; i <= N; i++) {
    const t0 = performance.now();
    await deploy(deps, ws!.id, video.id, payload(i));
    ours.push(performance.now() - t0);
  }

  // The baseline builds the very entry the last deploy built: same source, same defines.
  const [row] = await deps.sql`SELECT * FROM videos WHERE id = ${video.id}`;
  const settings = withDefaults(row!.settings);
  const flags = featureFlags(settings);
  const config = playerConfig({ video: row as never, workspaceCode: ws!.code, settings, flags, itemMedia: [] });
  const core = await coreFor(DEFAULT_SOURCES.core);
  const base: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = performance.now();
    await buildEntry(DEFAULT_SOURCES.entry, config, core.coreFile, flags);
    base.push(performance.now() - t0);
  }

  const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const entry = await deps.blobs.cdnA.head(`p/${video.code}.js`);
  const ratio = pct(ours, 50) / pct(base, 50);
  await report(
    "deploy",
    `Deploy (real settings service: merge, validate, compile, push to both fs CDN targets, version) vs esbuild building the same entry alone — N=${N} each, entry ${entry?.size ?? "?"} B`,
    [
      { target: "Frameline deploy", "p50 ms": pct(ours, 50), "p95 ms": pct(ours, 95), "max ms": Math.max(...ours) },
      { target: "esbuild alone, same entry + defines", "p50 ms": pct(base, 50), "p95 ms": pct(base, 95), "max ms": Math.max(...base) },
      { target: "ratio (deploy / esbuild)", "p50 ms": `${ratio.toFixed(2)}x`, "p95 ms": `${(pct(ours, 95) / pct(base, 95)).toFixed(2)}x`, "max ms": "" },
    ],
    { cold_first_deploy_ms: Math.round(coldMs), target_p50_ms: 150, met: pct(ours, 50) < 150, player_sources: DEFAULT_SOURCES },
  );
} finally {
  await deps.close();
  await rm(dataDir, { recursive: true, force: true });
}
process.exit(0);
