/**
 * The lead form both the lead form and the watch gate show, once per player:
 * a viewer who answers one has answered both. The email (and phone) are
 * checked in the page, so bad input gets a message beside the field; a valid
 * answer goes to `/v1/collect` at once as `lead_form_submitted`, is kept on the
 * device until the events host took it (retried with backoff, sent with the
 * player's beacon path when the page goes away, and again on the next visit),
 * so an answer is never lost. A device or identity that already answered this
 * video is not asked again (`/v1/lead-status`).
 */
import { read, write } from "../../../browser/storage.ts";
import { e164 } from "../../../browser/track-body.ts";
import type { LeadData, LeadField, PlayerApi } from "../../types.ts";
import { RANK_GATE, RANK_LEAD } from "../../overlay-ranks.ts";
import { el, style } from "./style.ts";

const EMAIL = /^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/;
const FIELDS: Record<LeadField, [label: string, type: string, autocomplete: string]> = {
  email: ["Email", "email", "email"],
  first_name: ["First name", "text", "given-name"],
  last_name: ["Last name", "text", "family-name"],
  phone: ["Phone", "tel", "tel"],
};

export interface Ask {
  title: string | null | undefined;
  message?: string | null;
  fields: LeadField[];
  button: string | null | undefined;
  /** The skip button's text; none when the form cannot be skipped. */
  skip?: string | null;
  /** Which feature asks, sent with the answer. */
  form: "lead_form" | "watch_gate";
}

export interface LeadCapture {
  /** Answered before, on this device or by this identity (known once the events host said so). */
  answered: Promise<boolean>;
  /** Answered by now. */
  readonly done: boolean;
  /** Shows the form (one at a time; a second ask joins the open one) until it is answered, skipped or closed. */
  ask(a: Ask): Promise<"submitted" | "skipped" | "closed">;
  /** Closes an open form without an answer (a watch gate the page unlocked). */
  close(): void;
}

const captures = new WeakMap<PlayerApi, LeadCapture>();

/** A problem with one field's value, as the viewer reads it; undefined when it is fine. */
export function fieldProblem(field: LeadField, value: string): string | undefined {
  if (field === "email") return EMAIL.test(value) ? undefined : "Enter an email address such as name@example.com.";
  if (field === "phone") return !value || e164(value) ? undefined : "Enter the number with its country code, such as +44 20 7946 0000.";
  return value.length <= 100 ? undefined : "Use at most 100 characters.";
}

