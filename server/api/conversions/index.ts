/**
 * `POST /api/v1/conversions` (docs/api.md "Conversions (server to server)") and the
 * public browser fallback `POST /v1/conversion` on the events host.
 */
import { createModule } from "../../http/module.ts";
import type { Deps } from "../../deps.ts";
import { ApiError, Errors, REFUSED_VALUE, StorageOutcomes } from "../../errors.ts";
import { storageFailure } from "../../storage/postgres.ts";
import { authPlugin } from "../../http/auth.ts";
import { idempotent } from "../../http/idempotency.ts";
import { countAccepted } from "../../ingest/outcomes.ts";
import { browserPreflight } from "../../http/cors.ts";
import { browserRoute, clientIp, limit, perMinute, type SocketInfo } from "../../hosts/events/http.ts";
import { BrowserConversionBody, BrowserConversionReply, ConversionBody, ConversionReply } from "./model.ts";
import { recordBrowser, recordVerified, UnavailableError } from "./service.ts";
import { documented } from "../../http/openapi-docs.ts";

export function conversionsModule(deps: Deps) {
  const routes = createModule("conversions", { tag: "Conversions" }).use(authPlugin(deps));
  return routes.post(
    "/conversions",
    ({ auth, body, request, set }) =>
      idempotent(deps, { auth, request, set }, body, async () => {
        try {
          return { status: 201, body: await recordVerified(deps, auth.workspaceId, body) };
        } catch (error) {
          if (error instanceof ApiError) throw error;
          // A value the database refused as malformed is the client's (a backstop: edges check every value).
          if (storageFailure(error) === "invalidData") throw StorageOutcomes.invalidData();
          deps.log.error("conversion write failed", { error: error instanceof Error ? error.message : String(error) });
          throw Errors.conversionNotWritten();
        }
      }),
    {
      scope: "conversions:write",
      // Named explicitly: with hooks on the route Elysia's OpenAPI otherwise lists no body content type.
      parse: "json",
      body: ConversionBody,
      detail: {
        summary: "Record a sale (server to server)",
        description:
          "Verified. Send `Idempotency-Key`. The ledger keys a sale by `conversion_data.integration` (default `api`) and `conversion_id`: a repeat never " +
          "double-counts and a postback for the same integration and order as a browser-fallback row replaces it (the verified row wins, in either order). " +
          "A recorded sale fans out `conversion` and `conversion.created`. 404 echoes `video_code`; currency exactly 3 characters and split-test ids " +
          "both-or-neither are 422. 503 WRITE_FAILED when it could not be written: retry with the same key.",
        responses: documented("api", [400, 404, 409, 422]),
      },
      response: { 201: ConversionReply },
    },
  );
}

export function browserConversionModule(deps: Deps) {
  const ipRule = perMinute("conversion_ip", deps.config.eventLimits.browserConversionPerIpPerMinute);

  const record = async (body: BrowserConversionBody, request: Request, server: SocketInfo | null) => {
    await limit(deps, [{ key: `ip:${clientIp(deps, request, server)}`, rule: ipRule }]);
    let outcome: Awaited<ReturnType<typeof recordBrowser>>;
    try {
      outcome = await recordBrowser(deps, body);
    } catch (error) {
      if (error instanceof ApiError) throw error;
      if (error instanceof UnavailableError) throw Errors.integrationLookupUnavailable();
      if (storageFailure(error) === "invalidData") throw Errors.invalidPayload(REFUSED_VALUE);
      deps.log.error("browser conversion write failed", { error: error instanceof Error ? error.message : String(error) });
      throw Errors.browserConversionNotWritten();
    }
    if (outcome === "integration_not_found") throw Errors.integrationNotFound(body.integration);
    if (outcome === "fallback_disabled") throw Errors.fallbackDisabled(body.integration);
    return { ok: true, id: outcome.id, conversion_source: "browser" as const, verified: false as const, attributed: outcome.attributed };
  };

  return createModule("browser-conversion", { tag: "Events host" })
    .options("/v1/conversion", browserPreflight, { detail: { hide: true } })
    .post(
      "/v1/conversion",
      async ({ body, request, server }) => {
        const recorded = await record(body, request, server as SocketInfo | null);
        countAccepted(deps, "/v1/conversion");
        return recorded;
      },
      {
        ...browserRoute(BrowserConversionBody),
        detail: {
          summary: "Browser conversion fallback (no token)",
          description:
            "Public and CORS-enabled; 60 requests per minute per IP. Records an unverified row keyed `<integration>:<order_id>`: excluded from revenue, " +
            "fans out nothing; a retry changes nothing and a later verified postback for the same integration and order replaces it. " +
            "Unknown fields: 400 INVALID_PAYLOAD. 404 INTEGRATION_NOT_FOUND, 403 FALLBACK_DISABLED, 503 UNAVAILABLE (lookup down), 429 RATE_LIMITED.",
          security: [],
          responses: documented("browser", [403, 404, 500, 503]),
        },
        response: { 200: BrowserConversionReply },
      },
    );
}
