import type { Feature } from "../types.ts";
import { on, own } from "./lib/style.ts";

type Pixel = (...args: unknown[]) => void;
interface PixelPage {
  fbq?: Pixel;
  gtag?: Pixel;
  ttq?: { track?: Pixel; instance?: (id: string) => { track?: Pixel } };
}

const MILESTONES = [25, 50, 75];

/**
 * pixels_options: the player's events forwarded to the ad pixels the page
 * already has (`fbq`, `gtag`, `ttq`, looked up at each event; none is loaded
 * here). With a pixel id set, the event goes to that pixel only.
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
    const reached = new Set<number>();
    let last = 0;
    let played = false;
    const offs = [
      player.on("source", () => {
        reached.clear();
        last = 0;
        played = false;
      }),
      on(video, "play", () => {
        if (played || !own(player)) return;
        played = true;
        fire([false, "VideoPlay"], "video_start", "VideoPlay");
      }),
      // Milestones crossed by playback, as the analytics count them (a seek past 50 % is not "watched 50 %").
      on(video, "timeupdate", () => {
        const now = video.currentTime;
        const d = video.duration;
        if (!video.seeking && own(player) && d > 0 && Number.isFinite(d) && now > last && now - last < 2)
          for (const p of MILESTONES)
            if (!reached.has(p) && now >= (d * p) / 100) {
              reached.add(p);
              fire([false, "VideoProgress"], "video_progress", "VideoProgress", { percent: p, video_percent: p });
            }
        last = now;
      }),
      on(video, "ended", () => {
        if (reached.has(100) || !own(player)) return;
        reached.add(100);
        fire([false, "VideoProgress"], "video_complete", "VideoProgress", { percent: 100, video_percent: 100 });
      }),
      player.on(
        "collect",
        ({ type, fields }) => type === "cta_click" && fire([false, "VideoCTAClick"], "video_cta_click", "ClickButton", { url: fields?.url }),
      ),
      player.on("lead", () => fire([true, "Lead"], "generate_lead", "Lead")),
    ];
    return () => offs.forEach((f) => f());
  },
};
