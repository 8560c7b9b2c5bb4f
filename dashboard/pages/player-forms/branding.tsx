import { groupForm } from "./kit.tsx";

/** branding_options: your logo over the player (a link when set), or as a watermark. */
export const brandingForm = groupForm("branding_options", "Logo", (f) => (
  <>
    {f.check("show_logo", "Show a logo at the top right of the player")}
    {f.text("logo_url", "Logo image URL", { type: "url" })}
    {f.text("logo_link", "Logo links to (optional)", { type: "url" })}
    {f.check("watermark", "Watermark: the logo half transparent, not a link")}
  </>
));
