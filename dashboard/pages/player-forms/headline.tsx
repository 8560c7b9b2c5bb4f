import { operatorForm } from "./kit.tsx";

/** headline_options: a headline over the poster until the viewer plays. */
export const headlineForm = operatorForm("headline_options", "Headline", (f) => (
  <>
    {f.check("enabled", "Show a headline over the poster until play")}
    {f.text("text", "Headline")}
    <div class="row item">
      {f.text("color", "Text colour")}
      {f.text("background_color", "Background colour")}
      {f.num("font_size_px", "Size (px)", { min: 10, step: "1" })}
    </div>
  </>
));
