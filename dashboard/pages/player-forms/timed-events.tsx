import { Choice, groupForm, idOf, List, Num, Text } from "./kit.tsx";

const G = "timed_events_options";

/** timed_events_options.events: page elements shown or hidden when playback reaches a time. */
export const timedEventsForm = groupForm(G, "Timed reveals on the page", (_, p) => (
  <List
    group={G}
    list="events"
    p={p}
    noun="reveal"
    blank={{ time_s: 0, selector: "", action: "show", name: null, persist: true }}
    row={(e, at, set, i) => (
      <>
        <div class="row item">
          <Num path={at("time_s")} label={`Reveal ${i + 1} at (s)`} value={e.time_s} onValue={(v) => set("time_s", v)} err={p.err(at("time_s"))} />
          <Choice
            path={at("action")}
            label="Action"
            value={e.action}
            options={[
              ["show", "Show"],
              ["hide", "Hide"],
            ]}
            onValue={(v) => set("action", v)}
            err={p.err(at("action"))}
          />
        </div>
        <Text
          path={at("selector")}
          label="CSS selector of the page elements"
          value={e.selector}
          onValue={(v) => set("selector", v)}
          err={p.err(at("selector"))}
          hint="e.g. #buy-button or .offer; empty: only the page API hears it"
        />
        <div class="row item">
          <Text path={at("name")} label="Name (page API)" value={e.name} onValue={(v) => set("name", v)} err={p.err(at("name"))} />
          <div class="check">
            <input type="checkbox" id={idOf(at("persist"))} checked={e.persist !== false} onChange={(ev) => set("persist", ev.currentTarget.checked)} />
            <label for={idOf(at("persist"))}>Returning viewers see it at once</label>
          </div>
        </div>
      </>
    )}
  />
));
