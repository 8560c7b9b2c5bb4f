import { fields, type GroupForm } from "./kit.tsx";

/** exit_intent_options: a message when the pointer leaves the page while playing. */
export const exitIntentForm: GroupForm = {
  group: "exit_intent_options",
  legend: "Exit intent",
  Form: (p) => {
    const f = fields("exit_intent_options", p);
    return (
      <>
        {f.check("enabled", "Show a message when the pointer leaves the page while playing (once per session)")}
        {f.text("message", "Message")}
        <div class="row item">
          {f.text("button_text", "Button text")}
          {f.text("button_url", "Button URL", { type: "url" })}
        </div>
      </>
    );
  },
};
