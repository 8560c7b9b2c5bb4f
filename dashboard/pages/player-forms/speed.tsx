import { Text, fields, type GroupForm } from "./kit.tsx";

/** speed_options: the speeds in the menu and the one playback starts at. */
export const speedForm: GroupForm = {
  group: "speed_options",
  legend: "Speed",
  Form: (p) => {
    const f = fields("speed_options", p);
    const speeds: number[] = Array.isArray(p.value.speeds) ? p.value.speeds : [];
    return (
      <div class="row item">
        <Text
          path="speed_options.speeds"
          label="Speeds in the menu"
          hint="Comma separated, e.g. 0.5, 1, 1.5, 2"
          value={speeds.join(", ")}
          onValue={(v) =>
            p.set(
              "speeds",
              (v ?? "")
                .split(",")
                .map((s) => s.trim())
                .filter(Boolean)
                .map(Number),
            )
          }
          err={p.err("speed_options.speeds")}
        />
        {f.num("default_speed", "Start at speed", { step: "0.05" })}
      </div>
    );
  },
};
