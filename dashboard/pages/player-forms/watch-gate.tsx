import { groupForm } from "./kit.tsx";

/** watch_gate_options: playback stops at a time until the viewer leaves an email. */
export const watchGateForm = groupForm("watch_gate_options", "Watch gate", (f) => (
  <>
    {f.check("enabled", "Stop playback until the viewer leaves an email")}
    {f.num("gate_time_s", "Gate at (s)")}
    {f.text("message", "Message on the gate")}
    <p class="hint">The form's fields and title are the lead form's. The page can open the gate with the page API's unlock().</p>
  </>
));
