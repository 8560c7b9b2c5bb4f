import { groupForm } from "./kit.tsx";

/** transcript_options: the captions listed under the player; a click on a line seeks. */
export const transcriptForm = groupForm("transcript_options", "Transcript", (f) => (
  <>
    {f.check("enabled", "List the captions under the player")}
    {f.text("language", "Language", { hint: "A caption track's language code (en); empty: the default track." })}
  </>
));
