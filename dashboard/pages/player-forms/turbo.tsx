import { groupForm } from "./kit.tsx";

/** turbo_options: the fastest start (player/README.md "Fast start"). */
export const turboForm = groupForm("turbo_options", "Turbo start", (f) => (
  <>
    {f.check("enabled", "Start with the smallest picture, fetched before the viewer presses play")}
    {f.num("preload_segments", "Segments fetched ahead while the page is idle (0-10)", { step: "1" })}
  </>
));
