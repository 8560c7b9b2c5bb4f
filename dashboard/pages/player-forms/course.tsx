import { groupForm } from "./kit.tsx";

/**
 * playlist_options as a course: the mode, the lesson chrome, and each lesson's
 * title and label. Lessons are other videos of the workspace, by code.
 */
export const courseForm = groupForm("playlist_options", "Playlist and course", (f) => (
  <>
    {f.check("enabled", "Play this video as a playlist")}
    {f.choice("playback_mode", "Mode", { linear: "Playlist (free order)", course: "Course (lessons unlock in order)" })}
    {f.choice("lesson_navigation", "Lesson navigation", {
      sidebar: "Lesson list",
      "next-button": "Previous and next buttons",
      both: "List and buttons",
      none: "None",
    })}
    {f.check("auto_advance", "Play the next lesson at the end")}
    {f.list("items", "lesson", { video_code: "", title: null, lesson_label: null }, (r, _, i) => (
      <>
        {r.text("video_code", `Lesson ${i + 1} video code`, { empty: "" })}
        <div class="row item">
          {r.text("lesson_label", "Label")}
          {r.text("title", "Title")}
        </div>
      </>
    ))}
    <p class="hint">In a course a lesson completes at its end, or when its quiz is answered right; progress follows the viewer across devices once known.</p>
  </>
));
