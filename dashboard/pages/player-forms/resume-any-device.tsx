import { groupForm } from "./kit.tsx";

/** cross_device_resume_options: an identified viewer continues on another device where they stopped. */
export const resumeAnyDeviceForm = groupForm("cross_device_resume_options", "Resume on any device", (f) => (
  <>
    {f.check("enabled", 'Offer "Continue at 12:34" on another device')}
    <p class="hint">For viewers the workspace knows (a lead form, an identify, or a link carrying fl_sid); the position is kept on the server.</p>
  </>
));
