import { groupForm } from "./kit.tsx";

/** notes_options.notes: timed notes listed under the player; a click seeks. */
export const notesForm = groupForm("notes_options", "Timed notes", (f) => (
  <>
    {f.check("enabled", "List these notes under the player")}
    {f.list("notes", "note", { time_s: 0, text: "", url: null }, (r, _, i) => (
      <>
        <div class="row item">
          {r.num("time_s", `Note ${i + 1} at (s)`)}
          {r.text("url", "Link (optional)", { type: "url" })}
        </div>
        {r.text("text", "Text", { empty: "" })}
      </>
    ))}
  </>
));
