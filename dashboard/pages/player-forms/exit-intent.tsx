import { groupForm } from "./kit.tsx";

/** exit_intent_options: a message when the pointer leaves the page while playing. */
export const exitIntentForm = groupForm("exit_intent_options", "Exit intent", (f) => (
  <>
    {f.check("enabled", "Show a message when the pointer leaves the page while playing (once per session)")}
    {f.text("message", "Message")}
    <div class="row item">
      {f.text("button_text", "Button text")}
      {f.text("button_url", "Button URL", { type: "url" })}
    </div>
  </>
));
