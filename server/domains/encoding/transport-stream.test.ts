import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { segmentFacts } from "./transport-stream.ts";

let dir: string;

/** An MPEG-TS made by the real ffmpeg: `video` and `audio` are its encoder arguments. */
async function segment(name: string, args: string): Promise<Uint8Array> {
  const out = join(dir, `${name}.ts`);
  const proc = Bun.spawn(
    [
      "ffmpeg",
      "-v",
      "error",
      "-y",
      "-f",
      "lavfi",
      "-i",
      "testsrc=size=320x180:rate=30000/1001:duration=1",
      "-f",
      "lavfi",
      "-i",
      "sine=duration=1",
      ...args.split(" "),
      "-f",
      "mpegts",
      out,
    ],
    { stderr: "inherit" },
  );
  expect(await proc.exited).toBe(0);
  return new Uint8Array(await Bun.file(out).arrayBuffer());
}

beforeAll(async () => (dir = await mkdtemp(join(tmpdir(), "fl-ts-"))));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe("segmentFacts", () => {
  test("H.264 High and AAC-LC: avc1 from the SPS, mp4a.40.2, a key frame first, the frame rate from the timestamps", async () => {
    const facts = segmentFacts(await segment("high", "-c:v libx264 -profile:v high -level 3.1 -pix_fmt yuv420p -c:a aac"));
    expect(facts).toEqual({ video: "avc1.64001f", audio: "mp4a.40.2", keyFrameFirst: true, frameRate: expect.closeTo(29.97, 2) });
  });

  test("constrained baseline without audio", async () => {
    const facts = segmentFacts(await segment("baseline", "-c:v libx264 -profile:v baseline -level 3.0 -pix_fmt yuv420p -an"));
    expect(facts.video).toBe("avc1.42c01e");
    expect(facts.audio).toBeUndefined();
  });

  test("a stream cut after its key frame does not start with one; bytes that are no transport stream say nothing", async () => {
    const ts = await segment("cut", "-c:v libx264 -g 300 -pix_fmt yuv420p -an");
    const packets = Array.from({ length: ts.length / 188 }, (_, i) => ts.subarray(i * 188, (i + 1) * 188));
    const pid = (p: Uint8Array) => ((p[1]! & 0x1f) << 8) | p[2]!;
    // ffmpeg's PIDs: the PAT (0), the PMT (0x1000), the video (0x100). Keep the tables, start at the second picture.
    const starts = packets.flatMap((p, i) => (pid(p) === 0x100 && p[1]! & 0x40 ? [i] : []));
    const cut = Buffer.concat([...packets.filter((p) => pid(p) === 0 || pid(p) === 0x1000).slice(0, 2), ...packets.slice(starts[1])]);
    expect(segmentFacts(ts).keyFrameFirst).toBe(true);
    expect(segmentFacts(cut).keyFrameFirst).toBe(false);
    expect(segmentFacts(new TextEncoder().encode("not a stream"))).toEqual({ keyFrameFirst: false, frameRate: 0 });
  });
});
