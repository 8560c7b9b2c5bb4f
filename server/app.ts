/**
 * createApp(deps): the root Elysia app. It never listens and never reads the
 * environment, so tests build it from a literal config and call `app.handle`.
 */
import { Elysia } from "elysia";
import { openapi } from "@elysiajs/openapi";
import { join } from "node:path";
import type { Deps } from "./deps.ts";
import { errorsPlugin } from "./http/errors-plugin.ts";
import { adminModule } from "./modules/admin/index.ts";
import { foldersModule } from "./modules/folders/index.ts";
import { videosModule } from "./modules/videos/index.ts";

const SCALAR_BUNDLE = join(import.meta.dir, "..", "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js");

export interface AppOptions {
  adminKey: string;
}

export function createApp(deps: Deps, options: AppOptions) {
  const api = new Elysia({ prefix: "/api/v1" }).use(videosModule(deps)).use(foldersModule(deps));

  return new Elysia()
    .use(errorsPlugin(deps.log))
    .get("/health", () => ({ ok: true }), { detail: { hide: true } })
    // The docs page loads its UI from this process, so it works offline.
    .get("/api/v1/docs/scalar.js", () => new Response(Bun.file(SCALAR_BUNDLE), { headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=86400" } }), {
      detail: { hide: true },
    })
    .use(
      openapi({
        path: "/api/v1/docs",
        specPath: "/api/v1/openapi.json",
        provider: "scalar",
        scalar: { cdn: "/api/v1/docs/scalar.js" } as never,
        exclude: { paths: ["/health", "/api/v1/docs/scalar.js"] },
        documentation: {
          info: {
            title: "Frameline API",
            version: "1.0.0",
            description:
              "Videos, uploads, settings, playlists, conversions, events, analytics, exports and webhooks. " +
              "Authenticate with `Authorization: Bearer flt_...` or `X-API-Key: flt_...`. Errors use `{error: {code, message}}`; " +
              "422 validation errors use `{message, errors: {field: [text]}}`.",
          },
          servers: [{ url: deps.config.publicUrl }],
          components: {
            securitySchemes: {
              bearer: { type: "http", scheme: "bearer", description: "A scoped token (flt_...)." },
              apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
            },
          },
          security: [{ bearer: [] }, { apiKey: [] }],
        },
      }),
    )
    .use(adminModule(deps, options.adminKey))
    .use(api);
}

export type App = ReturnType<typeof createApp>;
