import { Text, fields, type GroupForm } from "./kit.tsx";

interface Track {
  src?: string;
  srclang?: string;
  label?: string;
  default?: boolean;
}

/** captions_options: WebVTT tracks, the language shown first and the caption size. */
export const captionsForm: GroupForm = {
  group: "captions_options",
  legend: "Captions",
  Form: (p) => {
    const f = fields("captions_options", p);
    const tracks: Track[] = Array.isArray(p.value.tracks) ? p.value.tracks : [];
    const setTrack = (i: number, key: keyof Track, v: unknown) =>
      p.set(
        "tracks",
        tracks.map((t, j) => (j === i ? { ...t, [key]: v ?? undefined } : t)),
      );
    return (
      <>
        {f.check("enabled", "Show captions")}
        <div class="row item">
          {f.text("default_language", "Language shown first (e.g. en)")}
          {f.choice("font_size", "Caption size", [
            ["medium", "Medium"],
            ["small", "Small"],
            ["large", "Large"],
          ])}
        </div>
        {tracks.map((t, i) => (
          <div class="row item" key={i}>
            <Text
              path={`captions_options.tracks.${i}.src`}
              label={`Track ${i + 1} WebVTT URL`}
              type="url"
              value={t.src}
              onValue={(v) => setTrack(i, "src", v)}
              err={p.err(`captions_options.tracks.${i}.src`)}
            />
            <Text
              path={`captions_options.tracks.${i}.srclang`}
              label={`Track ${i + 1} language`}
              value={t.srclang}
              onValue={(v) => setTrack(i, "srclang", v)}
              err={p.err(`captions_options.tracks.${i}.srclang`)}
            />
            <Text
              path={`captions_options.tracks.${i}.label`}
              label={`Track ${i + 1} name`}
              value={t.label}
              onValue={(v) => setTrack(i, "label", v)}
              err={p.err(`captions_options.tracks.${i}.label`)}
            />
            <button
              type="button"
              class="link"
              onClick={() =>
                p.set(
                  "tracks",
                  tracks.filter((_, j) => j !== i),
                )
              }
              aria-label={`Remove track ${i + 1}`}
            >
              Remove
            </button>
          </div>
        ))}
        <button type="button" class="secondary" onClick={() => p.set("tracks", [...tracks, { src: "", srclang: "" }])}>
          Add track
        </button>
      </>
    );
  },
};
