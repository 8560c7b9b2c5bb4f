import { groupForm } from "./kit.tsx";

/** user_events_options.events: custom events sent when playback reaches a time. */
export const userEventsForm = groupForm("user_events_options", "Custom events at a time", (f) => (
  <>
    {f.check("enabled", "Send these custom events")}
    {f.list("events", "event", { time_s: 0, name: "", value: null }, (r, _, i) => (
      <div class="row item">
        {r.num("time_s", `Event ${i + 1} at (s)`)}
        {r.text("name", "Name (a declared custom metric)", { empty: "" })}
        {r.num("value", "Value", { min: -1e9, empty: null })}
      </div>
    ))}
  </>
));
