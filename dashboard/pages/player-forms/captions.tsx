import { groupForm } from "./kit.tsx";

/** captions_options: WebVTT tracks, the language shown first and the caption size. */
export const captionsForm = groupForm("captions_options", "Captions", (f) => (
  <>
    {f.check("enabled", "Show captions")}
    <div class="row item">
      {f.text("default_language", "Language shown first (e.g. en)")}
      {f.choice("font_size", "Caption size", { medium: "Medium", small: "Small", large: "Large" })}
    </div>
    {f.list("tracks", "track", { src: "", srclang: "" }, (r, _, i) => (
      <div class="row item">
        {r.text("src", `Track ${i + 1} WebVTT URL`, { type: "url" })}
        {r.text("srclang", `Track ${i + 1} language`)}
        {r.text("label", `Track ${i + 1} name`)}
      </div>
    ))}
  </>
));
