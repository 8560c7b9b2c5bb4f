import { groupForm } from "./kit.tsx";

/** pixels_options: forward player events to the page's ad pixels. */
export const pixelsForm = groupForm("pixels_options", "Ad pixels", (f) => (
  <>
    {f.check("enabled", "Send plays, milestones, CTA clicks and leads to the pixels on the page (fbq, gtag, ttq)")}
    <div class="row item">
      {f.text("facebook_pixel_id", "Meta pixel id")}
      {f.text("google_tag_id", "Google tag id")}
      {f.text("tiktok_pixel_id", "TikTok pixel id")}
    </div>
    <p class="hint">Ids are optional: with one, events go to that pixel only. The player loads no pixel script itself.</p>
  </>
));
