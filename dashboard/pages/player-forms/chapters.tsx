import { groupForm } from "./kit.tsx";

/** chapters_options.chapters: named start times, listed in the player's chapters menu. */
export const chaptersForm = groupForm("chapters_options", "Chapters", (f) => (
  <>
    {f.check("enabled", "Show chapters")}
    {f.list("chapters", "chapter", { time_s: 0, title: "" }, (r, _, i) => (
      <div class="row item">
        {r.num("time_s", `Chapter ${i + 1} start (s)`)}
        {r.text("title", `Chapter ${i + 1} title`, { empty: "" })}
      </div>
    ))}
  </>
));
