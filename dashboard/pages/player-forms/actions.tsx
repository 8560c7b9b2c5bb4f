import { Choice, groupForm, List, Num, Text } from "./kit.tsx";

const G = "actions_options";

/** actions_options.actions: redirect, show a CTA or pause, at a time or at the end. */
export const actionsForm = groupForm(
  G,
  "Actions",
  (f, p) => (
    <>
      {f.check("enabled", "Run these actions")}
      <List
        group={G}
        list="actions"
        p={p}
        noun="action"
        blank={{ trigger: "time", time_s: 0, type: "cta", url: null, text: null, button_text: null }}
        row={(a, at, set, i) => (
          <>
            <div class="row item">
              <Choice
                path={at("type")}
                label={`Action ${i + 1}`}
                value={a.type}
                options={[
                  ["cta", "Show a call to action"],
                  ["redirect", "Redirect to a URL"],
                  ["pause", "Pause"],
                ]}
                onValue={(v) => set("type", v)}
                err={p.err(at("type"))}
              />
              <Choice
                path={at("trigger")}
                label="When"
                value={a.trigger}
                options={[
                  ["time", "At a time"],
                  ["end", "At the end"],
                ]}
                onValue={(v) => set("trigger", v)}
                err={p.err(at("trigger"))}
              />
              {a.trigger !== "end" && <Num path={at("time_s")} label="At (s)" value={a.time_s} onValue={(v) => set("time_s", v)} err={p.err(at("time_s"))} />}
            </div>
            {a.type !== "pause" && <Text path={at("url")} label="URL" type="url" value={a.url} onValue={(v) => set("url", v)} err={p.err(at("url"))} />}
            {a.type === "cta" && (
              <div class="row item">
                <Text path={at("text")} label="Text" value={a.text} onValue={(v) => set("text", v)} err={p.err(at("text"))} />
                <Text
                  path={at("button_text")}
                  label="Button text"
                  value={a.button_text}
                  onValue={(v) => set("button_text", v)}
                  err={p.err(at("button_text"))}
                />
              </div>
            )}
          </>
        )}
      />
    </>
  ),
  { operator: true },
);
