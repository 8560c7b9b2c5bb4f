import type { Feature } from "../types.ts";
import { RANK_RESUME } from "../overlay-ranks.ts";
import { el, style } from "./lib/style.ts";

const clock = (s: number) => {
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(Math.floor(s % 60)).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
};

/**
 * cross_device_resume_options.enabled: the events host keeps the last position
 * of an identified viewer (lead form, identify, or an `fl_sid` session that
 * carries an identity). At load the player asks once (`GET
 * /v1/resume-position`, which answers a position and nothing else) and, when
 * there is one, offers "Continue at 12:34" on the poster; a plain play press
 * resumes too. It replaces this device's own continue-watching prompt, since
 * the server's position is the latest of every device, and has its rank
 * (overlay-ranks.ts): above the headline and the thumbnail text.
 */
export const resumeAnyDevice: Feature = {
  name: "resume_any_device",
  setup(player) {
    const { config } = player;
    let box: HTMLElement | null = null;
    let release = () => {};
    let started = false;
    const hide = () => {
      release();
      box?.remove();
      box = null;
    };
    const offs = [
      player.on("intent", () => {
        started = true;
        hide();
      }),
      player.on("source", hide),
    ];
    fetch(
      `${config.events_url.replace(/\/$/, "")}/v1/resume-position?${new URLSearchParams({
        workspace_code: config.video.workspace_code,
        video_code: config.video.code,
        session_id: window.Frameline?.getSessionId() || "",
        device_id: window.Frameline?.getDeviceId() || "",
      })}`,
      { credentials: "omit" },
    )
      .then((r) => (r.ok ? r.json() : {}))
      .then(
        (r: { position_s?: number | null }) => {
          const at = Number(r.position_s);
          if (started || !(at >= 1) || player.source.code !== config.video.code) return;
          player.startAt = at;
          if (player.plain) return;
          // The device's own prompt gives way (taken off the page, it leaves the stage too).
          player.layer.querySelector(".fl-prompt")?.remove();
          style("fl-css-resume-any", ".fl-resume-any{z-index:2}");
          box = el("div", "fl-prompt fl-resume-any", player.layer);
          const text = `Continue at ${clock(at)}`;
          const yes = el("button", "fl-btn fl-resume-go", box, text);
          const no = el("button", "fl-btn fl-ghost", box, "Start over");
          yes.type = no.type = "button";
          yes.onclick = () => {
            player.startAt = at;
            player.play();
          };
          no.onclick = () => {
            player.startAt = 0;
            player.play();
          };
          release = player.overlay(box, RANK_RESUME, { say: text });
        },
        () => undefined,
      );
    return () => {
      hide();
      offs.forEach((f) => f());
    };
  },
};
