import { groupForm } from "./kit.tsx";

/** timed_events_options.events: page elements shown or hidden when playback reaches a time. */
export const timedEventsForm = groupForm("timed_events_options", "Timed reveals on the page", (f) =>
  f.list("events", "reveal", { time_s: 0, selector: "", action: "show", name: null, persist: true }, (r, _, i) => (
    <>
      <div class="row item">
        {r.num("time_s", `Reveal ${i + 1} at (s)`)}
        {r.choice("action", "Action", { show: "Show", hide: "Hide" })}
      </div>
      {r.text("selector", "CSS selector of the page elements", { hint: "e.g. #buy-button or .offer; empty: only the page API hears it" })}
      <div class="row item">
        {r.text("name", "Name (page API)")}
        {r.check("persist", "Returning viewers see it at once", { on: true })}
      </div>
    </>
  )),
);
