import { operatorForm } from "./kit.tsx";

/** pitch_time_options: CTA cards and `data-frameline-pitch` elements held back until the pitch. */
export const pitchTimeForm = operatorForm("pitch_time_options", "Pitch time", (f) => (
  <>
    {f.check("enabled", "Reveal the offer at the pitch")}
    {f.num("time_s", "Pitch at (s)")}
    {f.check("persist", "Returning viewers see the offer at once")}
    <p class="hint">
      CTA cards wait for the pitch; page elements with the <code>data-frameline-pitch</code> attribute are shown then.
    </p>
  </>
));
