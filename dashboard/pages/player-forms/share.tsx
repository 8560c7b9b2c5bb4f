import type { Settings } from "../../../contract/settings.ts";
import { Choices, operatorForm } from "./kit.tsx";

/** Every network the registry knows, labelled, in the order shown. */
const NETWORKS: Record<NonNullable<Settings["share_options"]["networks"]>[number], string> = {
  facebook: "Facebook",
  x: "X",
  linkedin: "LinkedIn",
  whatsapp: "WhatsApp",
  telegram: "Telegram",
  reddit: "Reddit",
  pinterest: "Pinterest",
  email: "Email",
};

/** share_options: share links for the page, one per network. */
export const shareForm = operatorForm("share_options", "Share buttons", (f, p) => (
  <>
    {f.check("enabled", "Show share buttons")}
    <Choices
      path="share_options.networks"
      legend="Networks"
      options={NETWORKS}
      chosen={p.value.networks ?? []}
      onValue={(v) => p.set("networks", v)}
      err={p.err("share_options.networks")}
    />
  </>
));
