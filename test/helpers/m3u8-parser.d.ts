/** The part of m3u8-parser 7 (it ships no types) the HLS tests read. */
declare module "m3u8-parser" {
  export interface ParsedPlaylist {
    uri: string;
    attributes: {
      BANDWIDTH?: number;
      "AVERAGE-BANDWIDTH"?: string;
      CODECS?: string;
      RESOLUTION?: { width: number; height: number };
      "FRAME-RATE"?: number;
    };
  }
  export interface Manifest {
    playlists?: ParsedPlaylist[];
    segments: { uri: string; duration: number }[];
    targetDuration?: number;
    endList?: boolean;
    independentSegments?: boolean;
    playlistType?: string;
  }
  export class Parser {
    manifest: Manifest;
    push(chunk: string): void;
    end(): void;
  }
}
