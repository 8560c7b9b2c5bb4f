import { groupForm } from "./kit.tsx";

/** speed_options: the speeds in the menu and the one playback starts at. */
export const speedForm = groupForm("speed_options", "Speed", (f) => (
  <div class="row item">
    {f.numbers("speeds", "Speeds in the menu", "Comma separated, e.g. 0.5, 1, 1.5, 2")}
    {f.num("default_speed", "Start at speed", { step: "0.05" })}
  </div>
));
