import { fields, type GroupForm, List, Num, Text } from "./kit.tsx";

const G = "notes_options";

/** notes_options.notes: timed notes listed under the player; a click seeks. */
export const notesForm: GroupForm = {
  group: G,
  legend: "Timed notes",
  Form: (p) => (
    <>
      {fields(G, p).check("enabled", "List these notes under the player")}
      <List
        group={G}
        list="notes"
        p={p}
        noun="note"
        blank={{ time_s: 0, text: "", url: null }}
        row={(n, at, set, i) => (
          <>
            <div class="row item">
              <Num path={at("time_s")} label={`Note ${i + 1} at (s)`} value={n.time_s} onValue={(v) => set("time_s", v)} err={p.err(at("time_s"))} />
              <Text path={at("url")} label="Link (optional)" type="url" value={n.url} onValue={(v) => set("url", v)} err={p.err(at("url"))} />
            </div>
            <Text path={at("text")} label="Text" value={n.text} onValue={(v) => set("text", v ?? "")} err={p.err(at("text"))} />
          </>
        )}
      />
    </>
  ),
};
