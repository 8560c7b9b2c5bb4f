/**
 * The body of `GET /videos/{video}/settings` for the OpenAPI description (docs/api.md
 * "Videos": every option group, in the shape draft and deploy accept). Documentation
 * only: the read answers the stored settings completed with each group's defaults.
 */
import { Type } from "@sinclair/typebox";
import { OPTION_GROUPS } from "../../../contract/settings.ts";

export const SettingsRead = Type.Object(Object.fromEntries(OPTION_GROUPS.map((g) => [g.name, g.schema])), {
  description: "Every option group the video carries, each with the fields the registry knows (unknown nested keys are kept).",
});
