/**
 * Frameline's standalone events script (SPEC.md "Custom events", browser path).
 * One self-running function in the manner of umami's tracker: it reads its
 * `data-*` attributes, never throws into the page and never blocks it.
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
import type { TrackBody } from "../../server/modules/events/model.ts";

type Props = Record<string, unknown>;
/** The `fl(...)` command function, with the calls queued by the snippet before this script ran. */
type Command = ((name: string, ...args: unknown[]) => unknown) & { q?: IArguments[] };

((w: Window & typeof globalThis & { fl?: Command; flTracker?: boolean }, d: Document) => {
  const script = d.currentScript as HTMLScriptElement | null;
  const workspace = script?.getAttribute("data-workspace");
  // Loaded twice is loaded once. A player on the page may have installed `Frameline` already: same ids, same API.
  if (!workspace || w.flTracker) return;
  w.flTracker = true;
  const host = script!.getAttribute("data-host") || new URL(script!.src).origin;
  const endpoint = host + "/v1/track";
  const IDENTITY = ["email_sha256", "email_md5", "phone_sha256", "phone_md5", "external_id"];

  const store = (s: Storage | undefined, key: string, value?: string): string | undefined => {
    try {
      if (value) s?.setItem(key, value);
      return s?.getItem(key) || value;
    } catch {
      return value;
    }
  };
  const id = () => (crypto.randomUUID ? crypto.randomUUID() : Date.now().toString(36) + Math.random().toString(36).slice(2));
  let ss: Storage | undefined, ls: Storage | undefined;
  try {
    ss = w.sessionStorage;
    ls = w.localStorage;
  } catch {}
  // `fl_sid` in the URL joins that session (a checkout on another domain carries it).
  const joined = new URLSearchParams(w.location.search).get("fl_sid");
  const sessionId = store(ss, "fl_sid", joined || store(ss, "fl_sid") || id())!;
  const deviceId = store(ls, "fl_did", store(ls, "fl_did") || id())!;

  const sha256 = async (text: string) =>
    Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))), (b) => b.toString(16).padStart(2, "0")).join("");

  const e164 = (phone: string) => {
    const p = phone.trim();
    const digits = p[0] === "+" ? p.slice(1) : p.slice(0, 2) === "00" ? p.slice(2) : "";
    const clean = digits.replace(/[\s().-]/g, "");
    return /^[1-9]\d{5,14}$/.test(clean) ? "+" + clean : "";
  };

  const send = (body: object) => {
    const text = JSON.stringify(body);
    // text/plain keeps the request "simple": no CORS preflight, and sendBeacon survives page unload.
    if (!navigator.sendBeacon?.(endpoint, text)) {
      fetch(endpoint, { method: "POST", body: text, keepalive: true, headers: { "Content-Type": "text/plain" } }).catch(() => {});
    }
  };

  /** Sends a custom event; `value` is the numeric value, identity keys tie the viewer (a raw email or phone is hashed here). */
  const track = async (name: string, props: Props = {}) => {
    try {
      const body: Partial<TrackBody> & Record<string, unknown> = { workspace_code: workspace, event: String(name), session_id: sessionId, device_id: deviceId };
      const properties: Record<string, string | number | boolean> = {};
      for (const key in props) {
        const v = props[key];
        if (v === undefined || v === null) continue;
        if (key === "value" && typeof v === "number") body.value = v;
        else if (key === "event_id") body.event_id = String(v);
        else if (key === "email") body.email_sha256 = await sha256(String(v).trim().toLowerCase());
        else if (key === "phone") {
          const number = e164(String(v));
          if (number) body.phone_sha256 = await sha256(number);
        } else if (IDENTITY.indexOf(key) >= 0) body[key] = String(v);
        else properties[key] = typeof v === "number" || typeof v === "boolean" ? v : String(typeof v === "object" ? JSON.stringify(v) : v).slice(0, 100);
      }
      if (Object.keys(properties).length) body.properties = properties;
      send(body);
    } catch {}
  };

  const api = { track, getSessionId: () => sessionId, getDeviceId: () => deviceId };
  const command = (name: string, ...args: unknown[]) => {
    try {
      if (name === "event") track(args[0] as string, args[1] as Props);
      else if (name === "session") {
        if (typeof args[0] === "function") (args[0] as (id: string) => void)(sessionId);
        return sessionId;
      }
    } catch {}
  };
  const queued: IArguments[] = w.fl?.q || [];
  w.Frameline ??= api;
  w.fl = command;
  for (const args of queued) command.apply(null, Array.from(args) as [string, ...unknown[]]);
})(window, document);
