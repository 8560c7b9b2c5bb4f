import { groupForm } from "./kit.tsx";

/** thumbnail_options: the poster and the play overlay. */
export const thumbnailForm = groupForm("thumbnail_options", "Thumbnail", (f, p) => (
  <>
    {f.check("enabled", "Customise the thumbnail")}
    {f.choice("mode", "Poster", { poster: "The video's own", custom: "An image URL", none: "None" })}
    {p.value.mode === "custom" && f.text("custom_url", "Poster image URL", { type: "url" })}
    {f.check("show_play_overlay", "Dim the poster under the play button")}
    {f.text("overlay_text", "Overlay text", { hint: 'e.g. "Click to watch"' })}
  </>
));
