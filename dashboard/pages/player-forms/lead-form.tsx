import type { LeadField } from "../../../contract/player-config.ts";
import { Choices, groupForm } from "./kit.tsx";

type Optional = Exclude<LeadField, "email">;

const FIELDS: Record<Optional, string> = {
  first_name: "First name",
  last_name: "Last name",
  phone: "Phone",
};

/** lead_form_options: the form shown inside the player at a time, at the viewer's pause, or when they leave. */
export const leadFormForm = groupForm("lead_form_options", "Lead form", (f, p) => {
  const chosen: LeadField[] = p.value.fields ?? ["email"];
  return (
    <>
      {f.check("enabled", "Ask for the viewer's email")}
      <div class="row item">
        {f.choice("trigger", "Show it", {
          time: "When playback reaches the time",
          pause: "At the viewer's first pause after the time",
          exit: "When the viewer leaves the page or tab after the time",
        })}
        {f.num("time_s", p.value.trigger === "pause" || p.value.trigger === "exit" ? "Not before (s)" : "Show at (s)")}
      </div>
      {f.text("title", "Title")}
      <Choices
        path="lead_form_options.fields"
        legend="Fields besides the email"
        options={FIELDS}
        chosen={chosen.filter((c): c is Optional => c !== "email")}
        onValue={(v) => p.set("fields", ["email", ...v])}
        err={p.err("lead_form_options.fields")}
      />
      <div class="row item">
        {f.text("button_text", "Button text")}
        {f.text("skip_text", "Skip text")}
      </div>
      {f.check("skippable", "Viewers may skip it")}
    </>
  );
});
