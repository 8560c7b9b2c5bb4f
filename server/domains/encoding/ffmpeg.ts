/** Runs ffmpeg, turning its `-progress pipe:1` output into a percentage. */
import { MediaError, reasonFrom } from "./probe.ts";

export interface RunOptions {
  /** Source running time; needed to turn out_time into a percentage. */
  durationS?: number;
  onProgress?: (percent: number) => void;
  signal?: AbortSignal;
}

export async function runFfmpeg(ffmpegPath: string, args: string[], opts: RunOptions = {}): Promise<void> {
  const proc = Bun.spawn([ffmpegPath, ...args], { stdout: "pipe", stderr: "pipe", stdin: "ignore" });
  const kill = () => proc.kill("SIGKILL");
  opts.signal?.addEventListener("abort", kill, { once: true });
  try {
    const reading = readProgress(proc.stdout, opts);
    const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited, reading]);
    if (opts.signal?.aborted) throw opts.signal.reason ?? new Error("aborted");
    if (code !== 0) throw new MediaError(`The file could not be decoded: ${reasonFrom(err, args[args.indexOf("-i") + 1])}.`);
  } finally {
    opts.signal?.removeEventListener("abort", kill);
  }
}

async function readProgress(stdout: ReadableStream<Uint8Array>, opts: RunOptions): Promise<void> {
  const decoder = new TextDecoder();
  let buffered = "";
  for await (const chunk of stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    const lines = buffered.split("\n");
    buffered = lines.pop() ?? "";
    for (const line of lines) {
      // out_time_us is microseconds (out_time_ms is too, despite its name).
      const match = /^out_time_us=(\d+)/.exec(line);
      if (match && opts.durationS && opts.onProgress) {
        opts.onProgress(Math.min(100, (Number(match[1]) / 1e6 / opts.durationS) * 100));
      }
    }
  }
}
