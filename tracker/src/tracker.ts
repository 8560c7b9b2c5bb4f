/**
 * Frameline's standalone events script (docs/api.md "Custom events", browser path).
 * One self-running function in the manner of umami's tracker: it reads its
 * `data-*` attributes, never throws into the page and never blocks it. The
 * tracking itself (ids, limits, hashing, `window.Frameline`) is browser/,
 * the core the player bundles too.
 *
 * @example
 * <script async src="https://frameline.example/t.js" data-workspace="WORKSPACE_CODE"></script>
 * <script>
 *   window.fl = window.fl || function () { (fl.q = fl.q || []).push(arguments) };
 *   fl("event", "signup", { plan: "pro", value: 49, email: "a@b.co" });
 *   fl("session", function (id) { console.log(id) });
 *   // once loaded: Frameline.track("signup", {...}); Frameline.getSessionId(); Frameline.getDeviceId();
 * </script>
 */
import { frameline } from "../../browser/frameline.ts";

/** The `fl(...)` command function, with the calls queued by the snippet before this script ran. */
type Command = ((name: string, ...args: unknown[]) => unknown) & { q?: IArguments[] };

((w: Window & typeof globalThis & { fl?: Command; flTracker?: boolean }, d: Document) => {
  try {
    const script = d.currentScript as HTMLScriptElement | null;
    const workspace = script?.getAttribute("data-workspace");
    // Loaded twice is loaded once.
    if (!script || !workspace || w.flTracker) return;
    w.flTracker = true;
    const host = script.getAttribute("data-host") || new URL(script.src).origin;
    const page = frameline({ url: host + "/v1/track", workspaceCode: workspace }, "tracker");
    const command = (name: string, ...args: unknown[]) => {
      try {
        if (name === "event") page.track(args[0] as string, args[1] as Record<string, unknown>);
        else if (name === "session") {
          const id = page.getSessionId();
          if (typeof args[0] === "function") (args[0] as (id: string) => void)(id);
          return id;
        }
      } catch {}
    };
    const queued: IArguments[] = w.fl?.q || [];
    w.fl = command;
    for (const args of queued) command.apply(null, Array.from(args) as [string, ...unknown[]]);
  } catch {}
})(window, document);
