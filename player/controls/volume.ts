/** M and the mute button: muted or not, nothing else changes. */
export function toggleMute(video: HTMLVideoElement): void {
  video.muted = !video.muted;
}

/** ↑ / ↓: the volume by tenths (↑ unmutes too), said through the live region. */
export function stepVolume(video: HTMLVideoElement, up: boolean, announce: (text: string) => void): void {
  video.volume = Math.round(Math.max(0, Math.min(1, video.volume + (up ? 0.1 : -0.1))) * 10) / 10;
  if (up) video.muted = false;
  announce(`Volume ${Math.round(video.volume * 100)}%`);
}
