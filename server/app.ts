/**
 * createApp(deps): the root Elysia app. It never listens and never reads the
 * environment, so tests build it from a literal config and call `app.handle`.
 */
import { Elysia } from "elysia";
import { join } from "node:path";
import type { Deps } from "./deps.ts";
import { errorsPlugin } from "./http/errors-plugin.ts";
import { requestMetrics } from "./http/metrics.ts";
import { openapiWithErrors } from "./http/openapi-docs.ts";
import { requestLimitsPlugin } from "./http/request-limits.ts";
import { countRefused } from "./ingest/outcomes.ts";
import { adminModule } from "./api/admin/index.ts";
import { accountsModule } from "./api/accounts/index.ts";
import { foldersModule } from "./api/folders/index.ts";
import { videosModule } from "./api/videos/index.ts";
import { publishVideo } from "./domains/publish/service.ts";
import { queueEncryption } from "./domains/encoding/service.ts";
import { playbackTokenModule } from "./api/videos/playback-token.ts";
import { playbackDefaultsModule } from "./api/playback-defaults/index.ts";
import { signingKeysModule } from "./api/signing-keys/index.ts";
import { settingsModule } from "./api/settings/index.ts";
import { playlistsModule } from "./api/playlists/index.ts";
import { cdnModule } from "./hosts/cdn/index.ts";
import { analyticsModule } from "./api/analytics/index.ts";
import { liveModule } from "./api/analytics/live.ts";
import { adSpendModule } from "./api/ad-spend/index.ts";
import { exportsModule } from "./api/exports/index.ts";
import { uploadsModule } from "./api/uploads/index.ts";
import { mediaModule } from "./hosts/media/index.ts";
import { eventsModule } from "./hosts/events/index.ts";
import { browserConversionModule, conversionsModule } from "./api/conversions/index.ts";
import { ingestAdminModule } from "./api/admin/ingest.ts";
import { processesAdminModule } from "./api/admin/processes.ts";
import { trackerModule } from "./hosts/events/tracker-route.ts";
import { webhooksModule } from "./api/webhooks/index.ts";
import { automationModule } from "./api/automation/index.ts";
import { dashboardModule } from "./hosts/dashboard/index.ts";
import { probesModule } from "./hosts/probes/index.ts";
import { splitTestAssignModule, splitTestsModule } from "./api/split-tests/index.ts";
import { viewersModule } from "./api/viewers/index.ts";
import { funnelsModule } from "./api/funnels/index.ts";

const SCALAR_BUNDLE = join(import.meta.dir, "..", "node_modules", "@scalar", "api-reference", "dist", "browser", "standalone.js");

export interface AppOptions {
  adminKey: string;
}

export function createApp(deps: Deps, options: AppOptions) {
  const requests = requestMetrics(deps.metrics);
  const api = new Elysia({ prefix: "/api/v1" })
    // A change of a video's protection builds its player again (it checks the site and asks for tokens).
    .use(
      videosModule(
        deps,
        (workspaceId, videoId) => publishVideo(deps, workspaceId, videoId),
        (videoId) => queueEncryption(deps, videoId),
      ),
    )
    .use(foldersModule(deps))
    .use(settingsModule(deps))
    .use(playlistsModule(deps))
    .use(webhooksModule(deps))
    .use(automationModule(deps))
    .use(conversionsModule(deps))
    .use(uploadsModule(deps))
    .use(analyticsModule(deps))
    .use(liveModule(deps))
    .use(adSpendModule(deps))
    .use(exportsModule(deps))
    .use(splitTestsModule(deps))
    .use(playbackDefaultsModule(deps))
    .use(signingKeysModule(deps))
    .use(viewersModule(deps))
    .use(funnelsModule(deps));

  return (
    new Elysia()
      // First, so its clock starts before any other hook runs.
      .use(requests.plugin)
      .use(
        errorsPlugin(deps.log, (request, error, route) => {
          countRefused(deps, request, error);
          requests.refused(request, route, error.status);
        }),
      )
      .use(requestLimitsPlugin(deps.config.bodyTimeoutMs))
      .use(probesModule(deps))
      // The docs page loads its UI from this process, so it works offline.
      .get(
        "/api/v1/docs/scalar.js",
        () =>
          new Response(Bun.file(SCALAR_BUNDLE), { headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=86400" } }),
        {
          detail: { hide: true },
        },
      )
      .use(
        openapiWithErrors({
          path: "/api/v1/docs",
          specPath: "/api/v1/openapi.json",
          provider: "scalar",
          // An absolute spec URL: the plugin's default is relative and resolves to /api/v1/api/v1/openapi.json from this page.
          // The plugin's type marks every Scalar option required, though Scalar defaults them.
          scalar: { cdn: "/api/v1/docs/scalar.js", url: "/api/v1/openapi.json" } as never,
          exclude: { paths: ["/health", "/api/v1/docs/scalar.js"] },
          documentation: {
            info: {
              title: "Frameline API",
              version: "1.0.0",
              description:
                "Videos, uploads, settings, playlists, conversions, events, analytics, exports and webhooks. " +
                "Authenticate with `Authorization: Bearer flt_...` or `X-API-Key: flt_...`. Errors use `{error: {code, message}}` (ApiError); " +
                "the events host (`/v1/...`) uses `{error: CODE, message}` (EventsError); 422 validation errors use `{message, errors: {field: [text]}}` " +
                '(ValidationError); some 404s use `{message: "No query results for model [<Model>] <id>"}` (ModelNotFound). Tell a 404 by its status.',
            },
            servers: [{ url: deps.config.publicUrl }],
            components: {
              securitySchemes: {
                bearer: { type: "http", scheme: "bearer", description: "A scoped token (flt_...)." },
                apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
                sessionCookie: {
                  type: "apiKey",
                  in: "cookie",
                  name: "fl_session",
                  description: 'The dashboard\'s session (README "The dashboard"); calls that change something also send `X-CSRF-Token`.',
                },
                metricsToken: {
                  type: "http",
                  scheme: "bearer",
                  description: 'METRICS_TOKEN (README "Probes and metrics"); `/metrics` is open while it is unset.',
                },
              },
            },
            security: [{ bearer: [] }, { apiKey: [] }],
          },
        }),
      )
      .use(adminModule(deps, options.adminKey))
      .use(accountsModule(deps))
      .use(cdnModule(deps))
      .use(ingestAdminModule(deps, options.adminKey))
      .use(processesAdminModule(deps, options.adminKey))
      .use(eventsModule(deps))
      .use(browserConversionModule(deps))
      .use(playbackTokenModule(deps))
      .use(splitTestAssignModule(deps))
      .use(trackerModule())
      .use(mediaModule(deps))
      .use(dashboardModule(deps))
      .use(api)
  );
}

export type App = ReturnType<typeof createApp>;
