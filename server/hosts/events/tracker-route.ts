/** Serves the standalone events script at `GET /t.js` (built once per process with esbuild). */
import { buildTracker } from "../../../tracker/build.ts";
import { createModule } from "../../http/module.ts";

export const TRACKER_PATH = "/t.js";

export function trackerModule() {
  let bundle: Promise<string> | undefined;
  return createModule("tracker").get(
    TRACKER_PATH,
    async () => {
      bundle ??= buildTracker().catch((error) => {
        bundle = undefined;
        throw error;
      });
      return new Response(await bundle, {
        headers: { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=300", "Access-Control-Allow-Origin": "*" },
      });
    },
    { detail: { hide: true } },
  );
}