/** The lead capture of this player (created on first use). */
export function leadCapture(player: PlayerApi): LeadCapture {
  const existing = captures.get(player);
  if (existing) return existing;
  const { config } = player;
  const code = config.video.code;
  const doneKey = `fl_lead_${code}`;
  const page = window.Frameline;
  const answered =
    read("localStorage", doneKey) === "1"
      ? Promise.resolve(true)
      : fetch(
          `${config.events_url.replace(/\/$/, "")}/v1/lead-status?${new URLSearchParams({
            workspace_code: config.video.workspace_code,
            video_code: code,
            session_id: page?.getSessionId() || "",
            device_id: page?.getDeviceId() || "",
          })}`,
          { credentials: "omit" },
        )
          .then((r) => (r.ok ? r.json() : { submitted: false }))
          .then(
            (r: { submitted?: boolean }) => r.submitted === true,
            () => false,
          );
  let open: { form: HTMLFormElement; result: Promise<"submitted" | "skipped" | "closed">; finish(r: "submitted" | "skipped" | "closed"): void } | null = null;
  let isAnswered = false;
  answered.then((a) => (isAnswered ||= a));

  const submit = (a: Ask, lead: LeadData) => {
    isAnswered = true;
    write("localStorage", doneKey, "1");
    const props: Record<string, string> = { url: location.href.slice(0, 100), form: a.form };
    if (lead.first_name) props.first_name = lead.first_name;
    if (lead.last_name) props.last_name = lead.last_name;
    // At once, in a batch of its own, kept by the page's outbox until the events host has it (a later visit sends it if this one could not).
    player.collect("lead_form_submitted", { email: lead.email, ...(lead.phone ? { phone: lead.phone } : {}), properties: props }, true);
    player.emit("lead", lead);
  };

  const capture: LeadCapture = {
    answered: answered.then((a) => a || isAnswered),
    get done() {
      return isAnswered;
    },
    ask(a) {
      if (isAnswered) return Promise.resolve("submitted");
      if (open) return open.result;
      style(
        "fl-css-lead",
        ".fl-lead{position:absolute;inset:0;z-index:3;display:flex;flex-direction:column;justify-content:center;gap:8px;padding:16px 20%;background:#000d;color:#fff;overflow:auto}" +
          ".fl-lead p{margin:0}.fl-lead-title{font-size:18px;font-weight:700}.fl-lead label{display:flex;flex-direction:column;gap:2px;font-size:13px}" +
          ".fl-lead input{font:15px var(--fl-font);padding:8px;border-radius:4px;border:2px solid transparent}.fl-lead input[aria-invalid=true]{border-color:#f87171}" +
          ".fl-lead small{color:#fca5a5;min-height:1em}.fl-lead button{border:0;border-radius:4px;padding:10px;font:700 15px var(--fl-font);background:var(--fl-main);color:var(--fl-on-main);cursor:pointer}" +
          ".fl-lead .fl-ghost{background:none;color:#fff;font-weight:400;text-decoration:underline}@media(max-width:480px){.fl-lead{padding:12px}}",
      );
      const form = el("form", "fl-lead", player.layer);
      form.noValidate = true;
      form.setAttribute("role", "dialog");
      form.setAttribute("aria-label", a.title || "Enter your email");
      el("p", "fl-lead-title", form, a.title);
      if (a.message) el("p", "fl-lead-msg", form, a.message);
      const fields = (a.fields.includes("email") ? a.fields : ["email" as const, ...a.fields]).filter((f) => FIELDS[f]);
      const inputs = fields.map((f) => {
        const [label, type, autocomplete] = FIELDS[f];
        const row = el("label", `fl-lead-${f}`, form, label);
        const input = el("input", "", row);
        Object.assign(input, { type, name: f, autocomplete, required: f === "email" });
        const problem = el("small", "", row);
        problem.setAttribute("aria-live", "polite");
        return { f, input, problem };
      });
      const go = el("button", "fl-lead-submit", form, a.button || "Continue");
      go.type = "submit";
      let finish!: (r: "submitted" | "skipped" | "closed") => void;
      const result = new Promise<"submitted" | "skipped" | "closed">((resolve) => (finish = resolve));
      if (a.skip) {
        const skip = el("button", "fl-ghost fl-lead-skip", form, a.skip);
        skip.type = "button";
        skip.onclick = () => done("skipped");
      }
      const done = (r: "submitted" | "skipped" | "closed") => {
        release();
        form.remove();
        open = null;
        finish(r);
      };
      form.onsubmit = (e) => {
        e.preventDefault();
        const lead: Record<string, string> = {};
        let first: HTMLInputElement | null = null;
        for (const { f, input, problem } of inputs) {
          const value = input.value.trim();
          const text = fieldProblem(f, value) || "";
          problem.textContent = text;
          input.setAttribute("aria-invalid", String(!!text));
          if (text) first ||= input;
          else if (value) lead[f] = f === "email" ? value.toLowerCase() : value;
        }
        if (first) return first.focus();
        submit(a, lead as unknown as LeadData);
        done("submitted");
      };
      open = { form, result, finish: done };
      // A dialog: the first field takes focus once it has the stage.
      const release = player.overlay(form, a.form === "watch_gate" ? RANK_GATE : RANK_LEAD, {
        say: a.title || "Enter your email to keep watching",
        modal: true,
      });
      return result;
    },
    close() {
      open?.finish("closed");
    },
  };
  captures.set(player, capture);
  return capture;
}
