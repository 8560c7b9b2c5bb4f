import { fields, type GroupForm } from "./kit.tsx";

/** cross_device_resume_options: an identified viewer continues on another device where they stopped. */
export const resumeAnyDeviceForm: GroupForm = {
  group: "cross_device_resume_options",
  legend: "Resume on any device",
  Form: (p) => (
    <>
      {fields("cross_device_resume_options", p).check("enabled", 'Offer "Continue at 12:34" on another device')}
      <p class="hint">For viewers the workspace knows (a lead form, an identify, or a link carrying fl_sid); the position is kept on the server.</p>
    </>
  ),
};
