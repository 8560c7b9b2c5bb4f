import type { Feature } from "../types.ts";
import { on, own } from "./lib/style.ts";

type Pixel = (...args: unknown[]) => void;
interface PixelPage {
  fbq?: Pixel;
  gtag?: Pixel;
  ttq?: { track?: Pixel; instance?: (id: string) => { track?: Pixel } };
}

/**
 * pixels_options: the player's events forwarded to the ad pixels the page
 * already has (`fbq`, `gtag`, `ttq`, looked up at each event; none is loaded
 * here). With a pixel id set, the event goes to that pixel only. Progress is the
 * player's own milestones (player/milestones.ts), as its analytics count them: crossed
 * in watched time, so a seek past 75 % is not "watched 75 %".
 *
 * | player       | fbq                                  | gtag                            | ttq                      |
 * |--------------|--------------------------------------|---------------------------------|--------------------------|
 * | play         | trackCustom VideoPlay                | video_start                     | track VideoPlay          |
 * | 25/50/75/100 | trackCustom VideoProgress {percent}  | video_progress / video_complete | track VideoProgress      |
 * | CTA click    | trackCustom VideoCTAClick {url}      | video_cta_click {url}           | track ClickButton {url}  |
 * | lead         | track Lead                           | generate_lead                   | track Lead               |
 */
export const pixels: Feature = {
  name: "pixels",
  setup(player) {
    const o = player.settings.pixels_options || {};
    const page = window as unknown as PixelPage;
    const video = player.video;
    const base = { video_title: player.config.video.title, video_code: player.config.video.code };
    const fire = (fb: [standard: boolean, name: string], ga: string, tt: string, extra: Record<string, unknown> = {}) => {
      const data = { ...base, ...extra };
      try {
        if (typeof page.fbq === "function") {
          const [standard, name] = fb;
          if (o.facebook_pixel_id) page.fbq(standard ? "trackSingle" : "trackSingleCustom", o.facebook_pixel_id, name, data);
          else page.fbq(standard ? "track" : "trackCustom", name, data);
        }
        if (typeof page.gtag === "function") page.gtag("event", ga, o.google_tag_id ? { ...data, send_to: o.google_tag_id } : data);
        const ttq = o.tiktok_pixel_id && page.ttq?.instance ? page.ttq.instance(o.tiktok_pixel_id) : page.ttq;
        if (typeof ttq?.track === "function") ttq.track(tt, data);
      } catch {
        /* a pixel's own failure never breaks the player */
      }
    };
    let played = false;
    const offs = [
      player.on("source", () => (played = false)),
      on(video, "play", () => {
        if (played || !own(player)) return;
        played = true;
        fire([false, "VideoPlay"], "video_start", "VideoPlay");
      }),
      player.on(
        "milestone",
        ({ percent }) =>
          own(player) &&
          fire([false, "VideoProgress"], percent < 100 ? "video_progress" : "video_complete", "VideoProgress", { percent, video_percent: percent }),
      ),
      player.on(
        "collect",
        ({ type, fields }) => type === "cta_click" && fire([false, "VideoCTAClick"], "video_cta_click", "ClickButton", { url: fields?.url }),
      ),
      player.on("lead", () => fire([true, "Lead"], "generate_lead", "Lead")),
    ];
    return () => offs.forEach((f) => f());
  },
};
