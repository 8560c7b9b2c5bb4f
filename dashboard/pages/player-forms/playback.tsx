import { groupForm } from "./kit.tsx";

/** playback_options: what the player may do, and how much it fetches before the viewer presses play. */
export const playbackForm = groupForm("playback_options", "Playback", (f) => (
  <>
    {f.choice("preload", "Before play", {
      metadata: "Get the player engine ready when the page is idle (recommended)",
      auto: "Load the start of the video when the page is idle (fastest start, uses data)",
      none: "Load nothing until the viewer points at or presses play",
    })}
    <div class="checks-grid">
      {f.check("show_play_button", "Big play button")}
      {f.check("allow_seek", "Viewers can seek")}
      {f.check("allow_speed", "Viewers can change speed")}
      {f.check("loop", "Loop")}
      {f.check("pause_when_hidden", "Pause while the tab is hidden")}
      {f.check("resume_when_visible", "Go on when the viewer is back", { on: true })}
    </div>
    {f.num("start_time_s", "Start at (s)")}
  </>
));
