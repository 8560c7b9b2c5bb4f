import type { GroupForm } from "./kit.tsx";
import { idOf } from "./kit.tsx";

const NETWORKS: [string, string][] = [
  ["facebook", "Facebook"],
  ["x", "X"],
  ["linkedin", "LinkedIn"],
  ["whatsapp", "WhatsApp"],
  ["telegram", "Telegram"],
  ["reddit", "Reddit"],
  ["pinterest", "Pinterest"],
  ["email", "Email"],
];

/** share_options: share links for the page, one per network. */
export const shareForm: GroupForm = {
  group: "share_options",
  legend: "Share buttons",
  operator: true,
  Form: (p) => {
    const chosen: string[] = p.value.networks ?? [];
    const toggle = (n: string, on: boolean) => p.set("networks", on ? [...chosen.filter((c) => c !== n), n] : chosen.filter((c) => c !== n));
    return (
      <>
        <div class="check">
          <input type="checkbox" id={idOf("share_options.enabled")} checked={!!p.value.enabled} onChange={(e) => p.set("enabled", e.currentTarget.checked)} />
          <label for={idOf("share_options.enabled")}>Show share buttons</label>
        </div>
        <fieldset class="checks-grid choices">
          <legend class="sr-only">Networks</legend>
          {NETWORKS.map(([n, label]) => (
            <div class="check" key={n}>
              <input
                type="checkbox"
                id={idOf(`share_options.networks.${n}`)}
                checked={chosen.includes(n)}
                onChange={(e) => toggle(n, e.currentTarget.checked)}
              />
              <label for={idOf(`share_options.networks.${n}`)}>{label}</label>
            </div>
          ))}
        </fieldset>
        {p.err("share_options.networks") && <small class="field-error">{p.err("share_options.networks")!.join(" ")}</small>}
      </>
    );
  },
};
