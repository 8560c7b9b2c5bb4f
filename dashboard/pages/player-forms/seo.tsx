import { groupForm } from "./kit.tsx";

/** seo_options: a schema.org VideoObject (JSON-LD) in the head of the page that embeds the video. */
export const seoForm = groupForm("seo_options", "Search engines", (f) => (
  <>
    {f.text("title", "Title for search results", { hint: "Empty: the video's title." })}
    {f.text("description", "Description", { hint: "Empty: the title." })}
    {f.check("transcript_enabled", "Include the captions' text as the transcript")}
  </>
));
