/**
 * The preview frame: runs the video's real embed snippet (GET /videos/{id}/embed)
 * on a page of its own, so the dashboard's stricter CSP stays untouched.
 */
import type { EmbedRead } from "../contract/api.ts";
import * as session from "./session.ts";

const out = document.getElementById("preview")!;
const params = new URLSearchParams(location.search);
const id = Number(params.get("video"));
const ws = session.workspace();
const token = ws && session.sessionToken(ws.id);

async function show(): Promise<void> {
  if (!Number.isInteger(id) || id < 1) throw new Error("No video chosen.");
  if (!token) throw new Error("Open the preview from the dashboard (it uses this tab's session).");
  const mode = params.get("mode") === "plain" ? "?mode=plain" : "";
  const res = await fetch(`/api/v1/videos/${id}/embed${mode}`, { headers: { Authorization: `Bearer ${token.secret}` }, cache: "no-store" });
  if (!res.ok) throw new Error(`The embed code could not be loaded (${res.status}).`);
  const { html } = (await res.json()) as EmbedRead;
  out.textContent = "";
  // A contextual fragment runs its <script> elements when inserted, exactly as on a customer's page.
  const fragment = document.createRange().createContextualFragment(html);
  // Browsers keep the entry script half a minute (it is served with a short max-age):
  // the preview asks for the bundle just deployed, not the one the browser kept.
  for (const script of fragment.querySelectorAll<HTMLScriptElement>("script[src]")) {
    const src = new URL(script.src);
    src.searchParams.set("preview", String(Date.now()));
    script.src = src.href;
  }
  out.append(fragment);
}

show().catch((e: Error) => {
  out.textContent = e.message;
});
