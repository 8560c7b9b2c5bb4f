import { fields, type GroupForm } from "./kit.tsx";

/** sticky_options: a floating mini player while scrolled away. */
export const stickyForm: GroupForm = {
  group: "sticky_options",
  legend: "Sticky mini player",
  Form: (p) => {
    const f = fields("sticky_options", p);
    return (
      <>
        {f.check("enabled", "Float a mini player while the player is scrolled out of view and playing")}
        <div class="row item">
          {f.choice("position", "Corner", [
            ["bottom-right", "Bottom right"],
            ["bottom-left", "Bottom left"],
            ["top-right", "Top right"],
            ["top-left", "Top left"],
          ])}
          {f.num("width_px", "Width (px)", { min: 160, step: "1" })}
        </div>
      </>
    );
  },
};
