/** The invite by mail (README "The dashboard"): sent when SMTP_URL is set; the link is shown to copy either way. */
import type { Deps } from "../../deps.ts";
import { sendMail } from "../../lib/smtp.ts";

/** True when the SMTP server took the mail; a failure is logged, and the owner still has the link to copy. */
export async function mailInvite(deps: Deps, from: string, to: string, url: string): Promise<boolean> {
  if (!deps.config.smtpUrl) return false;
  try {
    await sendMail(deps.config.smtpUrl, {
      from: deps.config.smtpFrom,
      to,
      subject: "You are invited to Frameline",
      text: `${from} invited you to their Frameline workspace.\n\nOpen this link to join (it works once, for 7 days):\n${url}\n`,
    });
    return true;
  } catch (error) {
    deps.log.warn("invite mail not sent", { error: String(error) });
    return false;
  }
}
