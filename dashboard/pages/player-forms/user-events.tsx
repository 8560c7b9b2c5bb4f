import { groupForm, List, Num, Text } from "./kit.tsx";

const G = "user_events_options";

/** user_events_options.events: custom events sent when playback reaches a time. */
export const userEventsForm = groupForm(G, "Custom events at a time", (f, p) => (
  <>
    {f.check("enabled", "Send these custom events")}
    <List
      group={G}
      list="events"
      p={p}
      noun="event"
      blank={{ time_s: 0, name: "", value: null }}
      row={(e, at, set, i) => (
        <div class="row item">
          <Num path={at("time_s")} label={`Event ${i + 1} at (s)`} value={e.time_s} onValue={(v) => set("time_s", v)} err={p.err(at("time_s"))} />
          <Text path={at("name")} label="Name (a declared custom metric)" value={e.name} onValue={(v) => set("name", v ?? "")} err={p.err(at("name"))} />
          <Num path={at("value")} label="Value" value={e.value} onValue={(v) => set("value", v ?? null)} err={p.err(at("value"))} min={-1e9} />
        </div>
      )}
    />
  </>
));
