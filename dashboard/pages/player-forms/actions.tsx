import { operatorForm } from "./kit.tsx";

/** actions_options.actions: redirect, show a CTA or pause, at a time or at the end. */
export const actionsForm = operatorForm("actions_options", "Actions", (f) => (
  <>
    {f.check("enabled", "Run these actions")}
    {f.list("actions", "action", { trigger: "time", time_s: 0, type: "cta", url: null, text: null, button_text: null }, (r, a, i) => (
      <>
        <div class="row item">
          {r.choice("type", `Action ${i + 1}`, { cta: "Show a call to action", redirect: "Redirect to a URL", pause: "Pause" })}
          {r.choice("trigger", "When", { time: "At a time", end: "At the end" })}
          {a.trigger !== "end" && r.num("time_s", "At (s)")}
        </div>
        {a.type !== "pause" && r.text("url", "URL", { type: "url" })}
        {a.type === "cta" && (
          <div class="row item">
            {r.text("text", "Text")}
            {r.text("button_text", "Button text")}
          </div>
        )}
      </>
    ))}
  </>
));
