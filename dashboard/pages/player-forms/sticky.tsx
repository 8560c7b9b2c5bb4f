import { groupForm } from "./kit.tsx";

/** sticky_options: a floating mini player while scrolled away. */
export const stickyForm = groupForm("sticky_options", "Sticky mini player", (f) => (
  <>
    {f.check("enabled", "Float a mini player while the player is scrolled out of view and playing")}
    <div class="row item">
      {f.choice("position", "Corner", { "bottom-right": "Bottom right", "bottom-left": "Bottom left", "top-right": "Top right", "top-left": "Top left" })}
      {f.num("width_px", "Width (px)", { min: 160, step: "1" })}
    </div>
  </>
));
