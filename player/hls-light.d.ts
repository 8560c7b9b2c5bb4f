// hls.js ships types for its full build only; the light build has the same API minus alt-audio, subtitles and EME.
declare module "hls.js/light" {
  export * from "hls.js";
  export { default } from "hls.js";
}
