import { groupForm } from "./kit.tsx";

/** countdown_options: a countdown to a date over the player. */
export const countdownForm = groupForm("countdown_options", "Countdown", (f) => (
  <>
    {f.check("enabled", "Show a countdown over the player")}
    {f.text("ends_at", "Ends at", { hint: "ISO 8601 with a time zone, e.g. 2026-12-31T23:59:00Z" })}
    <div class="row item">
      {f.text("text", "Text before the time")}
      {f.text("expired_text", "Text once it ended")}
    </div>
  </>
));
