/**
 * The web dashboard (issue 7): a Preact app in dashboard/, bundled by esbuild
 * on the first request and kept in memory. It holds no server-side state and
 * talks only to /admin/v1 and /api/v1 like any other client, so this module
 * only serves HTML and built assets.
 */
import * as esbuild from "esbuild";
import { createModule } from "../../http/module.ts";
import { join } from "node:path";
import type { Deps } from "../../deps.ts";

const ROOT = join(import.meta.dir, "..", "..", "..", "dashboard");

interface Bundle {
  /** File name → built asset. */
  files: Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>;
  app: { js: string; css: string };
  preview: string;
}

const TYPES: Record<string, string> = { js: "text/javascript; charset=utf-8", css: "text/css; charset=utf-8" };

async function build(): Promise<Bundle> {
  const result = await esbuild.build({
    entryPoints: { app: join(ROOT, "main.tsx"), preview: join(ROOT, "preview.ts") },
    bundle: true,
    format: "esm",
    minify: true,
    write: false,
    outdir: "/out",
    entryNames: "[name]-[hash]",
    jsx: "automatic",
    jsxImportSource: "preact",
    target: ["es2022"],
    logLevel: "silent",
    metafile: false,
  });
  const files = new Map<string, { body: Uint8Array<ArrayBuffer>; type: string }>();
  let js = "",
    css = "",
    preview = "";
  for (const f of result.outputFiles) {
    const name = f.path.split("/").pop()!;
    const ext = name.split(".").pop()!;
    files.set(name, { body: f.contents as Uint8Array<ArrayBuffer>, type: TYPES[ext] || "application/octet-stream" });
    if (name.startsWith("app-") && ext === "js") js = name;
    else if (name.startsWith("app-") && ext === "css") css = name;
    else if (name.startsWith("preview-") && ext === "js") preview = name;
  }
  if (!js || !preview) throw new Error("dashboard build produced no entry");
  return { files, app: { js, css }, preview };
}

const origin = (url: string | undefined) => {
  try {
    return url ? new URL(url).origin : "";
  } catch {
    return "";
  }
};

/** The HTML of a dashboard page: `meta` goes before the title, `head` (stylesheets, scripts) after it. */
function htmlPage({ meta = "", title, head, body }: { meta?: string; title: string; head: string; body: string }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${meta}<title>${title}</title>
<link rel="icon" href="data:,">
${head}
</head>
<body>${body}</body>
</html>`;
}

export function dashboardModule(deps: Deps) {
  let bundle: Promise<Bundle> | undefined;
  const built = () => {
    bundle ??= build().catch((error) => {
      bundle = undefined; // a failed build is retried on the next request
      deps.log.error("dashboard build failed", { error: String(error) });
      throw error;
    });
    return bundle;
  };

  // The page itself runs only our bundle; the preview frame also runs the
  // player, which loads from PUBLIC_URL or CDN_URL (and media from S3 when
  // configured) and injects its own stylesheet.
  const common = "base-uri 'none'; object-src 'none'; form-action 'self'";
  const appCsp = `default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; font-src 'self'; manifest-src 'self'; frame-ancestors 'none'; ${common}`;
  const player = [origin(deps.config.publicUrl), origin(deps.config.cdnUrl), origin(deps.config.s3?.publicBaseUrl)].filter(Boolean).join(" ");
  const previewCsp =
    `default-src 'none'; script-src 'self' ${player}; style-src 'self' 'unsafe-inline'; img-src 'self' ${player} data: blob:; ` +
    `media-src 'self' ${player} blob:; connect-src 'self' ${player}; worker-src 'self' blob:; frame-ancestors 'self'; ${common}`;
  const headers = (csp: string) => ({
    "Content-Type": "text/html; charset=utf-8",
    "Content-Security-Policy": csp,
    "Cache-Control": "no-store",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
  });

  const shell = async () => {
    const { app } = await built();
    const html = htmlPage({
      meta: `<meta name="color-scheme" content="light">\n`,
      title: "Frameline dashboard",
      head: `${app.css ? `<link rel="stylesheet" href="/dashboard/assets/${app.css}">` : ""}
<script type="module" src="/dashboard/assets/${app.js}"></script>`,
      body: `
<div id="app"><noscript>The Frameline dashboard needs JavaScript.</noscript></div>
`,
    });
    return new Response(html, { headers: headers(appCsp) });
  };

  const previewPage = async () => {
    const { preview } = await built();
    const html = htmlPage({
      title: "Player preview",
      head: `<link rel="stylesheet" href="/dashboard/assets/preview.css">
<script type="module" src="/dashboard/assets/${preview}"></script>`,
      body: `<main id="preview" aria-live="polite">Loading the player…</main>`,
    });
    return new Response(html, { headers: headers(previewCsp) });
  };

  const hide = { detail: { hide: true } };
  return createModule("dashboard")
    .get("/dashboard", shell, hide)
    .get("/dashboard/preview", previewPage, hide)
    .get(
      "/dashboard/assets/:file",
      async ({ params }) => {
        // A tiny fixed stylesheet keeps the preview page free of inline styles.
        if (params.file === "preview.css") {
          return new Response("html,body{margin:0;background:#f3f4f6;font:14px system-ui,sans-serif}main{padding:8px}", {
            headers: { "Content-Type": TYPES.css, "Cache-Control": "public, max-age=3600" },
          });
        }
        const file = (await built()).files.get(params.file);
        if (!file) return new Response("Not found", { status: 404 });
        // Names carry a content hash, so they never change under a client.
        return new Response(file.body, {
          headers: { "Content-Type": file.type, "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" },
        });
      },
      hide,
    )
    .get("/dashboard/*", shell, hide);
}
