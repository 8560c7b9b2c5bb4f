/**
 * The Elysia instance of a resource or a host (docs/architecture.md "One Elysia
 * instance per resource"), built one way: named `frameline.<name>`, so Elysia
 * registers it once however often it is used, and listed under its tag in the
 * OpenAPI description.
 *
 * @example
 *   export const videosModule = (deps: Deps) => createModule("videos", { tag: "Videos" }).get("/videos", ...);
 */
import { Elysia } from "elysia";

/** The sections of the OpenAPI description. */
export type ApiTag =
  | "Videos"
  | "Folders"
  | "Video settings"
  | "Playlists"
  | "Uploads"
  | "Conversions"
  | "Analytics"
  | "Exports"
  | "Webhooks"
  | "Automation"
  | "Split tests"
  | "Playback protection"
  | "Viewers"
  | "Funnels"
  | "Events host"
  | "Media"
  | "Operator"
  | "Accounts";

export interface ModuleOptions<Prefix extends string> {
  /** The section its routes are listed under; without one, each route names its own. */
  tag?: ApiTag;
  /** Its routes serve files, not an API: left out of the OpenAPI description. */
  hidden?: true;
  /** A path every route of the module starts with. */
  prefix?: Prefix;
}

export function createModule<const Prefix extends string = "">(name: string, { tag, hidden, prefix }: ModuleOptions<Prefix> = {}) {
  return new Elysia({
    name: `frameline.${name}`,
    ...(prefix !== undefined && { prefix }),
    ...(tag !== undefined && { detail: { tags: [tag], ...(hidden && { hide: true }) } }),
  });
}
