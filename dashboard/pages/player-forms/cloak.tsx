import { fields, type GroupForm } from "./kit.tsx";

/** cloak_options: no progress bar, time or seeking ahead. */
export const cloakForm: GroupForm = {
  group: "cloak_options",
  legend: "Cloak",
  operator: true,
  Form: (p) => fields("cloak_options", p).check("enabled", "Hide the progress bar and time; viewers cannot skip ahead"),
};
