/** CORS for the browser paths of the events host (player, tracker, conversion fallback). */
export const CORS_HEADERS = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Allow-Methods": "POST, OPTIONS",
  "Access-Control-Allow-Headers": "Content-Type",
  "Access-Control-Max-Age": "86400",
} as const;

/** A route hook (run before validation) that adds them to the answer. */
export const withCors = ({ set }: { set: { headers: Record<string, string | number> } }): void => void Object.assign(set.headers, CORS_HEADERS);
