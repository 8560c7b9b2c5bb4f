import { operatorForm } from "./kit.tsx";

/** cloak_options: no progress bar, time or seeking ahead. */
export const cloakForm = operatorForm("cloak_options", "Cloak", (f) => f.check("enabled", "Hide the progress bar and time; viewers cannot skip ahead"));
