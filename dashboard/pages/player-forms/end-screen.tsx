import { groupForm } from "./kit.tsx";

/** end_screen_options: what the viewer sees at the end. */
export const endScreenForm = groupForm("end_screen_options", "End screen", (f, p) => (
  <>
    {f.check("enabled", "Show an end screen")}
    {f.choice("mode", "At the end", {
      last_frame: "Keep the last frame",
      poster: "The poster and a replay button",
      replay: "A replay button",
      text: "Text with a button to a URL",
    })}
    {p.value.mode === "text" && (
      <>
        {f.text("text", "Text")}
        <div class="row item">
          {f.text("button_text", "Button text")}
          {f.text("button_url", "Button URL", { type: "url" })}
        </div>
      </>
    )}
  </>
));
