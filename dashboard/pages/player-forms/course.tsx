import { fields, type Group, type GroupForm, List, Text } from "./kit.tsx";

const G = "playlist_options";

/**
 * playlist_options as a course: the mode, the lesson chrome, and each lesson's
 * title and label. Lessons are other videos of the workspace, by code.
 */
export const courseForm: GroupForm = {
  group: G,
  legend: "Playlist and course",
  Form: (p) => {
    const f = fields(G, p);
    return (
      <>
        {f.check("enabled", "Play this video as a playlist")}
        {f.choice("playback_mode", "Mode", [
          ["linear", "Playlist (free order)"],
          ["course", "Course (lessons unlock in order)"],
        ])}
        {f.choice("lesson_navigation", "Lesson navigation", [
          ["sidebar", "Lesson list"],
          ["next-button", "Previous and next buttons"],
          ["both", "List and buttons"],
          ["none", "None"],
        ])}
        {f.check("auto_advance", "Play the next lesson at the end")}
        <List
          group={G}
          list="items"
          p={p}
          noun="lesson"
          blank={{ video_code: "", title: null, lesson_label: null } as Group}
          row={(item, at, set, i) => (
            <>
              <Text
                path={at("video_code")}
                label={`Lesson ${i + 1} video code`}
                value={item.video_code}
                onValue={(v) => set("video_code", v ?? "")}
                err={p.err(at("video_code"))}
              />
              <div class="row item">
                <Text
                  path={at("lesson_label")}
                  label="Label"
                  value={item.lesson_label}
                  onValue={(v) => set("lesson_label", v)}
                  err={p.err(at("lesson_label"))}
                />
                <Text path={at("title")} label="Title" value={item.title} onValue={(v) => set("title", v)} err={p.err(at("title"))} />
              </div>
            </>
          )}
        />
        <p class="hint">
          In a course a lesson completes at its end, or when its quiz is answered right; progress follows the viewer across devices once known.
        </p>
      </>
    );
  },
};
