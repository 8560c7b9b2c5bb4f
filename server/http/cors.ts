/** CORS for the browser paths of the events host (player, tracker, conversion fallback). */
export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type",
  "Access-Control-Max-Age": "86400",
} as const;

/** A route hook (run before validation) that adds them to the answer. */
export const withCors = ({ set }: { set: { headers: Record<string, string | number> } }): void => void Object.assign(set.headers, CORS_HEADERS);

/** The answer to their preflight: 204 with the headers above. */
export const browserPreflight = ({ set }: { set: { status?: number | string; headers: Record<string, string | number> } }): string => {
  Object.assign(set.headers, CORS_HEADERS);
  set.status = 204;
  return "";
};

/**
 * CORS of the files customers' pages load from this process (`/media/*` HLS and
 * posters, `/cdn/*` player bundles): any origin, with what a player reads (ranges,
 * validators) exposed and load timings visible to the page.
 */
export const FILE_CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": "Content-Length, Content-Range, Accept-Ranges, ETag",
  "Timing-Allow-Origin": "*",
} as const;

/** The answer to their preflight (players send Range and If-None-Match). */
export function filePreflight(): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...FILE_CORS_HEADERS,
      "Access-Control-Allow-Methods": "GET, HEAD, OPTIONS",
      "Access-Control-Allow-Headers": "Range, If-None-Match",
      "Access-Control-Max-Age": "86400",
    },
  });
}
